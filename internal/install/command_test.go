package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestIsToolguardCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd  string
		want bool
	}{
		{"toolguard hook", true},
		{"toolguard hook --provider codex --policy /x/p.toml", true},
		{"/usr/local/bin/toolguard hook --provider claude-code", true},
		{`"/opt/my tools/toolguard" hook`, true},
		{`'/opt/my tools/toolguard' hook`, true},
		{`/opt/my\ tools/toolguard hook`, true},
		{`C:\tools\toolguard.exe hook --provider copilot`, true},
		{`"C:\Program Files\toolguard\toolguard.exe" hook`, true},
		{`& "C:\Program Files\toolguard\TOOLGUARD.EXE" hook`, true},
		{"env TOOLGUARD_LOG=1 toolguard hook", true},
		{"/e2e/hooks/hook_tee.sh /logs/in.json /bin/toolguard hook --provider gemini", true},
		{"${HOME}/bin/toolguard hook", true},
		{"toolguard check -- git push", false},
		{"toolguard validate hook", false},
		{"toolguard", false},
		{"toolguard-dev hook", false},
		{"mytoolguard hook", false},
		{"echo toolguard hook", true}, // recognition is syntactic, by design
		{"echo 'toolguard hook'", false},
		{"python3 /home/user/scripts/validate.py", false},
		{"", false},
		{"toolguard;hook", false},
		{"toolguard hooks", false},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			t.Parallel()
			if got := IsToolguardCommand(tt.cmd); got != tt.want {
				t.Errorf("IsToolguardCommand(%q) = %v, want %v (words %q)", tt.cmd, got, tt.want, splitWords(tt.cmd))
			}
		})
	}
}

func TestExtractCommands(t *testing.T) {
	t.Parallel()
	tomlSample, err := os.ReadFile(filepath.Join("testdata", "fixtures", "codex-config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		provider string
		data     string
		want     []string
		wantErr  string
	}{
		{"empty", "claude-code", "", nil, ""},
		{"no hooks", "claude", `{"model":"x"}`, nil, ""},
		{"claude exec form", "claude-code",
			`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/bin/toolguard","args":["hook","--policy","/a b/p.toml"]}]}]}}`,
			[]string{"/bin/toolguard hook --policy '/a b/p.toml'"}, ""},
		{"claude empty args", "claude-code",
			`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"x.sh","args":[]}]}]}}`,
			[]string{"x.sh"}, ""},
		{"duplicates once", "cursor",
			`{"version":1,"hooks":{"preToolUse":[{"command":"a"}],"beforeShellExecution":[{"command":"a"},{"command":"b"}]}}`,
			[]string{"a", "b"}, ""},
		{"copilot fields", "copilot",
			`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"a.sh","powershell":"a.ps1"},{"exec":"toolguard","args":["hook"]},{"command":"c"}],
			  "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"nested"}]}]}}`,
			[]string{"a.sh", "a.ps1", "toolguard hook", "c", "nested"}, ""},
		{"gemini comments", "gemini",
			"{\n  // user settings\n  \"hooks\": {\"BeforeTool\": [{\"matcher\": \"*\", /* all */ \"hooks\": [{\"command\": \"g // not a comment\"}]}]}\n}",
			[]string{"g // not a comment"}, ""},
		{"codex toml", "codex",
			"model = \"o3\"\n[features]\nhooks = true\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"toolguard hook --provider codex\"\n\n[hooks.state.\"x:pre_tool_use:0:0\"]\ntrusted_hash = \"abc\"\n",
			[]string{"toolguard hook --provider codex"}, ""},
		{"codex toml sample", "codex", string(tomlSample),
			[]string{"curl -sSf --max-time 25 --data-binary @- -H 'Content-Type: application/json' http://localhost:8100/v1/hooks/codex || exit 2"}, ""},
		{"codex toml error", "codex", "[hooks\ncommand = 1\n", nil, "2:7:"},
		{"json error position", "claude-code", "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}\n", nil, "3:20:"},
		{"json error value", "claude-code", "{\"a\": x}", nil, "1:7: invalid character 'x'"},
		{"json error eof", "claude-code", "{\"a\": [", nil, "1:8: unexpected end"},
		{"not an object", "gemini", "[]", nil, "1:1: top-level value is an array"},
		{"unknown provider", "cline", "{}", nil, "unknown provider"},
		{"opencode plugin", "opencode", string(pluginSource("/usr/local/bin/toolguard hook --provider opencode --policy '/etc/a \\\" b.toml'")),
			[]string{"/usr/local/bin/toolguard hook --provider opencode --policy '/etc/a \\\" b.toml'"}, ""},
		{"opencode foreign plugin", "opencode", "const COMMAND = \"toolguard hook\";\n", nil, ""},
		{"hooks not object", "claude-code", `{"hooks":[1]}`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ExtractCommands(tt.provider, []byte(tt.data))
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) && !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSettingsPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, scope, want, wantErr string
	}{
		{"claude", "", "/p/.claude/settings.json", ""},
		{"claude-code", "user", "/h/.claude/settings.json", ""},
		{"codebuddy", "project", "/p/.codebuddy/settings.json", ""},
		{"codex", "project", "/p/.codex/hooks.json", ""},
		{"codex", "user", "/h/.codex/hooks.json", ""},
		{"gemini", "user", "/h/.gemini/settings.json", ""},
		{"cursor", "project", "/p/.cursor/hooks.json", ""},
		{"copilot", "project", "/p/.github/hooks/toolguard.json", ""},
		{"copilot", "user", "/h/.copilot/hooks/toolguard.json", ""},
		{"opencode", "project", "/p/.opencode/plugins/toolguard.js", ""},
		{"opencode", "user", "/h/.config/opencode/plugins/toolguard.js", ""},
		{"cline", "project", "", `unknown provider "cline"`},
		{"codex", "global", "", `unknown scope "global"`},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.scope, func(t *testing.T) {
			t.Parallel()
			got, err := SettingsPath(tt.provider, tt.scope, "/p", "/h")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != filepath.FromSlash(tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := SettingsPath("codex", "user", "/p", ""); err == nil {
		t.Error("user scope without home: no error")
	}
	if _, err := SettingsPath("codex", "project", "", "/h"); err == nil {
		t.Error("project scope without dir: no error")
	}
}

func TestJSONStyle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"two spaces", "{\n  \"a\": [1, 2],\n  \"b\": {}\n}\n", "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}\n"},
		{"compact no newline", `{"a":[1,{"b":"<&>"}]}`, `{"a":[1,{"b":"<&>"}]}`},
		{"crlf tabs", "{\r\n\t\"a\": 1\r\n}\r\n", "{\r\n\t\"a\": 1\r\n}\r\n"},
		{"duplicate key keeps first position, last value", "{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}\n", "{\n  \"a\": 3,\n  \"b\": 2\n}\n"},
		{"numbers verbatim", "{\n  \"n\": 1.50e+3,\n  \"m\": -0\n}", "{\n  \"n\": 1.50e+3,\n  \"m\": -0\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := decodeJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeJSON(v, detectStyle([]byte(tt.in)))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
