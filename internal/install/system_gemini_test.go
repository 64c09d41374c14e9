package install

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestGeminiAdminRules: the static admin rules of system mode deny the
// ways to switch Gemini CLI's advisory hook off, and let harmless
// mentions of toolguard through (they denied every one before). Gemini
// matches commandRegex against the command and argsPattern against the
// tool's arguments as JSON text; both are plain regexes here.
func TestGeminiAdminRules(t *testing.T) {
	var p struct {
		Rule []struct {
			ToolName     any    `toml:"toolName"`
			CommandRegex string `toml:"commandRegex"`
			ArgsPattern  string `toml:"argsPattern"`
			Decision     string `toml:"decision"`
		} `toml:"rule"`
	}
	if _, err := toml.Decode(geminiPolicy, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Rule) != 2 || p.Rule[0].CommandRegex == "" || p.Rule[1].ArgsPattern == "" {
		t.Fatalf("rules: %+v", p.Rule)
	}
	shell := regexp.MustCompile(p.Rule[0].CommandRegex)
	write := regexp.MustCompile(p.Rule[1].ArgsPattern)
	args := func(path, content string) string {
		b, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
		return string(b)
	}
	for _, c := range []struct {
		cmd  string
		deny bool
	}{
		{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=/tmp/s.json gemini -p hi", true},
		{`echo '{"hooksConfig":{"disabled":["toolguard"]}}' > ~/.gemini/settings.json`, true},
		{"jq '.disableAllHooks=true' x > y", true},
		{"cp /tmp/p.toml /etc/gemini-cli/policies/", true},
		{"grep -rn toolguard src/", false},
		{"cd ~/src/toolguard && go test ./...", false},
		{"toolguard check 'git status'", false},
		{"npm i -D toolguard-config", false},
	} {
		if got := shell.MatchString(c.cmd); got != c.deny {
			t.Errorf("shell %q: deny %v, want %v", c.cmd, got, c.deny)
		}
	}
	for _, c := range []struct {
		path, content string
		deny          bool
	}{
		{"/home/u/.gemini/settings.json", "{}", true},
		{"/home/u/src/app/.gemini/settings.json", "{}", true},
		{"/home/u/src/app/cfg.json", `{"hooksConfig":{"enabled":false}}`, true},
		{"/home/u/src/toolguard/README.md", "toolguard guards agents", false},
		{"/home/u/src/app/docs/toolguard.md", "how we use toolguard", false},
	} {
		if got := write.MatchString(args(c.path, c.content)); got != c.deny {
			t.Errorf("write %s: deny %v, want %v", c.path, got, c.deny)
		}
	}
}
