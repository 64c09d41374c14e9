package policy

import (
	"reflect"
	"strings"
	"testing"
)

const remoteSettingsTOML = `version = 1
[settings]
approval_url = "unix:///run/toolguard/serve.sock"
approval_token_file = "/run/toolguard/hook.token"

[[settings.notify]]
url = "https://hooks.slack.com/services/T/B/X"
events = ["approval.request", "approval.decision"]
format = "slack"

[[settings.notify]]
url = "http://127.0.0.1:9000/hook"
`

var remoteSettingsWant = Settings{
	ApprovalURL:       "unix:///run/toolguard/serve.sock",
	ApprovalTokenFile: "/run/toolguard/hook.token",
	Notify: []Notify{
		{URL: "https://hooks.slack.com/services/T/B/X", Events: []string{"approval.request", "approval.decision"}, Format: "slack"},
		{URL: "http://127.0.0.1:9000/hook", Format: "json"},
	},
}

func remoteSettingsOf(s Settings) Settings {
	return Settings{ApprovalURL: s.ApprovalURL, ApprovalTokenFile: s.ApprovalTokenFile, Notify: s.Notify}
}

// TestRemoteSettings: approval_url, approval_token_file and notify decode
// from TOML, survive materialize (the JSON form), and the inline-table
// spelling of notify reads the same.
func TestRemoteSettings(t *testing.T) {
	p, err := Load([]Source{{Path: "user.toml", Data: []byte(remoteSettingsTOML)}}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := remoteSettingsOf(p.Settings); !reflect.DeepEqual(got, remoteSettingsWant) {
		t.Fatalf("toml: got %+v\nwant %+v", got, remoteSettingsWant)
	}
	data, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load([]Source{{Path: "policy.json", Data: data}}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatalf("materialized: %v\n%s", err, data)
	}
	if got := remoteSettingsOf(m.Settings); !reflect.DeepEqual(got, remoteSettingsWant) {
		t.Fatalf("materialized: got %+v\nwant %+v", got, remoteSettingsWant)
	}
	inline := "version = 1\n[settings]\nnotify = [{url = \"http://127.0.0.1:9000/hook\"}]\n"
	p, err = Load([]Source{{Path: "user.toml", Data: []byte(inline)}}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Notify{{URL: "http://127.0.0.1:9000/hook", Format: "json"}}; !reflect.DeepEqual(p.Settings.Notify, want) {
		t.Fatalf("inline: got %+v, want %+v", p.Settings.Notify, want)
	}
}

// TestRemoteSettingsErrors: a bad value is a positioned problem naming
// the setting; https says what to do instead.
func TestRemoteSettingsErrors(t *testing.T) {
	cases := []struct {
		name, settings, want string
	}{
		{"https", `approval_url = "https://approvals.example:8787"`, `user.toml:3:1: approval_url: "https://approvals.example:8787": https is not supported by the hook`},
		{"https-workaround", `approval_url = "https://x:1"`, "unix:///path"},
		{"relative-socket", `approval_url = "unix://run/s.sock"`, `user.toml:3:1: approval_url: "unix://run/s.sock": want unix:///absolute/path`},
		{"no-port", `approval_url = "http://127.0.0.1"`, "want http://host:port"},
		{"path", `approval_url = "http://127.0.0.1:8787/v1"`, "want http://host:port"},
		{"user", `approval_url = "http://u@127.0.0.1:8787"`, "want http://host:port"},
		{"scheme", `approval_url = "ftp://x"`, "want unix:///path/to/socket or http://host:port"},
		{"empty-token-file", `approval_token_file = ""`, "approval_token_file: empty path"},
		{"relative-token-file", `approval_token_file = "run/hook.token"`, `approval_token_file: "run/hook.token": want an absolute path`},
		{"notify-url", "[[settings.notify]]\nurl = \"file:///etc/passwd\"", `user.toml:3:1: notify 1: url "file:///etc/passwd"`},
		{"notify-format", "[[settings.notify]]\nurl = \"http://x/\"\nformat = \"xml\"", `notify 1: format "xml": want json or slack`},
		{"notify-event", "[[settings.notify]]\nurl = \"http://x/\"\nevents = [\"approval.nope\"]", `notify 1: event "approval.nope"`},
		{"notify-unknown-key", "[[settings.notify]]\nurl = \"http://x/\"\nheaders = 1", `unknown key "settings.notify.0.headers"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load([]Source{{Path: "user.toml", Data: []byte("version = 1\n[settings]\n" + c.settings + "\n")}}, LoadOptions{NoBuiltin: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	for _, ok := range []string{`"unix:///run/s.sock"`, `"http://127.0.0.1:8787"`, `"http://[::1]:8787/"`, `"http://host.docker.internal:8787"`} {
		if _, err := Load([]Source{{Path: "user.toml", Data: []byte("version = 1\n[settings]\napproval_url = " + ok + "\n")}}, LoadOptions{NoBuiltin: true}); err != nil {
			t.Errorf("approval_url = %s: %v", ok, err)
		}
	}
}

// TestRemoteSettingsUntrusted: an untrusted project layer cannot point
// the hook at an approval server or add a webhook (it would name its own
// server, which "approves", or receive every request's contents); each is
// reported in Ignored with its position, and a trusted layer's values stay.
func TestRemoteSettingsUntrusted(t *testing.T) {
	user := Source{Path: "/home/u/.config/toolguard/policy.toml", Name: "user", Data: []byte(remoteSettingsTOML)}
	for _, c := range []struct{ name, settings, ignored string }{
		{"approval-url", `approval_url = "http://127.0.0.1:9999"`, "policy.toml:3:1: approval_url ignored"},
		{"token-file", `approval_token_file = "/tmp/t"`, "policy.toml:3:1: approval_token_file ignored"},
		{"notify", "[[settings.notify]]\nurl = \"http://evil.example/\"", "policy.toml:3:1: notify ignored"},
		{"notify-empty", "notify = []", "notify ignored"},
	} {
		t.Run(c.name, func(t *testing.T) {
			proj := Source{Path: "/home/u/proj/.toolguard/policy.toml", Name: "project", Untrusted: true,
				Data: []byte("version = 1\n[settings]\n" + c.settings + "\n")}
			p, err := loadLayers(t, user, proj)
			if err != nil {
				t.Fatal(err)
			}
			if got := remoteSettingsOf(p.Settings); !reflect.DeepEqual(got, remoteSettingsWant) {
				t.Errorf("settings after the untrusted layer: %+v", got)
			}
			var got []string
			for _, ig := range p.Ignored {
				got = append(got, ig.String())
			}
			if !strings.Contains(strings.Join(got, "\n"), c.ignored) {
				t.Errorf("ignored %q, want %q", got, c.ignored)
			}
			// Trusted, the project's value applies.
			proj.Untrusted = false
			p, err = loadLayers(t, user, proj)
			if err != nil {
				t.Fatal(err)
			}
			if reflect.DeepEqual(remoteSettingsOf(p.Settings), remoteSettingsWant) || len(p.Ignored) != 0 {
				t.Errorf("trusted project layer did not apply: %+v, ignored %v", remoteSettingsOf(p.Settings), p.Ignored)
			}
		})
	}
}
