package shellparse

import (
	"regexp"
	"strings"
	"sync"
)

// sqlReadCall matches SQL functions that return a local file's content:
// sqlite3's readfile (the CLI's extension, on by default), DuckDB's
// read_text, read_blob and read_csv/read_json. Its first group is the
// quoted path.
var sqlReadCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:readfile|read_text|read_blob|read_csv(?:_auto)?|read_json(?:_auto)?|read_parquet)\s*\(\s*'([^']+)'`)
})

// sqlFileReads returns the files a sqlite3 or duckdb command line's SQL
// reads with a file function (sqlite3 :memory: "select
// readfile('~/.ssh/id_ed25519')"): they are read as cat reads them, so
// the secret rules see them (issue 33). Only literal arguments are read;
// ~ is expanded by the reader path like any operand.
func sqlFileReads(args []field) []field {
	var out []field
	// The database file itself is read (a browser's Cookies or Login
	// Data database is a secret): the first operand, options skipped.
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			break
		}
		if len(a.s) > 1 && a.s[0] == '-' {
			if sqlValueOpts[a.s] {
				i++
			}
			continue
		}
		// A database below the working directory is the project's own
		// (sqlite3 app.db): only one reached by an absolute path, ~ or ..
		// is reported, where a credential store can be.
		if strings.HasPrefix(a.s, "/") || strings.HasPrefix(a.s, "~") || strings.Contains(a.s, "..") {
			out = append(out, a)
		}
		break
	}
	for _, a := range args {
		if !a.lit {
			continue
		}
		for _, m := range sqlReadCall().FindAllStringSubmatch(a.s, 16) {
			out = append(out, litField(m[1], a.pos))
		}
	}
	return out
}

// sqlValueOpts are sqlite3's and duckdb's options that take a value.
var sqlValueOpts = map[string]bool{
	"-cmd": true, "--cmd": true, "-init": true, "--init": true, "-separator": true, "--separator": true,
	"-nullvalue": true, "--nullvalue": true, "-newline": true, "--newline": true, "-mmap": true, "--mmap": true,
	"-maxsize": true, "--maxsize": true, "-vfs": true, "--vfs": true, "-lookaside": true, "-pagecache": true,
	"-heap": true, "-c": true, "-s": true,
}
