package policy

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite schema/*.schema.json")

var schemaFiles = map[string]string{FormTOML: "policy.schema.json", FormJSON: "policy-json.schema.json"}

// The checked-in schemas are what the generator writes today
// (go generate ./internal/policy, or -update-schema).
func TestSchemaFresh(t *testing.T) {
	for form, name := range schemaFiles {
		path := filepath.Join("..", "..", "schema", name)
		want := JSONSchema(form)
		if *updateSchema {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./internal/policy", path)
		}
	}
}

// The schema's keys are the loader's (locate.go's table): a key added to
// one and not the other fails here.
func TestSchemaKeysMatchLoader(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(JSONSchema(FormTOML), &s); err != nil {
		t.Fatal(err)
	}
	for table, keys := range schema() {
		if keys == nil {
			continue
		}
		node := s
		for _, seg := range strings.Split(table, ".") {
			if seg == "" {
				continue
			}
			node = node["properties"].(map[string]any)[seg].(map[string]any)
			if it, ok := node["items"]; ok {
				node = it.(map[string]any)
			}
		}
		var got, want []string
		for k := range node["properties"].(map[string]any) {
			got = append(got, k)
		}
		for k := range keys {
			want = append(want, k)
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("table %q: schema has %v, loader has %v", table, got, want)
		}
	}
}

// Every shipped policy (the defaults, the presets, docs/examples) is valid
// under the TOML form's schema, and its materialized JSON under the JSON
// form's; files with an unknown key, a bad decision or a wrong type are not.
func TestSchemaValidatesShipped(t *testing.T) {
	tomlSchema, jsonSchema := loadSchema(t, FormTOML), loadSchema(t, FormJSON)
	files := map[string][]byte{"defaults.toml": builtinTOML}
	for _, name := range PresetNames() {
		b, _ := Preset(name)
		files[name+".toml"] = b
	}
	docs, _ := filepath.Glob("../../docs/examples/*.toml")
	for _, f := range docs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	for name, b := range files {
		var doc map[string]any
		if _, err := toml.Decode(string(b), &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if errs := schemaCheck(tomlSchema, doc, ""); len(errs) > 0 {
			t.Errorf("%s: %s", name, strings.Join(errs, "; "))
		}
		if name == "defaults.toml" {
			continue
		}
		p, err := Load([]Source{{Path: name, Data: b}}, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		js, err := p.Materialize()
		if err != nil {
			t.Fatal(err)
		}
		var jdoc any
		if err := json.Unmarshal(js, &jdoc); err != nil {
			t.Fatal(err)
		}
		if errs := schemaCheck(jsonSchema, jdoc, ""); len(errs) > 0 {
			t.Errorf("%s materialized: %s", name, strings.Join(errs, "; "))
		}
	}
	for _, bad := range []string{
		"version = 1\n[[rule]]\nid = \"x\"\ndecision = \"deny\"\ncomand = \"ls\"\n",
		"[[rule]]\nid = \"x\"\ndecision = \"block\"\ncommand = \"ls\"\n",
		"[[rule]]\nid = \"x\"\ndecision = \"deny\"\ncommand = 3\n",
		"[[rule]]\nid = \"x\"\ncommand = \"ls\"\n",
		"[settings]\ndefault_for = {shel = \"deny\"}\n",
		"[[test]]\ncommand = \"ls\"\n",
		"rules = []\n",
	} {
		var doc map[string]any
		if _, err := toml.Decode(bad, &doc); err != nil {
			t.Fatal(err)
		}
		if errs := schemaCheck(tomlSchema, doc, ""); len(errs) == 0 {
			t.Errorf("schema accepts %q", bad)
		}
	}
}

func loadSchema(t *testing.T, form string) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(JSONSchema(form), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaCheck validates v against the subset of JSON Schema the generator
// writes: type, properties, additionalProperties: false, required, items,
// enum and anyOf.
func schemaCheck(s map[string]any, v any, at string) []string {
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if len(schemaCheck(a.(map[string]any), v, at)) == 0 {
				return nil
			}
		}
		return []string{at + ": matches no alternative"}
	}
	var errs []string
	switch s["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %T", at, v)}
		}
		props, _ := s["properties"].(map[string]any)
		for k, sub := range m {
			ps, ok := props[k]
			if !ok {
				if s["additionalProperties"] == false {
					errs = append(errs, fmt.Sprintf("%s: unknown key %q", at, k))
				}
				continue
			}
			errs = append(errs, schemaCheck(ps.(map[string]any), sub, at+"."+k)...)
		}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := m[r.(string)]; !ok {
					errs = append(errs, fmt.Sprintf("%s: missing %q", at, r))
				}
			}
		}
	case "array":
		rv := reflect.ValueOf(v)
		if v == nil || rv.Kind() != reflect.Slice {
			return []string{fmt.Sprintf("%s: want an array, got %T", at, v)}
		}
		for i := 0; i < rv.Len(); i++ {
			errs = append(errs, schemaCheck(s["items"].(map[string]any), rv.Index(i).Interface(), fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: want a string, got %T", at, v)}
		}
		if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, any(str)) {
			errs = append(errs, fmt.Sprintf("%s: %q not in %v", at, str, enum))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			errs = append(errs, fmt.Sprintf("%s: want a boolean, got %T", at, v))
		}
	case "integer":
		switch n := v.(type) {
		case int64:
		case float64:
			if n != float64(int64(n)) {
				errs = append(errs, at+": want an integer")
			}
		default:
			errs = append(errs, fmt.Sprintf("%s: want an integer, got %T", at, v))
		}
	}
	return errs
}
