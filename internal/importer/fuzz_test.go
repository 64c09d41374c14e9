package importer

import "testing"

// FuzzParse feeds arbitrary bytes to each source decoder and mapper (not
// the verification, which needs a mapped rule set): none may panic, and
// the Codex parser either returns calls or an error with a line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "prompt", match = [["git", "push"]])`,
		"S = ['a'] + [\"b\"]\nprefix_rule(pattern=[S], justification='''x\ny''')",
		`{"permissions": {"allow": ["Bash(git status:*)", "Read(~/.ssh/**)"], "deny": ["WebFetch(domain:x.com)"]}}`,
		"[[rule]]\ntoolName = \"run_shell_command\"\ncommandRegex = \"git (a|b).*\"\ndecision = \"allow\"\n",
		"[[rule]]\ntoolName = \"write_file\"\nargsPattern = '\"file_path\":\"[^\"]*'\ndecision = \"deny\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res := &Result{}
		for _, a := range []Agent{Claude, Codex, Gemini} {
			s := Source{Agent: a, Scope: "project", Path: "f", Data: data}
			switch a {
			case Claude:
				_ = importClaude(res, s)
			case Codex:
				_ = importCodex(res, s)
			case Gemini:
				_ = importGemini(res, s)
			}
		}
		assignIDs(res.Rules)
		findShadows(res)
		_ = res.Policy()
	})
}
