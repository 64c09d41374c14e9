package shellparse

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZDump(t *testing.T) {
	src := os.Getenv("DUMP")
	if src == "" {
		t.Skip()
	}
	for _, s := range strings.Split(src, "\n@@\n") {
		r, err := Analyze(s, testOpts)
		fmt.Printf("== %s\n", s)
		if err != nil {
			fmt.Println("ERR", err)
			continue
		}
		for _, c := range r.Commands {
			fmt.Printf("   %s env=%q\n", summary(c), c.Env)
		}
	}
}
