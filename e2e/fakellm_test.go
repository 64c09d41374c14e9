package e2e

// A fake model server (a Go port of the reference fake_llm.py) speaking just enough of
//   - the Anthropic Messages API          POST /v1/messages          (Claude Code)
//   - the OpenAI Responses API            POST /v1/responses         (Codex CLI)
//   - the OpenAI Chat Completions API     POST /chat/completions     (CodeBuddy Code)
//   - the Gemini API                      POST /v1beta/models/M:(stream)GenerateContent (Gemini CLI)
//
// Behaviour: an agentic request (one that offers tools) whose conversation ends with the
// user's prompt is answered with ONE tool call from the script; a request whose conversation
// ends with a tool result is answered with a final text "DONE: <tool result>". Requests
// without tools (titles, routing probes, ...) get a short text, or for Gemini's JSON probes
// an object that satisfies the requested schema.
//
// Every request is appended to <logdir>/requests.jsonl; every tool result the CLI sent back
// is appended to <logdir>/toolresults.jsonl, so the test can assert what reached the model.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakeScript says which tool call the fake model makes.
type fakeScript struct {
	Shell     string `json:"shell,omitempty"`      // a shell command to run
	WriteFile string `json:"write_file,omitempty"` // a workspace-relative file to create
	WriteBody string `json:"write_body,omitempty"`
	// Next, when set, is a second shell command: the answer to the turn's FIRST tool result
	// is this call instead of the final text (pending-hold: the call after a held one).
	Next string `json:"next,omitempty"`
	// Seq, when set, is the whole turn's list of shell commands: the first call is Seq[0]
	// (Shell is ignored), the answer to the turn's n-th tool result is Seq[n], and after the
	// last one the final text (system_test.go batches tamper attempts this way).
	Seq []string `json:"seq,omitempty"`
	Cwd string   `json:"cwd"` // the project directory (absolute file paths are built from it)
}

// followUp is the call that answers the n-th tool result of a turn: the Next command after
// the first one, else nothing (the final text).
func (s fakeScript) followUp(n int) (fakeScript, bool) {
	if len(s.Seq) > 0 {
		if n < 1 || n >= len(s.Seq) {
			return fakeScript{}, false
		}
		return fakeScript{Shell: s.Seq[n], Cwd: s.Cwd}, true
	}
	if n != 1 || s.Next == "" {
		return fakeScript{}, false
	}
	return fakeScript{Shell: s.Next, Cwd: s.Cwd}, true
}

func (s fakeScript) isWrite() bool { return s.WriteFile != "" }

func (s fakeScript) absTarget() string { return filepath.Join(s.Cwd, s.WriteFile) }

// toolResult is one tool result as the CLI sent it back to the model.
type toolResult struct {
	Seq     int    `json:"seq"`
	Flavour string `json:"flavour"` // anthropic | responses | chat | gemini
	Text    string `json:"text"`
}

type fakeLLM struct {
	script fakeScript
	logDir string
	// run makes tool-call ids unique across runs: a resumed session already holds the ids of
	// the earlier run, and a repeated id confuses the CLI ("[Tool use interrupted]").
	run string

	// onResult, when set, runs after each tool result is recorded and before the answer
	// (system_test.go: the surfaces' hashes and the audit chain between two calls).
	onResult func(n int, text string)

	mu      sync.Mutex
	seq     int
	results int
}

func newFakeLLM(script fakeScript, logDir string) *fakeLLM {
	if len(script.Seq) > 0 {
		script.Shell = script.Seq[0]
	}
	return &fakeLLM{script: script, logDir: logDir, run: strconv.FormatInt(time.Now().UnixNano()%1e9, 36)}
}

func (f *fakeLLM) appendJSONL(name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	fh, err := os.OpenFile(filepath.Join(f.logDir, name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer fh.Close()
	fh.Write(append(b, '\n'))
}

// record logs one request and returns its sequence number.
func (f *fakeLLM) record(r *http.Request, body []byte) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	e := map[string]any{"seq": f.seq, "t": float64(time.Now().UnixMilli()) / 1000, "method": r.Method,
		"path": r.URL.RequestURI(), "headers": flatHeaders(r.Header)}
	if json.Valid(body) {
		e["body"] = json.RawMessage(body)
	} else if len(body) > 0 {
		e["body"] = truncate(string(body), 2000)
	}
	f.appendJSONL("requests.jsonl", e)
	return f.seq
}

func (f *fakeLLM) saveToolResult(seq int, flavour, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appendJSONL("toolresults.jsonl", toolResult{Seq: seq, Flavour: flavour, Text: text})
	f.results++
	if f.onResult != nil {
		f.onResult(f.results, text)
	}
}

// nestedPrefix marks the prompt of an agent the model itself started from a tool call
// (system_test.go's environment rows: `claude -p "RUN: <cmd>"`): that conversation's one
// call is <cmd>, and its tool results are logged apart (nested.jsonl), not counted as the
// outer turn's.
const nestedPrefix = "RUN: "

// nestedCommand returns <cmd> when a user message's text (not a tool result) in msgs (the
// Anthropic messages or the Responses input) is a nested prompt.
func nestedCommand(msgs []any) string {
	for _, m := range msgs {
		mm := asMap(m)
		if mm["role"] != "user" {
			continue
		}
		blocks := asList(mm["content"])
		if s, ok := mm["content"].(string); ok {
			blocks = []any{map[string]any{"type": "text", "text": s}}
		}
		for _, b := range blocks {
			bm := asMap(b)
			if t := asString(bm["type"]); t != "text" && t != "input_text" {
				continue
			}
			if cmd, ok := strings.CutPrefix(strings.TrimSpace(asString(bm["text"])), nestedPrefix); ok {
				return cmd
			}
		}
	}
	return ""
}

func (f *fakeLLM) saveNestedResult(seq int, flavour, cmd, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appendJSONL("nested.jsonl", map[string]any{"seq": seq, "flavour": flavour, "cmd": cmd, "text": text})
}

func flatHeaders(h http.Header) map[string]string {
	m := map[string]string{}
	for k, v := range h {
		if strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "X-Api-Key") || strings.EqualFold(k, "X-Goog-Api-Key") {
			v = []string{"(redacted)"}
		}
		m[k] = strings.Join(v, ", ")
	}
	return m
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		if zr, err := gzip.NewReader(bytes.NewReader(body)); err == nil {
			if dec, err := io.ReadAll(zr); err == nil {
				body = dec
			}
		}
	}
	seq := f.record(r, body)
	p := r.URL.Path
	switch r.Method {
	case http.MethodHead:
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(200)
		return
	case http.MethodGet:
		if strings.HasSuffix(p, "/models") {
			writeJSON(w, 200, map[string]any{"object": "list", "models": []any{},
				"data": []any{map[string]any{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}}})
			return
		}
		writeJSON(w, 404, map[string]any{"error": map[string]any{"type": "not_found_error", "message": "fake: no " + p}})
		return
	}
	var b map[string]any
	_ = json.Unmarshal(body, &b)
	if b == nil {
		b = map[string]any{}
	}
	switch {
	case strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, 200, map[string]any{"input_tokens": 100})
	case strings.HasSuffix(p, "/v1/messages") || p == "/messages":
		f.anthropic(w, seq, b)
	case strings.HasSuffix(p, "/responses"):
		f.responses(w, seq, b)
	case strings.HasSuffix(p, "/chat/completions"):
		f.chat(w, seq, b)
	case strings.Contains(p, ":streamGenerateContent") || strings.Contains(p, ":generateContent"):
		f.gemini(w, seq, b, strings.Contains(p, ":streamGenerateContent"))
	case strings.Contains(p, ":countTokens"):
		writeJSON(w, 200, map[string]any{"totalTokens": 100})
	case strings.Contains(p, ":embedContent") || strings.Contains(p, ":batchEmbedContents"):
		writeJSON(w, 200, map[string]any{"embeddings": []any{map[string]any{"values": make([]float64, 8)}}})
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"type": "not_found_error", "message": "fake: no " + p}})
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	w.WriteHeader(code)
	w.Write(data)
}

// sse writes server-sent events (chunked, flushed after each event).
type sse struct {
	w  http.ResponseWriter
	fl http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	return &sse{w: w, fl: fl}
}

// event writes one event; data is JSON-encoded unless it is a string.
func (s *sse) event(name string, data any) {
	var d string
	if str, ok := data.(string); ok {
		d = str
	} else {
		b, _ := json.Marshal(data)
		d = string(b)
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, d)
	} else {
		fmt.Fprintf(s.w, "data: %s\n\n", d)
	}
	if s.fl != nil {
		s.fl.Flush()
	}
}

// ---------------------------------------------------------------- helpers on decoded JSON

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// textOf renders a tool result's content: strings as they are, text blocks joined, else JSON.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		allText := true
		for _, e := range x {
			m := asMap(e)
			if t, ok := m["text"].(string); ok {
				parts = append(parts, t)
			} else {
				allText = false
			}
		}
		if allText {
			return strings.Join(parts, "\n")
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ---------------------------------------------------------------- Anthropic Messages

func (f *fakeLLM) anthropic(w http.ResponseWriter, seq int, b map[string]any) {
	msgs := asList(b["messages"])
	var tools []string
	for _, t := range asList(b["tools"]) {
		tools = append(tools, asString(asMap(t)["name"]))
	}
	// Does the conversation end with a tool result? (and how many since the user's prompt)
	// Claude Code 2.1.332 appends "system" messages mid-turn ("The user hasn't heard from
	// you in a while…"); they are not the user's prompt.
	for len(msgs) > 0 && asMap(msgs[len(msgs)-1])["role"] == "system" {
		msgs = msgs[:len(msgs)-1]
	}
	if n := len(msgs); n > 0 {
		last := asMap(msgs[n-1])
		if last["role"] == "user" {
			var results []string
			for _, c := range asList(last["content"]) {
				cm := asMap(c)
				if cm["type"] == "tool_result" {
					results = append(results, textOf(cm["content"]))
				}
			}
			if len(results) > 0 {
				text := strings.Join(results, "\n")
				if nested := nestedCommand(msgs); nested != "" {
					f.saveNestedResult(seq, "anthropic", nested, text)
					f.anthropicReply(w, seq, b, "DONE: "+truncate(text, 300), "", nil)
					return
				}
				f.saveToolResult(seq, "anthropic", text)
				if sc, ok := f.script.followUp(anthropicResultTurns(msgs)); ok && contains(tools, "Bash") {
					tool, input := anthropicCall(sc)
					f.anthropicReply(w, seq, b, "", tool, input)
					return
				}
				f.anthropicReply(w, seq, b, "DONE: "+truncate(text, 300), "", nil)
				return
			}
		}
	}
	script := f.script
	if nested := nestedCommand(msgs); nested != "" {
		script = fakeScript{Shell: nested, Cwd: f.script.Cwd}
	}
	if tool, input := anthropicCall(script); contains(tools, tool) {
		f.anthropicReply(w, seq, b, "", tool, input)
		return
	}
	f.anthropicReply(w, seq, b, "ok", "", nil)
}

// anthropicCall is the script's call as Claude's Bash or Write tool.
func anthropicCall(sc fakeScript) (string, map[string]any) {
	if sc.isWrite() {
		return "Write", map[string]any{"file_path": sc.absTarget(), "content": sc.WriteBody}
	}
	return "Bash", map[string]any{"command": sc.Shell, "description": "Run " + sc.Shell}
}

// anthropicResultTurns counts the user messages carrying tool results since the last user
// message without one (the prompt).
func anthropicResultTurns(msgs []any) int {
	n := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := asMap(msgs[i])
		if m["role"] != "user" {
			continue
		}
		has := false
		for _, c := range asList(m["content"]) {
			if asMap(c)["type"] == "tool_result" {
				has = true
			}
		}
		if !has {
			break
		}
		n++
	}
	return n
}

func (f *fakeLLM) anthropicReply(w http.ResponseWriter, seq int, b map[string]any, text, tool string, input map[string]any) {
	model := asString(b["model"])
	if model == "" {
		model = "claude-fake"
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	var block map[string]any
	stop := "end_turn"
	toolID := fmt.Sprintf("toolu_fake_%s_%d", f.run, seq)
	if tool != "" {
		block = map[string]any{"type": "tool_use", "id": toolID, "name": tool, "input": input}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": text}
	}
	if stream, _ := b["stream"].(bool); !stream {
		writeJSON(w, 200, map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	s := startSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", seq), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if tool != "" {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": toolID, "name": tool, "input": map[string]any{}}})
		js, _ := json.Marshal(input)
		for i := 0; i < len(js); i += 20 {
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(js[i:min(i+20, len(js))])}})
		}
	} else {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text}})
	}
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// ---------------------------------------------------------------- OpenAI Responses

func (f *fakeLLM) responses(w http.ResponseWriter, seq int, b map[string]any) {
	items := asList(b["input"])
	tools := asList(b["tools"])
	var names []string
	for _, t := range tools {
		tm := asMap(t)
		n := asString(tm["name"])
		if n == "" {
			n = asString(asMap(tm["function"])["name"])
		}
		names = append(names, n)
	}
	rid := fmt.Sprintf("resp_fake_%d", seq)
	msg := func(text string) map[string]any {
		return map[string]any{"type": "message", "role": "assistant", "id": "msg_" + rid,
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	}
	// Tool results after the last user message?
	lastUser, lastResult := -1, -1
	for i, it := range items {
		im := asMap(it)
		switch asString(im["type"]) {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			lastResult = i
		case "message":
			if im["role"] == "user" {
				lastUser = i
			}
		case "":
			if im["role"] == "user" {
				lastUser = i
			}
		}
	}
	var item map[string]any
	switch {
	case lastResult > lastUser:
		var results []string
		turns := 0 // tool results since the prompt (one output per call here)
		for _, it := range items[lastUser+1:] {
			im := asMap(it)
			if strings.HasSuffix(asString(im["type"]), "call_output") {
				results = append(results, textOf(im["output"]))
				turns++
			}
		}
		text := strings.Join(results, "\n")
		if nested := nestedCommand(items); nested != "" {
			f.saveNestedResult(seq, "responses", nested, text)
			item = msg("DONE: " + truncate(text, 300))
			break
		}
		f.saveToolResult(seq, "responses", textOf(asMap(items[lastResult])["output"]))
		if sc, ok := f.script.followUp(turns); ok {
			item = f.responsesToolItem(seq, sc, tools, names, msg)
		} else {
			item = msg("DONE: " + truncate(text, 300))
		}
	case len(tools) > 0:
		script := f.script
		if nested := nestedCommand(items); nested != "" {
			script = fakeScript{Shell: nested, Cwd: f.script.Cwd}
		}
		item = f.responsesToolItem(seq, script, tools, names, msg)
	default:
		item = msg("ok")
	}
	s := startSSE(w)
	s.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": rid}})
	s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	s.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": rid, "object": "response", "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}})
}

func (f *fakeLLM) responsesToolItem(seq int, sc fakeScript, tools []any, names []string, msg func(string) map[string]any) map[string]any {
	cid := fmt.Sprintf("call_fake_%s_%d", f.run, seq)
	if sc.isWrite() {
		if i := index(names, "apply_patch"); i >= 0 {
			var sb strings.Builder
			sb.WriteString("*** Begin Patch\n*** Add File: " + sc.WriteFile + "\n")
			for _, l := range strings.Split(strings.TrimRight(sc.WriteBody, "\n"), "\n") {
				sb.WriteString("+" + l + "\n")
			}
			sb.WriteString("*** End Patch\n")
			patch := sb.String()
			if asMap(tools[i])["type"] == "custom" {
				return map[string]any{"type": "custom_tool_call", "id": "ctc_" + cid, "call_id": cid, "name": "apply_patch",
					"input": patch, "status": "completed"}
			}
			args, _ := json.Marshal(map[string]any{"input": patch})
			return map[string]any{"type": "function_call", "id": "fc_" + cid, "call_id": cid, "name": "apply_patch",
				"arguments": string(args), "status": "completed"}
		}
		return msg(fmt.Sprintf("no apply_patch tool offered: %v", names))
	}
	for _, n := range []string{"exec_command", "shell_command", "shell", "local_shell"} {
		if !contains(names, n) {
			continue
		}
		var args map[string]any
		switch n {
		case "exec_command":
			args = map[string]any{"cmd": sc.Shell}
		case "shell_command":
			args = map[string]any{"command": sc.Shell}
		default:
			args = map[string]any{"command": []string{"bash", "-lc", sc.Shell}}
		}
		a, _ := json.Marshal(args)
		return map[string]any{"type": "function_call", "id": "fc_" + cid, "call_id": cid, "name": n,
			"arguments": string(a), "status": "completed"}
	}
	return msg(fmt.Sprintf("no shell tool offered: %v", names))
}

// ---------------------------------------------------------------- OpenAI Chat Completions

func (f *fakeLLM) chat(w http.ResponseWriter, seq int, b map[string]any) {
	msgs := asList(b["messages"])
	tools := asList(b["tools"])
	var names []string
	for _, t := range tools {
		names = append(names, asString(asMap(asMap(t)["function"])["name"]))
	}
	lastUser, lastResult := -1, -1
	for i, m := range msgs {
		switch asMap(m)["role"] {
		case "tool":
			lastResult = i
		case "user":
			if !hookContextMessage(asMap(m)) { // fakellm_agents_test.go
				lastUser = i
			}
		}
	}
	var msg map[string]any
	finish := "stop"
	switch {
	case lastResult > lastUser:
		var results []string
		for _, m := range msgs[lastUser+1:] {
			if mm := asMap(m); mm["role"] == "tool" {
				results = append(results, textOf(mm["content"]))
			}
		}
		text := strings.Join(results, "\n")
		f.saveToolResult(seq, "chat", textOf(asMap(msgs[lastResult])["content"]))
		if sc, ok := f.script.followUp(len(results)); ok && len(tools) > 0 {
			msg, finish = f.chatCall(seq, sc, names), "tool_calls"
		} else {
			msg = map[string]any{"role": "assistant", "content": "DONE: " + truncate(text, 300)}
		}
	case len(tools) > 0:
		msg, finish = f.chatCall(seq, f.script, names), "tool_calls"
	default:
		msg = map[string]any{"role": "assistant", "content": "ok"}
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if stream, _ := b["stream"].(bool); !stream {
		writeJSON(w, 200, map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(),
			"model": b["model"], "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage": usage})
		return
	}
	base := func(extra map[string]any) map[string]any {
		m := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": b["model"]}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	delta := map[string]any{}
	for k, v := range msg {
		delta[k] = v
	}
	if tcs, ok := delta["tool_calls"].([]any); ok {
		var withIndex []any
		for i, tc := range tcs {
			m := map[string]any{"index": i}
			for k, v := range asMap(tc) {
				m[k] = v
			}
			withIndex = append(withIndex, m)
		}
		delta["tool_calls"] = withIndex
	}
	s := startSSE(w)
	s.event("", base(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}}))
	s.event("", base(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}},
		"usage": usage}))
	s.event("", "[DONE]")
}

// chatCall is the assistant message with the script's call as a chat-completions tool call.
func (f *fakeLLM) chatCall(seq int, sc fakeScript, names []string) map[string]any {
	name, args, ok := extraChatCall(sc, names) // fakellm_agents_test.go
	if ok {
		// the newer agents' tool shapes
	} else if wn := firstOf(names, "Write", "write_file", "write_to_file"); sc.isWrite() && wn != "" {
		name = wn
		args = map[string]any{"file_path": sc.absTarget(), "content": sc.WriteBody}
	} else {
		name = firstOf(names, "exec_command", "shell_command", "shell", "Bash", "execute_command", "run_shell_command")
		if name == "" {
			name = names[0]
		}
		switch name {
		case "exec_command":
			args = map[string]any{"cmd": sc.Shell}
		case "shell":
			args = map[string]any{"command": []string{"bash", "-lc", sc.Shell}}
		default:
			args = map[string]any{"command": sc.Shell}
		}
	}
	a, _ := json.Marshal(args)
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"id": fmt.Sprintf("call_fake_%s_%d", f.run, seq), "type": "function",
		"function": map[string]any{"name": name, "arguments": string(a)}}}}
}

// ---------------------------------------------------------------- Gemini

var geminiKnown = map[string]any{"next_speaker": "user", "is_loop": false, "model_choice": "flash", "complexity_score": 10}

// fillSchema produces a value satisfying a Gemini/OpenAPI-style JSON schema (for utility probes).
func fillSchema(sch map[string]any, key string) any {
	if v, ok := geminiKnown[key]; ok {
		return v
	}
	if e := asList(sch["enum"]); len(e) > 0 {
		return e[0]
	}
	t := strings.ToLower(asString(sch["type"]))
	if t == "" {
		t = "object"
	}
	switch t {
	case "object":
		out := map[string]any{}
		for k, v := range asMap(sch["properties"]) {
			out[k] = fillSchema(asMap(v), k)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 10
	case "boolean":
		return false
	}
	return "fake"
}

func (f *fakeLLM) gemini(w http.ResponseWriter, seq int, b map[string]any, stream bool) {
	contents := asList(b["contents"])
	var decls []string
	for _, t := range asList(b["tools"]) {
		for _, d := range asList(asMap(t)["functionDeclarations"]) {
			decls = append(decls, asString(asMap(d)["name"]))
		}
	}
	// Does the conversation end with function responses (after the last user text)?
	lastUser, lastResult := -1, -1
	for i, c := range contents {
		cm := asMap(c)
		hasResp, hasText := false, false
		for _, p := range asList(cm["parts"]) {
			pm := asMap(p)
			if _, ok := pm["functionResponse"]; ok {
				hasResp = true
			}
			if _, ok := pm["text"]; ok {
				hasText = true
			}
		}
		if hasResp {
			lastResult = i
		} else if hasText && asString(cm["role"]) != "model" {
			lastUser = i
		}
	}
	var parts []any
	gc := asMap(b["generationConfig"])
	switch {
	case gc["responseMimeType"] == "application/json" && len(decls) == 0:
		// routing / next-speaker / loop-detection probes want an object of a given schema
		sch := asMap(gc["responseJsonSchema"])
		if sch == nil {
			sch = asMap(gc["responseSchema"])
		}
		js, _ := json.Marshal(fillSchema(sch, ""))
		parts = []any{map[string]any{"text": string(js)}}
	case lastResult > lastUser:
		var results []string
		for _, c := range contents[lastUser+1:] {
			for _, p := range asList(asMap(c)["parts"]) {
				if fr, ok := asMap(p)["functionResponse"]; ok {
					rb, _ := json.Marshal(asMap(fr)["response"])
					results = append(results, string(rb))
				}
			}
		}
		text := strings.Join(results, "\n")
		f.saveToolResult(seq, "gemini", results[len(results)-1])
		if sc, ok := f.script.followUp(len(results)); ok && len(decls) > 0 {
			parts = []any{map[string]any{"functionCall": geminiCall(sc, decls)}}
		} else {
			parts = []any{map[string]any{"text": "DONE: " + truncate(text, 300)}}
		}
	case len(decls) > 0:
		parts = []any{map[string]any{"functionCall": geminiCall(f.script, decls)}}
	default:
		parts = []any{map[string]any{"text": "ok"}}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-fake",
	}
	if !stream {
		writeJSON(w, 200, resp)
		return
	}
	startSSE(w).event("", resp)
}

// geminiCall is the script's call as a Gemini functionCall.
func geminiCall(sc fakeScript, decls []string) map[string]any {
	if sc.isWrite() && contains(decls, "write_file") {
		return map[string]any{"name": "write_file", "args": map[string]any{"file_path": sc.absTarget(), "content": sc.WriteBody}}
	}
	return map[string]any{"name": "run_shell_command", "args": map[string]any{"command": sc.Shell, "description": "run " + sc.Shell}}
}

// ---------------------------------------------------------------- small slice helpers

func index(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}

func contains(l []string, s string) bool { return index(l, s) >= 0 }

func firstOf(l []string, cands ...string) string {
	for _, c := range cands {
		if contains(l, c) {
			return c
		}
	}
	return ""
}
