package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
)

func touch(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExpandGlob(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	touch(t, root, ".env", ".env.local", ".env.example", "README.md", "a.md", "src/x.go", "src/y.go",
		"src/.hidden.go", "src/sub/z.go", "b[1].txt", "c1.txt", "c2.txt")
	for _, tc := range []struct {
		glob string
		want []string
	}{
		{".env*", []string{".env", ".env.example", ".env.local"}},
		{".en?", []string{".env"}},
		{"*.md", []string{"README.md", "a.md"}},
		{"*", []string{"README.md", "a.md", "b[1].txt", "c1.txt", "c2.txt", "src"}}, // no dotfiles
		{"src/*.go", []string{"src/x.go", "src/y.go"}},
		{"src/.*.go", []string{"src/.hidden.go"}},
		{"*/*.go", []string{"src/x.go", "src/y.go"}},
		{"src/**/*.go", []string{"src/sub/z.go"}}, // ** is * without globstar
		{"c[12].txt", []string{"c1.txt", "c2.txt"}},
		{"c[!1].txt", []string{"c2.txt"}},
		{`b\[1\].txt*`, []string{"b[1].txt"}},
		{"nothing*", nil},
		{"missing/*", nil},
	} {
		got, complete := ExpandGlob(filepath.Join(root, tc.glob))
		for i := range got {
			got[i] = strings.TrimPrefix(got[i], root+"/")
		}
		if !slices.Equal(got, tc.want) || !complete {
			t.Errorf("%s: %q (complete %v), want %q", tc.glob, got, complete, tc.want)
		}
	}
	if got, _ := ExpandGlob("relative/*"); got != nil {
		t.Errorf("relative pattern expanded: %q", got)
	}
}

func TestExpandGlobBounded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var names []string
	for i := range globMaxMatches + 10 {
		names = append(names, filepath.Join("d", "f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("0", i/26)))
	}
	touch(t, root, names...)
	got, complete := ExpandGlob(filepath.Join(root, "d", "f*"))
	if len(got) != globMaxMatches || complete {
		t.Errorf("%d matches, complete %v; want %d, cut short", len(got), complete, globMaxMatches)
	}
}

// TestGlobTargets: with Env.Glob, a glob stands for the files it names
// (cat .env* asks, cat .env.exam* passes like cat .env.example, cp ~/.ssh/*
// is denied for the private key in it); a glob that names nothing, or
// whose expansion was cut short, is also judged as written.
func TestGlobTargets(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "proj")
	touch(t, ws, ".env", ".env.example", "a.md", "src/x.go")
	touch(t, home, ".ssh/id_rsa", ".ssh/id_rsa.pub", ".ssh/config", ".aws/credentials")
	p, err := policy.Load(nil, policy.LoadOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	env := policy.Env{Home: home, Workspace: ws, Glob: ExpandGlob}
	for cmd, want := range map[string]call.Decision{
		"cat .env*":          call.Ask,
		"cat .en?":           call.Ask,
		"cat .env.exam*":     call.Pass,
		"cat *.md":           call.Pass,
		"cat *":              call.Pass,
		"rm -rf src/*":       call.Pass,
		"cp ~/.ssh/* /tmp/x": call.Deny,
		"cat ~/.aws/cred*":   call.Deny,
		"ls ~/.ssh/*.pub":    call.Pass,
		"cat ~/.ssh/id_r*":   call.Deny,
		"cat nothing*.pem":   call.Ask, // names nothing: judged as written (*.pem)
	} {
		c := call.Call{Kind: call.KindShell, Tool: "Bash", Command: cmd, Cwd: ws}
		if got := p.Evaluate(c, env).Decision; got != want {
			t.Errorf("%s: %v, want %v", cmd, got, want)
		}
	}
	// Cut short after a harmless file: the text *.pem still matches
	// secrets-certs; complete, the same expansion would pass.
	for complete, want := range map[bool]call.Decision{false: call.Ask, true: call.Pass} {
		env := policy.Env{Home: home, Workspace: ws, Glob: func(string) ([]string, bool) {
			return []string{filepath.Join(ws, "a.md")}, complete
		}}
		c := call.Call{Kind: call.KindShell, Tool: "Bash", Command: "cat *.pem", Cwd: ws}
		if got := p.Evaluate(c, env).Decision; got != want {
			t.Errorf("expansion complete=%v: %v, want %v", complete, got, want)
		}
	}
}

// TestExpandGlobByteBound: the names a glob reads are bounded in bytes as
// well as in count: a directory of many long names cuts the expansion
// short instead of holding them all. (Run with a small byte bound; the
// real one, globMaxBytes, is 2 MiB.)
func TestExpandGlobByteBound(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("n", 240)
	const bound = 64 << 10
	n := bound/len(long) + 20 // over the byte bound, under the count bound
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s%05d", long, i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	expand := func(pattern string, bytes int) ([]string, bool) {
		parts := strings.Split(strings.TrimPrefix(filepath.Clean(pattern), "/"), "/")
		g := globber{names: globMaxNames, bytes: bytes}
		g.walk("/", parts)
		return g.out, !g.cut
	}
	if paths, complete := expand(filepath.Join(dir, "x*"), bound); complete || len(paths) != 0 {
		t.Errorf("x* over %d long names: %d paths, complete %v; want none, cut short", n, len(paths), complete)
	}
	if paths, complete := expand(filepath.Join(dir, "n*"), bound); complete {
		t.Errorf("n* over %d long names: %d paths, complete; want it cut short", n, len(paths))
	} else if total := len(strings.Join(paths, "")); total > bound {
		t.Errorf("n*: %d bytes of paths, over the %d-byte bound", total, bound)
	}
	if paths, complete := expand(filepath.Join(dir, "x*"), globMaxBytes); !complete || len(paths) != 0 {
		t.Errorf("x* with the real bound: %d paths, complete %v; want none, complete", len(paths), complete)
	}
	if paths, complete := ExpandGlob(filepath.Join(dir, "*00007")); !complete || len(paths) != 1 {
		t.Errorf("ExpandGlob *00007: %v, complete %v", paths, complete)
	}
}
