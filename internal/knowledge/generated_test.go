package knowledge_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/internal/knowledge"
	"github.com/toolguard/toolguard/internal/knowledge/kgen"
)

// TestGenerated fails while tables_gen.go, docs/programs.md or
// docs/secrets.md differ from what `go generate ./internal/knowledge`
// writes from the data files.
func TestGenerated(t *testing.T) {
	prog, err := os.ReadFile("programs.toml")
	if err != nil {
		t.Fatal(err)
	}
	places, err := os.ReadFile("places.toml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := kgen.Generate(prog, places)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{
		{"tables_gen.go", out.Go},
		{filepath.Join("..", "..", "docs", "programs.md"), out.ProgramsMD},
		{filepath.Join("..", "..", "docs", "secrets.md"), out.SecretsMD},
	} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is stale: run go generate ./internal/knowledge", f.path)
		}
	}
}

// TestEffectNames checks that every entry names known effects and that
// the generator's effect list is the package's.
func TestEffectNames(t *testing.T) {
	docs := kgen.EffectDocs()
	if len(docs) != len(knowledge.Effects) {
		t.Fatalf("kgen lists %d effects, knowledge %d", len(docs), len(knowledge.Effects))
	}
	for i, e := range knowledge.Effects {
		if docs[i][0] != e.Name || docs[i][1] != e.Means {
			t.Errorf("effect %d: kgen %q, knowledge %q", i, docs[i], e)
		}
	}
	for _, p := range knowledge.Programs {
		for _, e := range p.Effects {
			if !knowledge.KnownEffect(e) {
				t.Errorf("programs.toml:%d: unknown effect %q", p.Line, e)
			}
		}
		if p.Declared != "" && p.Declared != "npm" && p.Declared != "python" && p.Declared != "go" {
			t.Errorf("programs.toml:%d: unknown declared %q", p.Line, p.Declared)
		}
	}
	for _, p := range knowledge.Places {
		if !knowledge.KnownEffect(p.Effect) {
			t.Errorf("places.toml:%d: unknown effect %q", p.Line, p.Effect)
		}
	}
}
