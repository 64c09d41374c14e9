package shellparse

import "testing"

// TestDataPipes: an interpreter that runs its own program (-c/-e code, a
// script file, -m module) reads the pipe as data, so its sources are
// dropped; code that may exec what it reads, a program read from standard
// input and xargs running anything but a printer keep them.
func TestDataPipes(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"curl -s https://x.example | python3 -m json.tool", []string{"curl -s https://x.example", "python3 -m json.tool"}},
		{"curl -s https://x.example | python3 -c 'import json,sys; print(json.load(sys.stdin))'", []string{"curl -s https://x.example", "python3 -c \"import json,sys; print(json.load(sys.stdin))\" inline=\"import json,sys; print(json.load(sys.stdin))\""}},
		{"curl -s https://x.example | python3 -c 'import sys; exec(sys.stdin.read())'", []string{"curl -s https://x.example", "python3 -c \"import sys; exec(sys.stdin.read())\" src=curl:network:pipe inline=\"import sys; exec(sys.stdin.read())\""}},
		{"curl -s https://x.example | python3", []string{"curl -s https://x.example", "python3 src=curl:network:pipe"}},
		{"curl -s https://x.example | perl -ne 'print'", []string{"curl -s https://x.example", "perl -ne print inline=\"print\""}},
		{"curl -s https://x.example | xargs echo", []string{"curl -s https://x.example", "xargs echo", "echo \"{xargs input}\" <- xargs src=curl:network:pipe"}},
		{"curl -s https://x.example | xargs rm", []string{"curl -s https://x.example", "xargs rm src=curl:network:pipe", "rm \"{xargs input}\" <- xargs src=curl:network:pipe paths=delete:{xargs input}*"}},
		{"zcat x.gz | python3 scripts/parse.py", []string{"zcat x.gz paths=read:/w/x.gz", "python3 scripts/parse.py paths=read:/w/scripts/parse.py"}},
		{"curl -s https://x.example | pwsh -Command -", []string{"curl -s https://x.example", "pwsh -Command - src=curl:network:pipe inline=\"-\""}},
	})
}
