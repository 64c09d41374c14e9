package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallHTTP(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, ".claude", "settings.json")
	o := HTTPOptions{Dir: dir, URL: "https://guard.example:8787"}
	res, err := InstallHTTP(o)
	if err != nil || !res.Changed {
		t.Fatalf("InstallHTTP = %+v, %v", res, err)
	}
	var got map[string]any
	if err := json.Unmarshal(mustRead(t, file), &got); err != nil {
		t.Fatal(err)
	}
	want := `{"hooks":{"PreToolUse":[{"hooks":[{"allowedEnvVars":["TOOLGUARD_NODE_TOKEN"],"headers":{"Authorization":"Bearer ${TOOLGUARD_NODE_TOKEN}"},"onFailure":"block","timeout":30,"type":"http","url":"https://guard.example:8787/v1/hooks/claude-code"}],"matcher":"*"}]}}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Fatalf("settings:\n%s\nwant\n%s", b, want)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "TOOLGUARD_NODE_TOKEN") {
		t.Errorf("notes do not name the token variable: %v", res.Notes)
	}
	// Idempotent.
	if res, err := InstallHTTP(o); err != nil || res.Changed {
		t.Fatalf("second InstallHTTP = %+v, %v", res, err)
	}
	// Another address or variable replaces the entry; other hooks stay.
	data := strings.Replace(string(mustRead(t, file)), `"hooks": {`, `"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],`, 1)
	data = strings.Replace(data, `"PreToolUse": [`, `"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "toolguard hook --provider claude-code"}]},`, 1)
	writeFile(t, file, []byte(data))
	o.URL, o.Env = "http://127.0.0.1:8787/v1/hooks/claude-code", "TG_TOKEN"
	res, err = InstallHTTP(o)
	if err != nil || !res.Changed || !strings.Contains(res.Summary, "replace PreToolUse HTTP hook") {
		t.Fatalf("retarget = %+v, %v", res, err)
	}
	out := string(mustRead(t, file))
	for _, s := range []string{"notify-send done", `"url": "http://127.0.0.1:8787/v1/hooks/claude-code"`, `"Bearer ${TG_TOKEN}"`, `"TG_TOKEN"`, "toolguard hook --provider claude-code"} {
		if !strings.Contains(out, s) {
			t.Errorf("settings lack %s:\n%s", s, out)
		}
	}
	if strings.Contains(out, "guard.example") || strings.Count(out, `"type": "http"`) != 1 {
		t.Errorf("the old entry stayed:\n%s", out)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "command hook is installed there too") {
		t.Errorf("no note of the command hook: %v", res.Notes)
	}

	// Uninstall removes the HTTP hook only.
	res, err = UninstallHTTP(HTTPOptions{Dir: dir})
	if err != nil || !res.Changed {
		t.Fatalf("UninstallHTTP = %+v, %v", res, err)
	}
	out = string(mustRead(t, file))
	if strings.Contains(out, `"http"`) || !strings.Contains(out, "notify-send") || !strings.Contains(out, "toolguard hook") {
		t.Errorf("after UninstallHTTP:\n%s", out)
	}
	if res, err := UninstallHTTP(HTTPOptions{Dir: dir}); err != nil || res.Changed {
		t.Errorf("second UninstallHTTP = %+v, %v", res, err)
	}
	// A file holding only the HTTP hook is deleted.
	dir2 := t.TempDir()
	if _, err := InstallHTTP(HTTPOptions{Dir: dir2, URL: "http://localhost:8787"}); err != nil {
		t.Fatal(err)
	}
	if _, err := UninstallHTTP(HTTPOptions{Dir: dir2}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir2, ".claude", "settings.json")); !os.IsNotExist(err) {
		t.Errorf("the emptied file stayed: %v", err)
	}
}

func TestInstallHTTPRefuses(t *testing.T) {
	for _, tc := range []struct{ url, env, want string }{
		{"http://guard.example:8787", "", "in clear"},
		{"http://10.0.0.5:8787", "", "in clear"},
		{"ftp://127.0.0.1", "", "want http(s)"},
		{"127.0.0.1:8787", "", "want http(s)"},
		{"https://guard.example/other", "", "endpoint"},
		{"https://guard.example/v1/hooks/codex", "", "endpoint"},
		{"https://u:p@guard.example", "", "no user"},
		{"https://guard.example?t=secret", "", "no user, query"},
		{"https://guard.example", "1BAD", "environment variable name"},
		{"https://guard.example", "A-B", "environment variable name"},
	} {
		dir := t.TempDir()
		_, err := InstallHTTP(HTTPOptions{Dir: dir, URL: tc.url, Env: tc.env})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: %v, want %q", tc.url, tc.env, err, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, ".claude")); !os.IsNotExist(err) {
			t.Errorf("%q: wrote something", tc.url)
		}
	}
	for _, ok := range []string{"http://127.0.0.1:8787", "http://[::1]:8787/", "http://localhost:1/v1/hooks/claude-code", "https://guard.example"} {
		if _, err := HookURL(ok); err != nil {
			t.Errorf("HookURL(%q): %v", ok, err)
		}
	}
}
