package policy

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// fill sets every field of v (a pointer) from rng: strings from a set
// with quotes, HTML and control characters and bad UTF-8, pointers,
// slices and maps nil, empty or full, so that a field the encoder leaves
// out, or writes in another form, differs from json.Marshal.
func fill(rng *rand.Rand, v reflect.Value) {
	strs := []string{"", "x", `q"uo\te`, "<a&b>", "nl\n\x01", "bad \xff", "\u2028", "ünï ✓", "git push --force"}
	switch v.Kind() {
	case reflect.String:
		v.SetString(strs[rng.IntN(len(strs))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int:
		v.SetInt(int64(rng.IntN(3) - 1))
	case reflect.Pointer:
		if rng.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(rng, v.Elem())
		} else {
			v.SetZero()
		}
	case reflect.Slice:
		switch rng.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := 1 + rng.IntN(3)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fill(rng, v.Index(i))
			}
		}
	case reflect.Map:
		switch rng.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			v.Set(reflect.MakeMap(v.Type()))
			for range 1 + rng.IntN(4) {
				k := reflect.New(v.Type().Key()).Elem()
				fill(rng, k)
				e := reflect.New(v.Type().Elem()).Elem()
				fill(rng, e)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(rng, v.Field(i))
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// TestRuleJSONAsMarshal: appendRule and appendSettings write the bytes
// json.Marshal writes, on values that fill every field, and on every
// default rule.
func TestRuleJSONAsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(what string, v any, got []byte) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
		}
	}
	for i := range 3000 {
		var r fileRule
		fill(rng, reflect.ValueOf(&r).Elem())
		check("rule", r, appendRule(nil, &r))
		var s fileSettings
		fill(rng, reflect.ValueOf(&s).Elem())
		check("settings", s, appendSettings(nil, &s))
		if i == 0 {
			check("zero rule", fileRule{}, appendRule(nil, &fileRule{}))
			check("zero settings", fileSettings{}, appendSettings(nil, &fileSettings{}))
		}
	}
	for i := range builtinGen.Rules {
		check(builtinGen.Rules[i].ID, builtinGen.Rules[i], appendRule(nil, &builtinGen.Rules[i]))
	}
}

func FuzzRuleJSON(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		rng := rand.New(rand.NewPCG(a, b))
		var r fileRule
		fill(rng, reflect.ValueOf(&r).Elem())
		var s fileSettings
		fill(rng, reflect.ValueOf(&s).Elem())
		wr, _ := json.Marshal(r)
		ws, _ := json.Marshal(s)
		if gr := appendRule(nil, &r); !bytes.Equal(gr, wr) {
			t.Fatalf("rule:\n got %s\nwant %s", gr, wr)
		}
		if gs := appendSettings(nil, &s); !bytes.Equal(gs, ws) {
			t.Fatalf("settings:\n got %s\nwant %s", gs, ws)
		}
	})
}
