package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// keyVersion starts every key encoding; change it when the encoding changes.
const keyVersion = "toolguard-approval-key/2"

// Key returns the identity of c for approvals: the hex SHA-256 of a
// canonical encoding of the parts listed in the package documentation.
func Key(c call.Call) string {
	h := sha256.New()
	field(h, "v", keyVersion)
	field(h, "kind", c.Kind.String())
	field(h, "tool", c.Tool)
	switch c.Kind {
	case call.KindShell:
		field(h, "command", strings.TrimSpace(c.Command))
		field(h, "shell", c.Shell)
	case call.KindWrite, call.KindEdit, call.KindRead, call.KindSearch:
		paths := make([]string, 0, len(c.Paths))
		for _, p := range c.Paths {
			paths = append(paths, p.Op.String()+" "+p.Path)
		}
		list(h, "paths", paths)
		list(h, "patterns", slices.Clone(c.Patterns))
		if c.Kind == call.KindWrite || c.Kind == call.KindEdit {
			// What the call puts in the file is what the human approves:
			// Write's content, Edit's old and new strings and replace_all,
			// every edit of a MultiEdit, a notebook cell's new source, a
			// patch — whatever the agent's tool calls it, it is in Input.
			field(h, "input", canonicalJSON(c.Input))
		}
	case call.KindMCP:
		field(h, "server", c.MCPServer)
		field(h, "mcp_tool", c.MCPTool)
		field(h, "input", canonicalJSON(c.Input))
	case call.KindWeb:
		if c.URL != "" {
			field(h, "url", c.URL)
		} else {
			field(h, "input", canonicalJSON(c.Input))
		}
	default:
		field(h, "input", canonicalJSON(c.Input))
	}
	cwd := c.Cwd
	if cwd != "" {
		cwd = filepath.Clean(cwd)
	}
	field(h, "cwd", cwd)
	if c.SessionID != "" {
		field(h, "session", c.SessionID)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// field writes "name len:value\n": the length prefix makes the encoding
// unambiguous whatever value holds.
func field(h hash.Hash, name, value string) {
	h.Write([]byte(name + " " + strconv.Itoa(len(value)) + ":"))
	h.Write([]byte(value))
	h.Write([]byte{'\n'})
}

// list writes the sorted, deduplicated items of v as a count and fields.
func list(h hash.Hash, name string, v []string) {
	slices.Sort(v)
	v = slices.Compact(v)
	field(h, name, strconv.Itoa(len(v)))
	for _, s := range v {
		field(h, "-", s)
	}
}

// canonicalJSON re-encodes raw so that object key order and white space do
// not matter; numbers keep their literal text. Input that does not decode is
// used as is, trimmed.
func canonicalJSON(raw json.RawMessage) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.InputOffset() != int64(len(trimmed)) {
		return "raw:" + string(trimmed)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "raw:" + string(trimmed)
	}
	return "json:" + strings.TrimSuffix(buf.String(), "\n")
}
