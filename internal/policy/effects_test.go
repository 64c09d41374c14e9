package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/knowledge"
	"github.com/toolguard/toolguard/internal/shellparse"
)

func effectEnv() *evalEnv {
	return &evalEnv{home: "/home/user", workspace: "/home/user/project"}
}

// entryMatches reports whether programs.toml entry i matches a command
// the string runs.
func entryMatches(t *testing.T, i int, src string) bool {
	t.Helper()
	an, err := shellparse.Analyze(src, shellparse.Options{Cwd: "/home/user/project", Home: "/home/user"})
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	e := &progEntry{k: &knowledge.Programs[i]}
	m, ok := e.matcher()
	if !ok {
		t.Fatalf("programs.toml:%d does not compile", e.k.Line)
	}
	ev := effectEnv()
	for j := range an.Commands {
		cmd := &an.Commands[j]
		if cmd.Dynamic || !m.matchCommand(cmd, ev) {
			continue
		}
		effs := ev.commandEffects(cmd)
		for _, want := range e.k.Effects {
			if !strings.Contains(strings.Join(effs, " "), want) {
				t.Errorf("programs.toml:%d: %q: effects %v lack %s", e.k.Line, src, effs, want)
			}
		}
		return true
	}
	return false
}

// TestProgramExamples runs every programs.toml example through
// shellparse.Analyze and the entry's matcher.
func TestProgramExamples(t *testing.T) {
	for i, p := range knowledge.Programs {
		for _, ex := range p.Match {
			if !entryMatches(t, i, ex) {
				t.Errorf("programs.toml:%d: match example %q does not match", p.Line, ex)
			}
		}
		for _, ex := range p.NotMatch {
			if entryMatches(t, i, ex) {
				t.Errorf("programs.toml:%d: not_match example %q matches", p.Line, ex)
			}
		}
	}
}

// TestPlaceExamples checks every places.toml example path.
func TestPlaceExamples(t *testing.T) {
	ev := effectEnv()
	expand := func(p string) string { return expandHome(p, ev.home) }
	for _, pl := range knowledge.Places {
		for _, p := range append(append([]string(nil), pl.Paths...), pl.PathNone...) {
			if _, err := compilePath(p); err != nil {
				t.Errorf("places.toml:%d: %v", pl.Line, err)
			}
		}
		for _, ex := range pl.Match {
			p := expand(ex)
			if effs := ev.pathEffects(p, call.OpRead, []string{p}); !strings.Contains(strings.Join(effs, " "), pl.Effect) {
				t.Errorf("places.toml:%d: %s: effects %v lack %s", pl.Line, ex, effs, pl.Effect)
			}
			if effs := ev.pathEffects(p, call.OpWrite, []string{p}); len(effs) > 0 {
				t.Errorf("places.toml:%d: a write of %s has effects %v", pl.Line, ex, effs)
			}
		}
		for _, ex := range pl.NotMatch {
			p := expand(ex)
			for _, e := range ev.pathEffects(p, call.OpRead, []string{p}) {
				if e == pl.Effect && e != knowledge.ReadsHomeDotfile {
					t.Errorf("places.toml:%d: not_match %s has %s", pl.Line, ex, e)
				}
			}
		}
	}
	for _, h := range knowledge.Harmless {
		if _, err := compilePath(h); err != nil {
			t.Errorf("places.toml [harmless]: %v", err)
		}
	}
	for _, ex := range knowledge.HarmlessMatch {
		p := expand(ex)
		if effs := ev.pathEffects(p, call.OpRead, []string{p}); len(effs) > 0 {
			t.Errorf("harmless %s has effects %v", ex, effs)
		}
	}
	for _, ex := range knowledge.HarmlessNotMatch {
		p := expand(ex)
		if effs := ev.pathEffects(p, call.OpRead, []string{p}); len(effs) == 0 {
			t.Errorf("harmless not_match %s has no effect", ex)
		}
	}
	// Inside the workspace, a dotfile is the project's.
	if effs := ev.pathEffects("/home/user/project/.eslintrc", call.OpRead, []string{"/home/user/project/.eslintrc"}); len(effs) > 0 {
		t.Errorf("workspace dotfile has effects %v", effs)
	}
}

// TestEffectConditionErrors: an unknown effect name is a compile error
// at the rule's effect field.
func TestEffectConditionErrors(t *testing.T) {
	_, errs := compileMatcher(fileRule{Effect: stringList{"reads-secrets"}}, false)
	if len(errs) != 1 || errs[0].field != "effect" || !strings.Contains(errs[0].msg, `unknown effect "reads-secrets"`) {
		t.Fatalf("errs = %v", errs)
	}
	m, errs := compileMatcher(fileRule{Effect: stringList{"reads-secret"}}, false)
	if len(errs) > 0 || m.class != classCommand {
		t.Fatalf("effect alone: class %v, errs %v", m.class, errs)
	}
	m, _ = compileMatcher(fileRule{Effect: stringList{"reads-secret"}, Op: stringList{"read"}}, false)
	if m.class != classPath {
		t.Fatalf("effect + op: class %v", m.class)
	}
	m, _ = compileMatcher(fileRule{Effect: stringList{"sends-secret"}, Tool: stringList{"web", "mcp"}}, false)
	if m.class != classCall {
		t.Fatalf("effect + tool web: class %v", m.class)
	}
}

// TestKeyHomeExamples runs every places.toml [[key_home]] example through
// shellparse.Analyze and the command effects: a match sends the key away,
// a not_match sends it home.
func TestKeyHomeExamples(t *testing.T) {
	sends := func(src string) bool {
		an, err := shellparse.Analyze(src, shellparse.Options{Cwd: "/home/user/project", Home: "/home/user"})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		ev := effectEnv()
		for j := range an.Commands {
			if slices.Contains(ev.commandEffects(&an.Commands[j]), knowledge.SendsSecret) {
				return true
			}
		}
		return false
	}
	for _, k := range knowledge.KeyHomes {
		for _, ex := range k.Match {
			if !sends(ex) {
				t.Errorf("places.toml:%d: match example %q does not send the key away", k.Line, ex)
			}
		}
		for _, ex := range k.NotMatch {
			if sends(ex) {
				t.Errorf("places.toml:%d: not_match example %q sends the key away", k.Line, ex)
			}
		}
	}
}
