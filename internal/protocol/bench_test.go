package protocol

import (
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

func BenchmarkDecode(b *testing.B) {
	payloads := map[string]string{
		NameClaude:  hookJSON("Bash", `{"command":"git push --force origin main","description":"x"}`),
		NameCodex:   hookJSON("apply_patch", `{"command":"*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@\n-x\n+y\n*** End Patch\n"}`),
		NameCopilot: copilotCamel("bash", `"{\"command\":\"rm -rf dist\"}"`),
	}
	for name, p := range payloads {
		c := mustLookup(b, name)
		payload := []byte(p)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeWith(c, payload, DecodeOptions{Home: testHome}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDetect(b *testing.B) {
	payload := []byte(hookJSON("Bash", `{"command":"ls"}`))
	b.ReportAllocs()
	for b.Loop() {
		_ = Detect(payload)
	}
}

func BenchmarkEncode(b *testing.B) {
	c := mustLookup(b, NameClaude)
	v := call.Verdict{Decision: call.Deny, Reason: "toolguard: denied by rule git-push-force: push a branch instead"}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Encode(v)
	}
}
