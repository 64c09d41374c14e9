package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrevalidateEdits: an edit that would become an approval request but
// cannot apply — old_string not in the file, or more than once, a missing
// file, a patch hunk whose lines are not there — is denied with what is
// wrong and records no request; one that applies gets a request. A file the
// agent may not read (.env) is never checked, so edits are no oracle for
// its content.
func TestPrevalidateEdits(t *testing.T) {
	type tc struct {
		name     string
		file     string // relative to the project
		old, new string
		want     string // substring of the deny reason; "" wants a request
	}
	cases := []tc{
		{"applies", ".github/workflows/ci.yml", "run: make test", "run: make test lint", ""},
		{"not in the file", ".github/workflows/ci.yml", "run: make tests", "x", "does not occur"},
		{"twice", ".github/workflows/ci.yml", "make", "x", "occurs 2 times"},
		{"missing file", ".github/workflows/nope.yml", "run: make test", "x", "does not exist"},
		{"secret file not read", ".env", "TOKEN=guess", "TOKEN=x", ""},
		{"look-alike: indentation differs only in the patch", ".github/workflows/ci.yml", "run: make test", "run: make check", ""},
	}
	for _, d := range approvalDialects {
		for _, c := range cases {
			if d.provider != "codex" && strings.HasPrefix(c.name, "look-alike") {
				continue // the Edit tools match old_string exactly
			}
			if d.provider == "codex" && c.name == "twice" {
				continue // a patch hunk is sought from the top; several matches are not an error
			}
			t.Run(d.provider+"/"+c.name, func(t *testing.T) {
				e := newApprovalEnv(t, "")
				proj := filepath.Join(e.home, "proj")
				e.write(filepath.Join(proj, ".github/workflows/ci.yml"), "name: ci\n  run: make test\n  run: make lint\n", 0o644)
				e.write(filepath.Join(proj, ".env"), "TOKEN=s3cret\n", 0o600)
				d := inProject(d, proj)
				code, out, errOut := e.hook(d, d.edit(proj+"/"+c.file, c.old, c.new))
				if code != 0 || !strings.Contains(out, d.deny) {
					t.Fatalf("exit %d\n%s%s", code, out, errOut)
				}
				list := e.listAll()
				if c.want == "" {
					if approvalID.FindString(out) == "" || !strings.Contains(list, "pending") {
						t.Fatalf("want a request, got:\n%s\nlist:\n%s", out, list)
					}
					return
				}
				want := c.want
				if d.provider == "codex" && want == "does not occur" {
					want = "hunk 1 of the patch for .github/workflows/ci.yml does not apply"
				}
				if !strings.Contains(out, want) || !strings.Contains(out, "no approval request was recorded") {
					t.Errorf("reply lacks %q:\n%s", want, out)
				}
				if approvalID.FindString(out) != "" || strings.Contains(list, "req_") {
					t.Errorf("a request was recorded:\n%s\n%s", out, list)
				}
				if strings.Contains(out, "s3cret") {
					t.Errorf("the reply shows file content: %s", out)
				}
			})
		}
	}
}

// TestPrevalidateMultiEditAndPatch: a MultiEdit whose second edit no longer
// applies after the first; Codex patches that update or delete a missing
// file or seek a line that is not there.
func TestPrevalidateMultiEditAndPatch(t *testing.T) {
	e := newApprovalEnv(t, "")
	proj := filepath.Join(e.home, "proj")
	ci := filepath.Join(proj, ".github/workflows/ci.yml")
	e.write(ci, "name: ci\njobs:\n  test:\n    run: make test\n", 0o644)
	e.genKey(e.defaultKey())
	claude, codex := approvalDialects[0], approvalDialects[1]
	multi := func(edits string) string {
		return `{"session_id":"s1","cwd":"` + proj + `","hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"` + ci + `","edits":` + edits + `},"tool_use_id":"t9"}`
	}
	patch := func(p string) string {
		return `{"session_id":"s1","turn_id":"u1","transcript_path":null,"cwd":"` + proj + `","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"default","tool_name":"apply_patch","tool_input":{"command":` + jsonString(p) + `},"tool_use_id":"t2"}`
	}
	for _, c := range []struct {
		d       approvalDialect
		payload string
		want    string
	}{
		{claude, multi(`[{"old_string":"make test","new_string":"make check"},{"old_string":"make test","new_string":"make all"}]`), "old_string of edit 2 does not occur"},
		{claude, multi(`[{"old_string":"make test","new_string":"make check"},{"old_string":"make check","new_string":"make all"}]`), ""},
		{codex, patch("*** Begin Patch\n*** Update File: .github/workflows/gone.yml\n@@\n-a\n+b\n*** End Patch\n"), "updates .github/workflows/gone.yml, which does not exist"},
		{codex, patch("*** Begin Patch\n*** Delete File: .github/workflows/gone.yml\n*** End Patch\n"), "deletes .github/workflows/gone.yml, which does not exist"},
		{codex, patch("*** Begin Patch\n*** Update File: .github/workflows/ci.yml\n@@ jobs:\n   test:\n-    run: make tests\n+    run: make check\n*** End Patch\n"), "hunk 1 of the patch for .github/workflows/ci.yml does not apply"},
		{codex, patch("*** Begin Patch\n*** Update File: .github/workflows/ci.yml\n@@ build:\n-    run: make test\n+    run: make check\n*** End Patch\n"), `starts at the line \"build:\"`},
		{codex, patch("*** Begin Patch\n*** Update File: .github/workflows/ci.yml\n@@ jobs:\n   test:\n-    run: make test\n+    run: make check\n*** End Patch\n"), ""},
		{codex, patch("*** Begin Patch\n*** Add File: .github/workflows/new.yml\n+name: new\n*** End Patch\n"), ""},
	} {
		code, out, errOut := e.hook(c.d, c.payload)
		if code != 0 || !strings.Contains(out, c.d.deny) {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		id := approvalID.FindString(out)
		if c.want == "" {
			if id == "" {
				t.Errorf("want a request for %s, got %s", c.payload, out)
			} else {
				e.run("", "approvals", "reject", id, "--reason", "test", "--key", e.defaultKey(), "--policy", e.policy)
			}
			continue
		}
		if id != "" || !strings.Contains(out, c.want) {
			t.Errorf("want a deny naming %q and no request, got %s", c.want, out)
		}
	}
}

// TestPrevalidateSymlinkToSecret: an edit through a symlink to a file the
// agent may not read is not checked (no oracle for the secret's content).
func TestPrevalidateSymlinkToSecret(t *testing.T) {
	for _, d := range approvalDialects[:2] {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			proj := filepath.Join(e.home, "proj")
			e.write(filepath.Join(proj, ".env"), "TOKEN=s3cret\n", 0o600)
			if err := os.Symlink(filepath.Join(proj, ".env"), filepath.Join(proj, "notes.txt")); err != nil {
				t.Fatal(err)
			}
			d := inProject(d, proj)
			code, out, _ := e.hook(d, d.edit(proj+"/notes.txt", "TOKEN=guess", "TOKEN=x"))
			if code != 0 || strings.Contains(out, "cannot apply") {
				t.Fatalf("the secret behind the link was checked: exit %d %s", code, out)
			}
		})
	}
}
