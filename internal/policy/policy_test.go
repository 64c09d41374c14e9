package policy

import (
	"testing"
)

// TestBuiltinPolicyHash checks that builtinGenPolicyHash, the generated
// Hash of the default policy, is what hashing the loaded defaults gives,
// and that it was generated for the current defaults.toml (run go generate
// ./internal/policy after editing it).
func TestBuiltinPolicyHash(t *testing.T) {
	p, err := Load(nil, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	toml, want := contentHash(builtinTOML), hashPolicy(p)
	if len(p.Layers) != 1 || p.Layers[0].Name != "builtin" {
		t.Fatalf("the default policy's layers are %+v, want the builtin layer alone", p.Layers)
	}
	// The embedded TOML is not hashed at run time (builtinHash): its layer
	// carries builtinGenHash, which must be the TOML's.
	if p.Layers[0].Hash != toml || builtinGenHash != toml || builtinGenPolicyHash != want {
		t.Fatalf("builtin_gen.go is stale for this defaults.toml (want toml %s, hash %s): run go generate ./internal/policy", toml, want)
	}
	if got := p.Hash(); got != want {
		t.Fatalf("Hash() = %s, hashPolicy %s", got, want)
	}
	// Any other policy is hashed in full.
	other, err := Load([]Source{{Path: "x.toml", Data: []byte("[settings]\nmode = \"headless\"\n")}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, full := other.Hash(), hashPolicy(other); got != full || got == want {
		t.Fatalf("Hash() of a layered policy = %s, hashPolicy %s (default policy %s)", got, full, want)
	}
}

// allRules is p.Rules() for a test that expects every rule to decode.
func allRules(p *Policy) []*Rule {
	rules, err := p.Rules()
	if err != nil {
		panic(err)
	}
	return rules
}

// rulesErr is the error of p.Rules().
func rulesErr(p *Policy) error {
	_, err := p.Rules()
	return err
}

// lazyOf is p's rule source when its rules are decoded on demand, or nil.
func lazyOf(p *Policy) *lazyRules {
	l, _ := p.rules.(*lazyRules)
	return l
}

// TestHashLayeredDigests: the defaults + a project layer hash with the
// generated digests of the default rules is the hash of the same rules
// compiled; overriding or disabling a default rule changes it.
func TestHashLayeredDigests(t *testing.T) {
	load := func(toml string) *Policy {
		t.Helper()
		p, err := Load([]Source{{Path: "/p/.toolguard/policy.toml", Data: []byte(toml), Layer: "project"}}, LoadOptions{Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := load("[[rule]]\nid = \"no-make-deploy\"\ndecision = \"ask\"\ncommand = [\"make deploy\"]\n")
	if builtinDigests(base.rules.(*lazyRules).docs) == "" {
		t.Fatal("the layered defaults do not use the generated digests")
	}
	compiled := &Policy{Settings: base.Settings, rules: compiledRules(allRules(base))}
	if got, want := base.Hash(), hashPolicy(compiled); got != want {
		t.Fatalf("layered hash %s, compiled %s", got, want)
	}
	seen := map[string]string{base.Hash(): "base"}
	for name, toml := range map[string]string{
		"settings": "[settings]\nmode = \"headless\"\n[[rule]]\nid = \"no-make-deploy\"\ndecision = \"ask\"\ncommand = [\"make deploy\"]\n",
		"rule":     "[[rule]]\nid = \"no-make-deploy\"\ndecision = \"deny\"\ncommand = [\"make deploy\"]\n",
		"disable":  "[settings]\ndisable = [\"git-push-force\"]\n[[rule]]\nid = \"no-make-deploy\"\ndecision = \"ask\"\ncommand = [\"make deploy\"]\n",
		"override": "[[rule]]\nid = \"git-push-force\"\ndecision = \"ask\"\ncommand = [\"git push\"]\nargs = [\"--force\"]\n",
	} {
		h := load(toml).Hash()
		if other, dup := seen[h]; dup {
			t.Errorf("%s hashes as %s: %s", name, other, h)
		}
		seen[h] = name
	}
}
