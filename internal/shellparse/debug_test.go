package shellparse

import (
	"fmt"
	"os"
	"testing"
)

func TestDebugDump(t *testing.T) {
	src := os.Getenv("SP")
	if src == "" {
		t.Skip()
	}
	r, err := Analyze(src, Options{Cwd: "/w", Home: "/home/u"})
	if err != nil {
		fmt.Printf("ERR %T %v\n", err, err)
		return
	}
	for _, c := range r.Commands {
		fmt.Printf("%q %q dyn=%v %q wr=%q src=%v inl=%q paths=%v pos=%v\n", c.Name, c.Args, c.Dynamic, c.DynamicText, c.Wrappers, c.Sources, c.Inline, c.Paths, c.Pos)
	}
}
