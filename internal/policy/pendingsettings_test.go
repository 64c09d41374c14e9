package policy

import (
	"testing"
	"time"
)

func TestPendingSettings(t *testing.T) {
	p, err := Load([]Source{{Path: "user.toml", Data: []byte("version = 1\n")}}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Settings.HoldSessionOnPending || p.Settings.PendingTTL != 24*time.Hour {
		t.Fatalf("defaults: hold %v ttl %v, want true 24h", p.Settings.HoldSessionOnPending, p.Settings.PendingTTL)
	}
	p, err = Load([]Source{{Path: "user.toml", Data: []byte("version = 1\n[settings]\nhold_session_on_pending = false\npending_ttl = \"30m\"\n")}}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Settings.HoldSessionOnPending || p.Settings.PendingTTL != 30*time.Minute {
		t.Fatalf("set: hold %v ttl %v, want false 30m", p.Settings.HoldSessionOnPending, p.Settings.PendingTTL)
	}
	for _, bad := range []string{`"soon"`, `"-1h"`, `"0s"`} {
		if _, err := Load([]Source{{Path: "user.toml", Data: []byte("version = 1\n[settings]\npending_ttl = " + bad + "\n")}}, LoadOptions{NoBuiltin: true}); err == nil {
			t.Errorf("pending_ttl = %s loaded, want an error", bad)
		}
	}
}
