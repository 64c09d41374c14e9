package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Everything shipped validates clean under validate's checks: the
// defaults, every preset, the docs' examples, and the materialized JSON
// form of each preset (read back with positions from the JSON index).
func TestValidateShipped(t *testing.T) {
	t.Parallel()
	srcs := map[string][]byte{}
	for _, name := range PresetNames() {
		b, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		srcs[name+".toml"] = b
	}
	docs, _ := filepath.Glob("../../docs/examples/*.toml")
	if len(docs) == 0 {
		t.Fatal("no docs/examples")
	}
	for _, f := range docs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = b
	}
	for name, b := range srcs {
		t.Run(filepath.Base(name), func(t *testing.T) {
			p, probs := Validate([]Source{{Path: name, Data: b}}, LoadOptions{})
			for _, pr := range probs {
				t.Error(pr.String())
			}
			if p == nil {
				t.Fatal("no policy")
			}
			js, err := p.Materialize()
			if err != nil {
				t.Fatal(err)
			}
			_, probs = Validate([]Source{{Path: "m.json", Data: js}}, LoadOptions{})
			for _, pr := range probs {
				t.Errorf("materialized: %s", pr)
			}
		})
	}
}

// Validate goes on past each phase and positions JSON problems.
func TestValidateAllPhases(t *testing.T) {
	t.Parallel()
	toml := "version = 1\n[[rule]]\nid = \"a\"\ndecision = \"deny\"\ncommand = [\"rm -rf\"]\nbogus = 1\n" +
		"[[rule]]\nid = \"b\"\ndecision = \"nope\"\ncommand = [\"x\"]\n" +
		"[[rule]]\nid = \"c\"\ndecision = \"deny\"\ncommand = [\"curl\"]\nexamples.not_match = [\"ls\",\n \"curl q\"]\n"
	js := "{\"rules\": [\n {\"id\": \"d\", \"decision\": \"ask\", \"tol\": [\"Bash\"]}\n]}"
	_, probs := Validate([]Source{{Path: "a.toml", Data: []byte(toml)}, {Path: "b.json", Data: []byte(js)}}, LoadOptions{NoBuiltin: true})
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	want := []string{
		`a.toml:5:1: rule "a": command "rm -rf" holds the option "-rf"`,
		`a.toml:6:1: unknown key "rule.0.bogus"`,
		`a.toml:9:1: rule "b": unknown decision "nope"`,
		`a.toml:16:2: rule "c": example "curl q" should not match but does`,
		`b.json:2:3: rule "d": rule has no conditions`,
		`b.json:2:33: unknown key "rule.0.tol" (did you mean "tool"?)`,
	}
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("missing %q in\n%s", w, all)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(got), len(want), all)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"on_eror", "on_error", 1}, {"comand", "command", 1}, {"tol", "tool", 1}, {"abc", "xyz", 3}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

// The JSON form's arrays are rules and tests: the TOML names there would
// be dropped by the decoder, and are errors with the JSON name as hint.
func TestValidateJSONArrayNames(t *testing.T) {
	t.Parallel()
	js := "{\"version\": 1,\n \"rule\": [{\"id\": \"a\", \"decision\": \"deny\", \"tool\": [\"*\"]}],\n \"test\": []}"
	_, probs := Validate([]Source{{Path: "p.json", Data: []byte(js)}}, LoadOptions{NoBuiltin: true})
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	want := []string{
		`p.json:2:2: unknown key "rule" (did you mean "rules"? the JSON form names the arrays rules and tests)`,
		`p.json:3:2: unknown key "test" (did you mean "tests"? the JSON form names the arrays rules and tests)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// and the TOML form's: rules is no key there
	_, probs = Validate([]Source{{Path: "p.toml", Data: []byte("[[rules]]\nid = \"a\"\n")}}, LoadOptions{NoBuiltin: true})
	if len(probs) != 1 || !strings.Contains(probs[0].String(), `p.toml:1:1: unknown key "rules" (did you mean "rule"?)`) {
		t.Errorf("TOML rules: %v", probs)
	}
}

// Validate never panics, whatever the bytes, in either form.
func FuzzValidate(f *testing.F) {
	f.Add([]byte("{\"rules\": [{\"id\": \"a\", \"decision\": \"deny\", \"command\": [\"rm -rf\"], \"examples\": {\"match\": [\"rm x\"]}}]}"), true)
	f.Add([]byte("[[rule]]\nid = \"a\"\ndecision = \"deny\"\ncommand = \"git push --force\"\nexamples.match = [\"x\"]\n[[test]]\ncommand = \"x\"\nexpect = \"deny\"\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		name := "f.toml"
		if isJSON {
			name = "f.json"
		}
		Validate([]Source{{Path: name, Data: data}}, LoadOptions{NoBuiltin: true})
	})
}

// A file of nothing but unknown keys gets a bounded list, and the key
// index is one pass (100k keys: well under a second; it was quadratic).
func TestValidateManyUnknownKeys(t *testing.T) {
	t.Parallel()
	js := "{" + strings.Repeat("\"x\": 1,\n", 100000) + "\"y\": 1}"
	_, probs := Validate([]Source{{Path: "k.json", Data: []byte(js)}}, LoadOptions{NoBuiltin: true})
	if len(probs) != maxUnknownKeys+1 {
		t.Fatalf("%d problems, want %d", len(probs), maxUnknownKeys+1)
	}
	if last := probs[len(probs)-1].String(); last != "k.json:101:1: more unknown keys from here on (100001 in all); not listed" {
		t.Errorf("last: %s", last)
	}
	if p := probs[99].String(); p != `k.json:100:1: unknown key "x" (did you mean "y"?)` && !strings.HasPrefix(p, `k.json:100:1: unknown key "x"`) {
		t.Errorf("100th: %s", p)
	}
}

// An allow rule of the user's layers that wins over an unlocked built-in
// ask or deny on one of its own examples is a warning naming both rules
// and the example; an allow that wins over nothing, one that ties (the
// stricter decision wins a tie), and one whose built-in rule is disabled
// are not.
func TestValidateOutranked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, src string
		want      []string // substrings of the single warning; nil: no warning
	}{
		{"outranks", "version = 1\n[[rule]]\nid = \"allow-push\"\ndecision = \"allow\"\npriority = 100\ncommand = [\"git push\"]\n",
			[]string{`rule "allow-push"`, `built-in deny rule "git-push-force"`, `"git push --force origin main" is allowed`, "settings.disable"}},
		// git status at priority 100 outranks git-env-config (GIT_CONFIG_COUNT=… git status runs config): said too
		{"outranks an env rule", "version = 1\n[[rule]]\nid = \"allow-status\"\ndecision = \"allow\"\npriority = 100\ncommand = [\"git status\"]\n",
			[]string{`built-in ask rule "git-env-config"`}},
		{"no overlap", "version = 1\n[[rule]]\nid = \"allow-fmt\"\ndecision = \"allow\"\npriority = 100\ncommand = [\"cargo fmt\"]\n", nil},
		{"tie", "version = 1\n[[rule]]\nid = \"allow-push\"\ndecision = \"allow\"\ncommand = [\"git push\"]\n", nil},
		{"disabled on purpose", "version = 1\n[settings]\ndisable = [\"git-push-force\", \"git-push-delete\", \"git-push-url\"]\n[[rule]]\nid = \"allow-push\"\ndecision = \"allow\"\npriority = 100\ncommand = [\"git push\"]\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, probs := Validate([]Source{{Path: "user.toml", Data: []byte(c.src)}}, LoadOptions{})
			if p == nil {
				t.Fatalf("did not load: %v", probs)
			}
			var warns []Problem
			for _, pr := range probs {
				if !pr.Warning {
					t.Errorf("an error, not a warning: %s", pr)
					continue
				}
				warns = append(warns, pr)
			}
			if c.want == nil {
				for _, w := range warns {
					t.Errorf("unexpected warning: %s", w)
				}
				return
			}
			found := false
			for _, w := range warns {
				ok := w.File == "user.toml" && w.Line == 2
				for _, s := range c.want {
					ok = ok && strings.Contains(w.String(), s)
				}
				found = found || ok
			}
			if !found {
				t.Errorf("no warning with %q at user.toml:2 in %v", c.want, warns)
			}
		})
	}
}
