package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/workspace"
)

// TestHolds: holds, surfaces' string form of above for clean absolute
// paths, agrees with above.
func TestHolds(t *testing.T) {
	for _, c := range [][2]string{{"/a", "/a"}, {"/a", "/a/b"}, {"/a", "/ab"}, {"/", "/x"}, {"/", "/"}, {"/a/b", "/a"}, {"/a", ""}, {"/a/b", "/a/b/c/d"}, {"/a/b", "/a/bc/d"}} {
		if got, want := holds(c[0], c[1]), workspace.Above(c[0], c[1]); got != want {
			t.Errorf("holds(%q, %q) = %v, above says %v", c[0], c[1], got, want)
		}
	}
}

// TestToolguardStrings: where the fast scan answers, it finds every hook
// command install.ExtractCommands finds that runs toolguard (the installed
// files of every agent, and crafted forms); where it cannot be sure, it
// leaves the file to the parser.
func TestToolguardStrings(t *testing.T) {
	files, _ := filepath.Glob("../../internal/install/testdata/golden/*.installed.json")
	if len(files) == 0 {
		t.Fatal("no installed settings files in internal/install/testdata/golden")
	}
	type input struct{ provider, data string }
	var inputs []input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{strings.TrimSuffix(filepath.Base(f), ".installed.json"), string(data)})
	}
	inputs = append(inputs,
		input{"claude-code", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"/a/TOOLGUARD hook"},{"command":"x \\\"/b/toolguard\\\" hook"}]}]}}`},
		input{"claude-code", "{\n// toolguard \"\n\"hooks\":{\"PreToolUse\":[{\"hooks\":[{\"command\":\"/c/toolguard hook\"}]}]}}"},
		input{"gemini", `{"hooks":{"BeforeTool":[{"hooks":[{"command":"/d/toolguard hook --provider gemini"}]}]},"other":"toolguard"}`},
	)
	for _, in := range inputs {
		full, err := install.ExtractCommands(in.provider, []byte(in.data))
		if err != nil {
			t.Fatalf("%s: %v", in.provider, err)
		}
		fast, ok := toolguardStrings(in.provider, []byte(in.data))
		if !ok {
			continue
		}
		for _, c := range full {
			if install.IsToolguardCommand(c) && !slices.Contains(fast, c) {
				t.Errorf("%s: the scan misses %q (found %q)", in.provider, c, fast)
			}
		}
	}
	for _, in := range []input{
		{"claude-code", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"/e/\u0074oolguard hook"}]}]}}`},
		{"copilot", `{"hooks":{"preToolUse":[{"exec":"/f/toolguard","args":["hook"]}]}}`},
		{"codex", "[hooks]\n"},
		{"opencode", "toolguard"},
	} {
		if _, ok := toolguardStrings(in.provider, []byte(in.data)); ok {
			t.Errorf("%s %q: the scan answered; want the parser", in.provider, in.data)
		}
	}
}
