package policy

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"testing"
)

var updatePolicyHash = flag.Bool("update-policy-hash", false, "rewrite builtinPolicy in policy.go for the current defaults.toml")

// TestBuiltinPolicyHash checks that builtinPolicy, the precomputed Hash of
// the default policy, is what hashing the loaded defaults gives, and that it
// was computed for the current defaults.toml.
func TestBuiltinPolicyHash(t *testing.T) {
	p, err := Load(nil, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	toml, want := contentHash(builtinTOML), hashPolicy(p)
	if len(p.Layers) != 1 || p.Layers[0].Hash != toml {
		t.Fatalf("the default policy's layers are %+v, want the builtin layer alone", p.Layers)
	}
	if *updatePolicyHash {
		src, err := os.ReadFile("policy.go")
		if err != nil {
			t.Fatal(err)
		}
		for field, v := range map[string]string{"toml": toml, "hash": want} {
			re := regexp.MustCompile(`(?m)^(\t` + field + `: )"sha256:[0-9a-f]{64}",$`)
			if !re.Match(src) {
				t.Fatalf("policy.go: no builtinPolicy.%s line", field)
			}
			src = re.ReplaceAll(src, []byte(fmt.Sprintf("${1}%q,", v)))
		}
		if err := os.WriteFile("policy.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if builtinPolicy.toml != toml || builtinPolicy.hash != want {
		t.Fatalf("builtinPolicy in policy.go is stale for this defaults.toml (want toml %s, hash %s):\n"+
			"run go test ./internal/policy -run TestBuiltinPolicyHash -update-policy-hash", toml, want)
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
