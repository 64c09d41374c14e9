package shellparse

import (
	"strings"
)

// Programs that print or pack the files they are given, which the path
// attribution does not know by name: their file operands are read as cat
// reads them, so path rules (secrets) see them. The files come back as a
// nested cat -- FILE… command labelled "NAME reads".

// readerTable holds the value-taking options of each reader, and how many
// leading operands are not files (jq's filter, zip's archive); sorted by
// name (TestTablesSorted), static data.
type readerSpec struct {
	opts optSpec
	skip int
}

var readerTable = []named[readerSpec]{
	{"7z", readerSpec{skip: 2}}, // 7z a ARCHIVE FILE…
	{"ack", readerSpec{opts: optSpec{short: "ABm", optional: "C", long: []string{"--after-context", "--before-context", "--max-count", "--type", "--ignore-dir", "--ignore-file", "--output"}}, skip: 1}}, // -C[NUM]: an integer only
	{"ag", readerSpec{opts: optSpec{short: "ABCGgmp", long: []string{"--file-search-regex", "--max-count", "--path-to-ignore", "--ignore", "--ignore-dir", "--pager", "--depth"}}, skip: 1}},              // --after[=N], --before[=N], --context[=N]
	{"base32", readerSpec{opts: optSpec{short: "w", long: []string{"--wrap"}}}},
	{"basenc", readerSpec{opts: optSpec{short: "w", long: []string{"--wrap"}}}},
	{"bat", readerSpec{opts: optSpec{short: "lHrm", long: []string{"--language", "--highlight-line", "--line-range", "--map-syntax", "--style",
		"--theme", "--tabs", "--wrap", "--terminal-width", "--file-name", "--diff-context", "--pager", "--color", "--italic-text",
		"--decorations", "--paging", "--ignored-suffix", "--binary", "--squeeze-limit", "--strip-ansi", "--nonprintable-notation"}}}},
	{"cmp", readerSpec{opts: optSpec{short: "iIn", long: []string{"--ignore-initial", "--bytes"}}}},
	{"column", readerSpec{opts: optSpec{short: "cEHiloNOprRsTW", long: []string{"--separator", "--output-width", "--output-separator", "--table-columns", "--table-name", "--table-order",
		"--table-columns-limit", "--table-noextreme", "--table-hide", "--table-right", "--table-truncate", "--table-wrap", "--tree", "--tree-id", "--tree-parent"}}}}, // -t, -d, -e, -x, -J, -L are flags; -n is one in BSD column
	{"comm", readerSpec{opts: optSpec{long: []string{"--output-delimiter"}}}},
	{"csplit", readerSpec{opts: optSpec{short: "bfn", long: []string{"--suffix-format", "--prefix", "--digits"}}}},
	{"cut", readerSpec{opts: optSpec{short: "bcdf", long: []string{"--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"}}}},
	{"diff", readerSpec{opts: optSpec{short: "CUxXIFLSWD", long: []string{"--exclude", "--exclude-from", "--ignore-matching-lines", "--label", "--starting-file", "--width", "--ifdef", "--show-function-line", "--palette", "--tabsize", "--horizon-lines", "--line-format", "--old-line-format", "--new-line-format", "--unchanged-line-format", "--to-file", "--from-file"}}}},
	{"expand", readerSpec{opts: optSpec{short: "t", long: []string{"--tabs"}}}},
	{"fmt", readerSpec{opts: optSpec{short: "wpdg", long: []string{"--width", "--prefix", "--goal"}}}},
	{"fold", readerSpec{opts: optSpec{short: "w", long: []string{"--width"}}}},
	{"gpg", readerSpec{opts: optSpec{short: "ruo", long: []string{"--recipient", "--local-user", "--output", "--passphrase", "--homedir", "--cipher-algo", "--compress-algo", "--default-key", "--keyring"}}}},
	{"hd", readerSpec{opts: optSpec{short: "efns"}}},
	{"hexdump", readerSpec{opts: optSpec{short: "efns"}}},
	{"iconv", readerSpec{opts: optSpec{short: "fto", long: []string{"--from-code", "--to-code", "--output"}}}},
	{"join", readerSpec{opts: optSpec{short: "aejot12", long: []string{"--header"}}}},
	{"look", readerSpec{opts: optSpec{short: "t", long: []string{"--terminate"}}, skip: 1}}, // look PREFIX FILE
	{"paste", readerSpec{opts: optSpec{short: "d", long: []string{"--delimiters"}}}},
	{"pr", readerSpec{opts: optSpec{short: "DhlNowW", optional: "einsS", long: []string{"--header", "--length", "--width", "--indent", "--date-format", "--first-line-number", "--page-width", "--columns"}}}},
	{"ptx", readerSpec{opts: optSpec{short: "bgiSwWFM", long: []string{"--break-file", "--gap-size", "--ignore-file", "--only-file", "--sentence-regexp", "--word-regexp", "--width", "--flag-truncation", "--macro-name"}}}},
	{"pv", readerSpec{opts: optSpec{short: "ABDiLNsw", long: []string{"--buffer-size", "--delay-start", "--interval", "--rate-limit", "--name", "--size", "--width", "--height", "--format", "--watchfd", "--pidfile"}}}},
	{"rev", readerSpec{}},
	{"shuf", readerSpec{opts: optSpec{short: "ino", long: []string{"--input-range", "--head-count", "--output", "--random-source"}}}},
	{"split", readerSpec{opts: optSpec{short: "abClnt", long: []string{"--suffix-length", "--bytes", "--line-bytes", "--lines", "--number", "--separator", "--additional-suffix", "--filter"}}}}, // --numeric-suffixes[=FROM], --hex-suffixes[=FROM]
	{"tsort", readerSpec{}},
	{"unexpand", readerSpec{opts: optSpec{short: "t", long: []string{"--tabs"}}}},
	{"uniq", readerSpec{opts: optSpec{short: "fswn", long: []string{"--skip-fields", "--skip-chars", "--check-chars"}}}},
	{"uuencode", readerSpec{}},
	{"zip", readerSpec{opts: optSpec{short: "bntPZOsix", long: []string{"--temp-path", "--suffixes", "--password", "--compression-method", "--output-file", "--split-size", "--include", "--exclude", "--unzip-command"}}, skip: 1}},
}

// readerInners returns the files a reader program reads, as cat of them.
func readerInners(name string, args []field) []inner {
	var files []field
	if name == "batcat" {
		name = "bat" // Debian's name
	}
	switch name {
	case "jq", "gojq", "jaq", "yq":
		files = jqFiles(name, args)
	case "sqlite3", "sqlite", "duckdb":
		files = sqlFileReads(args) // sqlread.go
	default:
		spec, ok := lookup(readerTable, name)
		if !ok {
			return nil
		}
		if name == "zip" {
			args = dropValueOpt(args, "-TT")
		}
		opts, operands := spec.opts.parse(args)
		if name == "gpg" && !has(opts, "-c", "-e", "-s", "--symmetric", "--encrypt", "--sign", "--clearsign", "--clear-sign", "--armor", "-a", "--export-secret-keys") {
			return nil // decrypting, verifying, listing: the file is gpg's own input
		}
		if name == "7z" && (len(operands) == 0 || !operands[0].lit || (operands[0].s != "a" && operands[0].s != "u")) {
			return nil
		}
		if len(operands) <= spec.skip {
			return nil
		}
		files = operands[spec.skip:]
		if name == "split" || name == "csplit" || (name == "uuencode" && len(operands) > 1) {
			files = operands[:1] // split FILE PREFIX, csplit FILE PATTERN…, uuencode FILE NAME
		}
		if name == "uuencode" && len(operands) == 1 {
			return nil // uuencode NAME: standard input, named NAME
		}
		if name == "shuf" && has(opts, "-e", "--echo", "-i", "--input-range") {
			return nil // the operands are the lines themselves
		}
		if name == "diff" || name == "cmp" {
			// diff -r DIR… and plain file pairs alike: each operand is read.
			files = operands
		}
	}
	var keep []field
	for _, f := range files {
		if f.lit && (f.s == "-" || f.s == "") {
			continue
		}
		keep = append(keep, f)
	}
	if len(keep) == 0 {
		return nil
	}
	pos := fieldPos(args)
	argv := append([]field{litField("cat", pos), litField("--", pos)}, keep...)
	return []inner{{label: name + " reads", argv: argv}}
}

// jqFiles returns the files jq (and yq) read: the operands after the
// filter, --slurpfile/--rawfile files and -f/--from-file programs.
func jqFiles(name string, args []field) []field {
	var files, operands []field
	fromFile := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		if !f.lit || !strings.HasPrefix(s, "-") || s == "-" {
			operands = append(operands, f)
			continue
		}
		if s == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		switch s {
		case "--args", "--jsonargs":
			// What follows the filter are arguments, not files.
			if len(operands) > 0 {
				return files
			}
			for i++; i < len(args) && !(args[i].lit && strings.HasPrefix(args[i].s, "-")); i++ {
				if len(operands) == 0 {
					operands = append(operands, args[i])
				}
			}
			return files
		case "--arg", "--argjson":
			i += 2
		case "--slurpfile", "--rawfile":
			if i+2 < len(args) {
				files = append(files, args[i+2])
			}
			i += 2
		case "-f", "--from-file":
			fromFile = true
			if name == "jq" || name == "gojq" || name == "jaq" {
				if i+1 < len(args) {
					files = append(files, args[i+1])
				}
				i++
			}
		case "--indent", "-L", "--tab-width", "-o", "--output-format", "-p", "--input-format", "-I", "--expression", "--front-matter", "--split-exp", "-s", "--xml-attribute-prefix":
			if name == "yq" || s == "--indent" || s == "-L" {
				i++
			}
		}
	}
	if name == "yq" && len(operands) > 0 && operands[0].lit {
		switch operands[0].s {
		case "e", "eval", "ea", "eval-all":
			operands = operands[1:]
		}
	}
	if !fromFile && len(operands) > 0 {
		operands = operands[1:] // the filter
	}
	return append(files, operands...)
}

// dropValueOpt removes the option name (a word of its own, as zip's -TT)
// and its value from args.
func dropValueOpt(args []field, name string) []field {
	for i, f := range args {
		if f.lit && f.s == name {
			out := append([]field(nil), args[:i]...)
			if i+2 <= len(args) {
				return append(out, args[i+2:]...)
			}
			return out
		}
	}
	return args
}
