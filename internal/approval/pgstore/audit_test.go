package pgstore

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolguard/toolguard/internal/audit"
)

// TestAuditChain: 100 appends from two replicas at once make one chain
// that audit.Verify accepts; an edited line breaks it.
func TestAuditChain(t *testing.T) {
	dbs, _ := replicas(t, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- dbs[i%2].AppendAudit(context.Background(), audit.Record{Time: t0, Decision: "deny",
				Summary: fmt.Sprintf("git push --force #%d", i), Provider: "codex"})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := dbs[1].WriteAudit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Verify(bytes.NewReader(b.Bytes()))
	if err != nil || rep.Problem != nil || rep.Lines != 100 {
		t.Fatalf("Verify = %+v, %v\n%.500s", rep, err, b.String())
	}
	tampered := strings.Replace(b.String(), "#42", "#43", 1)
	if rep, _ := audit.Verify(strings.NewReader(tampered)); rep.Problem == nil {
		t.Fatal("an edited line verifies")
	}
}
