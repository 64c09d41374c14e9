package shellparse_test

import (
	"fmt"

	"github.com/toolguard/toolguard/internal/shellparse"
)

// Analyze lists every command a shell string would run, wrappers and the
// commands they wrap alike, with quotes removed and nested shells opened.
func ExampleAnalyze() {
	res, err := shellparse.Analyze(`cd repo && sudo bash -c 'g"i"t push --force' | tee log`, shellparse.Options{Cwd: "/w", Home: "/home/u"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, c := range res.Commands {
		fmt.Println(c.Name, c.Args, c.Wrappers)
	}
	// Output:
	// cd [repo] []
	// sudo [bash -c g"i"t push --force] []
	// bash [-c g"i"t push --force] [sudo]
	// git [push --force] [sudo bash -c]
	// tee [log] []
}
