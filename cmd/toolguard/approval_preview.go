package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/guard"
)

// ANSI styles of approvals show, on a terminal only (useColor).
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// useColor says whether approvals show colours its output: stdout is a
// terminal (a character device, as the stdin test of approve), NO_COLOR is
// unset or empty (no-color.org) and TERM is not "dumb".
func useColor(sys *system) bool {
	if sys.getenv("NO_COLOR") != "" || sys.getenv("TERM") == "dumb" {
		return false
	}
	f, ok := sys.stdout.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// statusStyle is the colour of a request status.
func statusStyle(s approval.Status) string {
	switch s {
	case approval.StatusPending:
		return ansiYellow + ansiBold
	case approval.StatusApproved:
		return ansiGreen + ansiBold
	case approval.StatusRejected, approval.StatusTampered:
		return ansiRed + ansiBold
	}
	return ansiDim
}

// renderRequest writes r for a human at a terminal, in colour if color.
// The text is the same either way, styles aside; every text of r passes
// through noEscapes first, so a request cannot paint the terminal itself.
func renderRequest(w io.Writer, r approval.Request, color bool) {
	paint := func(style, s string) string {
		if !color || style == "" || s == "" {
			return s
		}
		return style + s + ansiReset
	}
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%s %s\n", paint(ansiDim, fmt.Sprintf("%-11s", k+":")), noEscapes(v))
		}
	}
	styled := func(k, v, style string) {
		if v != "" {
			fmt.Fprintf(w, "%s %s\n", paint(ansiDim, fmt.Sprintf("%-11s", k+":")), paint(style, noEscapes(v)))
		}
	}
	styled("request", r.ID, ansiBold)
	status := string(r.Status)
	if r.Problem != "" {
		status += " (" + r.Problem + ")"
	}
	styled("status", status, statusStyle(r.Status))
	line("created", r.Created.UTC().Format(time.RFC3339))
	line("provider", r.Provider)
	line("session", r.Session)
	line("tool", r.Tool+" ("+r.Kind+")")
	line("cwd", r.Cwd)
	p := r.Preview
	if p == nil {
		p = &approval.Preview{}
	}
	line("workspace", p.Workspace)
	line("mode", p.PermissionMode)
	line("reason", r.Reason)
	for _, rule := range p.Rules {
		where := strings.TrimSpace(rule.Layer + " " + rule.Source)
		dec := rule.Decision
		switch dec {
		case "deny":
			dec = paint(ansiRed, dec)
		case "ask":
			dec = paint(ansiYellow, dec)
		}
		fmt.Fprintf(w, "%s %s (%s, %s) %s\n", paint(ansiDim, fmt.Sprintf("%-11s", "rule:")), paint(ansiBold, noEscapes(rule.ID)),
			dec, noEscapes(where), noEscapes(rule.Justification))
	}
	// block writes a text indented under its title; lineStyle picks each
	// line's colour (nil: none)
	blockStyled := func(title, text string, lineStyle func(string) string) {
		fmt.Fprintf(w, "%s\n", paint(ansiDim, title+":"))
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			l = noEscapes(l)
			style := ""
			if lineStyle != nil {
				style = lineStyle(l)
			}
			fmt.Fprintf(w, "    %s\n", paint(style, l))
		}
	}
	block := func(title, text string) { blockStyled(title, text, nil) }
	diffStyle := func(l string) string {
		switch {
		case strings.HasPrefix(l, "@@"):
			return ansiCyan
		case strings.HasPrefix(l, "+"):
			return ansiGreen
		case strings.HasPrefix(l, "-"):
			return ansiRed
		case strings.HasPrefix(l, "…(diff cut"):
			return ansiDim
		}
		return ""
	}
	whole := func(style string) func(string) string { return func(string) string { return style } }
	switch {
	case p.Command != "":
		block("command", p.Command)
		line("description", p.Description)
	case p.Content != "" || p.Size > 0:
		line("path", p.Path)
		line("size", fmt.Sprintf("%d bytes", p.Size))
		block("content", p.Content)
	case p.Diff != "":
		line("path", p.Path)
		blockStyled("diff", p.Diff, diffStyle)
	case len(p.Edits) > 0:
		line("path", p.Path)
		for i, e := range p.Edits {
			title := fmt.Sprintf("edit %d", i+1)
			if e.ReplaceAll {
				title += " (every occurrence)"
			}
			blockStyled(title+" old", e.Old, whole(ansiRed))
			blockStyled(title+" new", e.New, whole(ansiGreen))
		}
	case p.Patch != "":
		blockStyled("patch", p.Patch, diffStyle)
	case p.MCPServer != "" || p.Input != "":
		line("mcp", strings.Trim(p.MCPServer+"/"+p.MCPTool, "/"))
		block("input", p.Input)
	default:
		line("summary", r.Summary)
	}
	if r.Grant != nil {
		g := r.Grant
		uses := fmt.Sprintf("%d of %d use(s) left", g.UsesLeft, g.Uses)
		if g.Uses == approval.SessionUses {
			uses = fmt.Sprintf("every identical call of session %s (%d used)", r.Session, g.Uses-g.UsesLeft)
		}
		line("grant", fmt.Sprintf("%s, until %s, signed by %s (%s)", uses,
			g.Expires.UTC().Format(time.RFC3339), g.Approver.User, g.Approver.Fingerprint))
		if e := g.Edit; e != nil {
			text := e.Input
			if _, t, err := guard.EditField(r.Kind, []byte(e.Input)); err == nil {
				text = t
			}
			blockStyled("edited "+e.Field, guard.CutMiddle(audit.Redact(text), guard.PreviewPatch), whole(ansiGreen))
		}
	}
	styled("rejected", r.RejectReason, ansiRed)
	if r.Stop {
		stop := "the session's next call ends the turn"
		if !r.StopDelivered.IsZero() {
			stop = "the turn was ended at " + r.StopDelivered.UTC().Format(time.RFC3339)
		}
		line("stop", stop)
	}
	for _, res := range r.Results {
		v := res.Outcome
		if res.ExitCode != nil {
			v += fmt.Sprintf(", exit code %d", *res.ExitCode)
		}
		line("ran", res.Time.UTC().Format(time.RFC3339)+" "+v)
	}
	if !r.Told.IsZero() {
		line("told", "the model was told at "+r.Told.UTC().Format(time.RFC3339))
	}
	if r.Status == approval.StatusPending {
		styled("approve", r.Approve, ansiBold)
	}
}

// noEscapes replaces the control characters of s that a terminal acts on
// (ESC, CSI, BEL, backspace, carriage return, …) with "\u…" text, tabs
// and newlines aside: a request's texts come from the agent, and must not
// move the cursor, rewrite a line or change colours when shown.
func noEscapes(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0)
}
