package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Decoding a layer: TOML or materialized JSON into a layerDoc, named, with
// positioned problems.

func decode(s Source) (*layerDoc, []Problem) {
	if strings.EqualFold(filepath.Ext(s.Path), ".json") {
		return decodeJSON(s)
	}
	if s.Path == BuiltinFile {
		// The embedded defaults decoded at build time (builtin_gen.go), as
		// long as they were generated from exactly these bytes.
		if h := builtinHash(s.Data); h == builtinGenHash {
			return named(&layerDoc{src: s, doc: builtinGen, hash: h, trusted: true}), nil
		}
	}
	return decodeTOML(s)
}

// builtinHash is contentHash for the builtin source: the embedded bytes
// themselves (BuiltinSource) are the ones builtin_gen.go was generated
// from (TestBuiltinGenerated), so they are not hashed again at every hook
// start; any other bytes are.
func builtinHash(b []byte) string {
	if len(b) == len(builtinTOML) && len(b) > 0 && &b[0] == &builtinTOML[0] {
		return builtinGenHash
	}
	return contentHash(b)
}

func contentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func decodeJSON(s Source) (*layerDoc, []Problem) {
	ld := &layerDoc{src: s, hash: contentHash(s.Data)}
	dec := json.NewDecoder(bytes.NewReader(s.Data))
	dec.DisallowUnknownFields()
	// The index of the materialized layout (material.go) is for the lazy
	// loader; read in full, the rules themselves decide.
	var doc struct {
		fileDoc
		Index json.RawMessage `json:"index,omitempty"`
	}
	err := dec.Decode(&doc)
	ld.doc = doc.fileDoc
	if err != nil {
		line, col := jsonPos(s.Data, err)
		return nil, []Problem{{File: s.Path, Line: line, Col: col, Msg: jsonMsg(err)}}
	}
	if dec.More() {
		return nil, []Problem{{File: s.Path, Msg: "trailing data after the policy object"}}
	}
	return finishDecode(ld)
}

func decodeTOML(s Source) (*layerDoc, []Problem) {
	ld := &layerDoc{src: s, hash: contentHash(s.Data)}
	md, err := toml.NewDecoder(bytes.NewReader(s.Data)).Decode(&ld.doc)
	if err != nil {
		return nil, []Problem{tomlProblem(s.Path, err)}
	}
	ld.ix = indexKeys(string(s.Data))
	var probs []Problem
	for _, u := range ld.ix.unknown {
		probs = append(probs, Problem{File: s.Path, Line: u.Pos.Line, Col: u.Pos.Col,
			Msg: fmt.Sprintf("unknown key %q%s", u.Path, knownKeysHint(u.Path))})
	}
	if len(probs) == 0 {
		// Anything the scanner could not place (inline tables, odd
		// quoting) is still caught by the decoder's own bookkeeping.
		for _, k := range md.Undecoded() {
			if isFreeForm(k) {
				continue
			}
			probs = append(probs, Problem{File: s.Path, Line: 1, Col: 1,
				Msg: fmt.Sprintf("unknown key %q", k.String())})
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}

	return finishDecode(ld)
}

// finishDecode checks the version and names the layer.
func finishDecode(ld *layerDoc) (*layerDoc, []Problem) {
	if v := ld.doc.Version; v != 0 && v != 1 {
		return nil, []Problem{ld.problem("version", "", fmt.Sprintf("unsupported version %d (want 1)", v))}
	}
	return named(ld), nil
}

// named gives a layer its name: the Source's Layer, else [settings]
// layer (both explicit), else the Source's Name, else the file's base name.
func named(ld *layerDoc) *layerDoc {
	s := ld.src
	ld.name = s.Layer
	if ld.name == "" && ld.doc.Settings.Layer != nil {
		ld.name = *ld.doc.Settings.Layer
	}
	ld.explicit = ld.name != ""
	if ld.name == "" {
		ld.name = s.Name
	}
	if ld.name == "" {
		ld.name = strings.TrimSuffix(filepath.Base(s.Path), filepath.Ext(s.Path))
	}
	return ld
}

// uniqueNames checks that no layer takes an earlier layer's name: a lock
// binds by position, and a name is how check, rules and the audit log say
// which layer decided. An explicit name (Source.Layer, [settings] layer)
// that repeats an earlier one is an error; a derived name (a file's base
// name) that does gets a suffix ("policy-2").
func uniqueNames(layers []*layerDoc) []Problem {
	var probs []Problem
	taken := map[string]*layerDoc{}
	for _, ld := range layers {
		if first, ok := taken[ld.name]; ok {
			if ld.explicit {
				key := "settings.layer"
				if ld.src.Layer != "" {
					key = ""
				}
				probs = append(probs, ld.problem(key, "",
					fmt.Sprintf("layer name %q is taken by an earlier layer (%s); a layer cannot take an earlier layer's name", ld.name, first.src.Path)))
				continue
			}
			base := ld.name
			for n := 2; taken[ld.name] != nil; n++ {
				ld.name = fmt.Sprintf("%s-%d", base, n)
			}
		}
		taken[ld.name] = ld
	}
	return probs
}

func knownKeysHint(path string) string {
	parent, _ := splitLast(schemaPath(path))
	keys := schema()[parent]
	if len(keys) == 0 {
		return ""
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	where := parent
	if where == "" {
		where = "the top level"
	} else {
		where = "[" + where + "]"
	}
	return fmt.Sprintf(" (%s takes %s)", where, strings.Join(names, ", "))
}

// problem positions a message at a key of this layer's file.
func (ld *layerDoc) problem(key, rule, msg string) Problem {
	p := Problem{File: ld.src.Path, Rule: rule, Msg: msg}
	if ld.ix != nil {
		parent, _ := splitLast(key)
		pos := ld.ix.lookup(key, parent)
		p.Line, p.Col = pos.Line, pos.Col
	}
	return p
}

func tomlProblem(file string, err error) Problem {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" {
			msg = fmt.Sprintf("key %q: %s", pe.LastKey, msg)
		}
		return Problem{File: file, Line: pe.Position.Line, Col: max(pe.Position.Col, 1), Msg: lowerFirst(msg)}
	}
	// Type mismatches come as plain errors: "toml: line N (last key "k"): …".
	if m := tomlTypeErr().FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg := m[3]
		if t := tomlBadType().FindStringSubmatch(msg); t != nil {
			msg = fmt.Sprintf("got a %s, want %s", t[1], article(t[2]))
		}
		return Problem{File: file, Line: line, Col: 1, Msg: fmt.Sprintf("key %q: %s", m[2], msg)}
	}
	return Problem{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

// Regexes are compiled on first use: a hook process that loads no TOML
// with errors never needs them (package initialisation is paid by every
// hook run).
var (
	tomlTypeErr = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)
	})
	tomlBadType = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^incompatible types: TOML value has type (\S+); destination has type (\S+)$`)
	})
)

func article(t string) string {
	switch t {
	case "integer", "array":
		return "an " + t
	case "slice":
		return "an array"
	}
	return "a " + t
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || (len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func jsonPos(data []byte, err error) (int, int) {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return 0, 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func jsonMsg(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return msg
}
