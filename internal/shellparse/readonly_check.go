package shellparse

import (
	"strings"
)

// checkSpec judges one command against its table entry.
func (p *roProver) checkSpec(name string, spec *roSpec, args []string) {
	if spec.check != nil {
		if why := spec.check(p, name, args); why != "" {
			p.fail(why)
		}
		return
	}
	opts, ops, sub, why := p.parseOpts(name, spec, args)
	if why != "" {
		p.fail(why)
		return
	}
	if sub >= 0 {
		s, ok := spec.sub[args[sub]]
		if !ok {
			p.fail(name + " " + args[sub] + " is not in the read-only table")
			return
		}
		p.checkSpec(name+" "+args[sub], s, args[sub+1:])
		return
	}
	if spec.subReq {
		p.fail(name + " without a subcommand is not in the read-only table")
		return
	}
	switch {
	case spec.maxPos < 0 && len(ops) > 0:
		p.fail(name + " " + ops[0] + ": " + name + " takes no operand here")
		return
	case spec.maxPos > 0 && len(ops) > spec.maxPos:
		p.fail(name + " " + ops[spec.maxPos] + ": an extra operand (it would be written)")
		return
	}
	if spec.post != nil {
		if why := spec.post(opts, ops); why != "" {
			p.fail(name + ": " + why)
			return
		}
	}
	if spec.noPaths {
		return
	}
	for _, o := range ops {
		p.read(o)
		if spec.gitPaths {
			if i := strings.IndexByte(o, ':'); i >= 0 {
				p.read(o[i+1:])
				if j := strings.LastIndexByte(o, ':'); j != i {
					p.read(o[j+1:])
				}
			}
		}
	}
}

// parseOpts splits args into the options spec accepts and operands. sub
// is the index of the subcommand when spec has subcommands and one is
// given, else -1. Values of path options are recorded as reads.
func (p *roProver) parseOpts(name string, spec *roSpec, args []string) (opts map[string]bool, ops []string, sub int, why string) {
	opts = map[string]bool{}
	end := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if end || a == "-" || !strings.HasPrefix(a, "-") {
			if spec.sub != nil && !end {
				return opts, ops, i, ""
			}
			ops = append(ops, a)
			continue
		}
		if a == "--" {
			end = true
			continue
		}
		if strings.HasPrefix(a, "--") || spec.single {
			n, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			cnt, ok := spec.long[n]
			if !ok {
				return nil, nil, -1, "unknown option " + name + " " + a
			}
			opts["--"+n] = true
			switch {
			case cnt == 0 && hasVal:
				return nil, nil, -1, name + " " + a + ": a value the option does not take"
			case cnt == 1 && !hasVal:
				if i+1 >= len(args) {
					return nil, nil, -1, name + " " + a + ": missing value"
				}
				i++
				val = args[i]
			case cnt == 2:
				if hasVal || i+2 >= len(args) {
					return nil, nil, -1, name + " " + a + ": two values expected"
				}
				i += 2
			}
			if spec.pathLong[n] && cnt != 0 {
				p.read(val)
			}
			continue
		}
		if spec.numeric && isDigits(a[1:]) {
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if strings.IndexByte(spec.flags, c) >= 0 {
				opts["-"+string(c)] = true
				continue
			}
			if strings.IndexByte(spec.optFlags, c) >= 0 {
				opts["-"+string(c)] = true
				break // the rest of the word, if any, is the value
			}
			if strings.IndexByte(spec.valFlags, c) >= 0 {
				opts["-"+string(c)] = true
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, nil, -1, name + " -" + string(c) + ": missing value"
					}
					i++
					val = args[i]
				}
				if strings.IndexByte(spec.pathVals, c) >= 0 {
					p.read(val)
				}
				break
			}
			if c == 'i' && name == "yq" {
				return nil, nil, -1, "yq -i writes its files"
			}
			return nil, nil, -1, "unknown option " + name + " -" + string(c)
		}
	}
	return opts, ops, -1, ""
}

// --- find ---

// findPrim0 are the primaries without a value the proof allows.
func findPrim0(a string) bool {
	switch a {
	case "-print", "-print0", "-prune", "-empty", "-not", "!", "(", ")", "-o", "-a", "-or", "-and",
		"-quit", "-readable", "-writable", "-executable", "-depth", "-xdev", "-mount", "-follow", "-ls", "-true",
		"-false", "-nouser", "-nogroup", "-daystart", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", ",":
		return true
	}
	return false
}

// findPrim1 are the primaries with one value the proof allows.
func findPrim1(a string) bool {
	switch a {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-type", "-xtype",
		"-maxdepth", "-mindepth", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-perm",
		"-user", "-group", "-uid", "-gid", "-regex", "-iregex", "-regextype", "-links", "-inum", "-printf",
		"-lname", "-ilname", "-used", "-fstype", "-context":
		return true
	}
	return false
}

// findReads are the primaries whose operand is a file find stats.
func findReads(a string) bool {
	return a == "-newer" || a == "-anewer" || a == "-cnewer" || a == "-samefile"
}

func checkFind(p *roProver, name string, args []string) string {
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P") {
		i++
	}
	start := 0
	for ; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == "," {
			break
		}
		p.read(a)
		start++
	}
	if start == 0 {
		p.read(".")
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case findPrim0(a):
		case findPrim1(a):
			if i++; i >= len(args) {
				return "find " + a + ": missing value"
			}
		case findReads(a) || strings.HasPrefix(a, "-newer") && len(a) == len("-newerXY"):
			if i++; i >= len(args) {
				return "find " + a + ": missing value"
			}
			if findReads(a) || a[len(a)-1] != 't' {
				p.read(args[i])
			}
		case a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir":
			return "find " + a + " runs a command"
		case a == "-delete":
			return "find -delete deletes what it finds"
		case strings.HasPrefix(a, "-fprint") || a == "-fls":
			return "find " + a + " writes a file"
		default:
			return "unknown option find " + a
		}
	}
	return ""
}

// --- sed ---

func checkSed(p *roProver, name string, args []string) string {
	var scripts, files []string
	hasE := false
	end := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if end || a == "-" || !strings.HasPrefix(a, "-") {
			files = append(files, a)
			continue
		}
		if a == "--" {
			end = true
			continue
		}
		if strings.HasPrefix(a, "--") {
			n, val, hasVal := strings.Cut(a[2:], "=")
			switch n {
			case "in-place":
				return "sed " + a + " writes " + strings.Join(restOperands(args[i+1:]), " ")
			case "expression":
				if !hasVal {
					if i++; i >= len(args) {
						return "sed --expression: missing value"
					}
					val = args[i]
				}
				scripts, hasE = append(scripts, val), true
			case "file":
				return "sed --file: a script file the proof cannot read"
			case "line-length":
				if !hasVal {
					i++
				}
			case "quiet", "silent", "regexp-extended", "separate", "unbuffered", "null-data", "posix", "debug", "sandbox":
			default:
				return "unknown option sed " + a
			}
			continue
		}
	short:
		for j := 1; j < len(a); j++ {
			switch c := a[j]; c {
			case 'n', 'E', 'r', 's', 'u', 'z':
			case 'i':
				return "sed -i writes " + strings.Join(restOperands(args[i+1:]), " ")
			case 'e', 'l':
				val := a[j+1:]
				if val == "" {
					if i++; i >= len(args) {
						return "sed -" + string(c) + ": missing value"
					}
					val = args[i]
				}
				if c == 'e' {
					scripts, hasE = append(scripts, val), true
				}
				break short
			case 'f':
				return "sed -f: a script file the proof cannot read"
			default:
				return "unknown option sed -" + string(c)
			}
		}
	}
	if !hasE {
		if len(files) == 0 {
			return "sed without a script"
		}
		scripts, files = files[:1], files[1:]
	}
	for _, s := range scripts {
		why, reads := sedScript(s)
		if why != "" {
			return why
		}
		for _, r := range reads {
			p.read(r)
		}
	}
	for _, f := range files {
		p.read(f)
	}
	return ""
}

// restOperands are the operands in args, for messages.
func restOperands(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	if len(out) > 1 {
		out = out[1:] // the first is the script
	}
	return out
}

// sedScript parses a sed script conservatively: it knows addresses and
// the commands that only print, and rejects w, W, e, the s flags w and e
// and any command it does not know. r and R name files read.
func sedScript(s string) (why string, reads []string) {
	i, n := 0, len(s)
	regex := func(d byte) bool { // from after the opening delimiter through the closing one
		for i < n {
			c := s[i]
			if c == '\\' {
				i += 2
				continue
			}
			if c == '\n' && d != '\n' {
				return false
			}
			i++
			if c == d {
				return true
			}
		}
		return false
	}
	digits := func() {
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	spaces := func() {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	toEOL := func() string {
		st := i
		for i < n && s[i] != '\n' {
			i++
		}
		return s[st:i]
	}
	address := func() (bool, string) {
		switch {
		case i < n && s[i] >= '0' && s[i] <= '9':
			digits()
			if i < n && s[i] == '~' {
				i++
				digits()
			}
		case i < n && s[i] == '$':
			i++
		case i < n && (s[i] == '/' || s[i] == '\\'):
			d := byte('/')
			if s[i] == '\\' {
				if i++; i >= n {
					return false, "sed: a bad address"
				}
				d = s[i]
			}
			i++
			if !regex(d) {
				return false, "sed: an unterminated address"
			}
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		default:
			return false, ""
		}
		return true, ""
	}
	for i < n {
		for i < n && strings.IndexByte(" \t\n;", s[i]) >= 0 {
			i++
		}
		if i >= n {
			break
		}
		if ok, why := address(); why != "" {
			return why, nil
		} else if ok && i < n && s[i] == ',' {
			i++
			if i < n && (s[i] == '+' || s[i] == '~') {
				i++
				digits()
			} else if ok2, why := address(); why != "" || !ok2 {
				return "sed: a bad address range", nil
			}
		}
		spaces()
		for i < n && s[i] == '!' {
			i++
			spaces()
		}
		if i >= n {
			return "sed: a missing command", nil
		}
		c := s[i]
		i++
		switch c {
		case '{', '}':
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'q', 'Q':
			spaces()
			digits()
		case 's', 'y':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				return "sed: a bad s/y delimiter", nil
			}
			d := s[i]
			i++
			if !regex(d) || !regex(d) {
				return "sed: an unterminated s or y command", nil
			}
			if c == 's' {
				for i < n && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
					i++
				}
				if i < n && (s[i] == 'w' || s[i] == 'W') {
					return "sed s///w writes a file", nil
				}
				if i < n && s[i] == 'e' {
					return "sed s///e runs the pattern space as a command", nil
				}
			}
		case 'a', 'i', 'c':
			for i < n && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'r', 'R':
			spaces()
			if f := toEOL(); f != "" {
				reads = append(reads, f)
			}
		case 'b', 't', 'T', ':':
			for i < n && s[i] != '\n' && s[i] != ';' {
				i++
			}
		case '#':
			toEOL()
		case 'w', 'W':
			return "sed " + string(c) + " writes a file", nil
		case 'e':
			return "sed e runs a command", nil
		default:
			return "sed: a command the proof does not know (" + string(c) + ")", nil
		}
	}
	return "", reads
}

// --- awk ---

// awkUnsafe are the words and characters whose presence anywhere in an
// awk program makes it not proven: system(), pipes to and from commands,
// output redirection (and, at the cost of a false "no", comparisons with
// >), getline, gawk's @load/@include, ENVIRON and PROCINFO, and ARGV/ARGC
// (a BEGIN that sets ARGV[1] reads a file no operand names).
var awkUnsafe = []string{"system", "|", ">", "getline", "@", "ENVIRON", "PROCINFO", "ARGV", "ARGC"}

func checkAwk(p *roProver, name string, args []string) string {
	var prog string
	have := false
	var files []string
	end := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if end || a == "-" || !strings.HasPrefix(a, "-") {
			if !have {
				prog, have = a, true
			} else {
				files = append(files, a)
			}
			continue
		}
		if a == "--" {
			end = true
			continue
		}
		switch {
		case a == "-F" || a == "-v":
			i++
		case strings.HasPrefix(a, "-F") || strings.HasPrefix(a, "-v"):
		case strings.HasPrefix(a, "-f") || a == "--file" || strings.HasPrefix(a, "--file="):
			return name + " -f: a program file the proof cannot read"
		default:
			return "unknown option " + name + " " + a
		}
	}
	if !have {
		return name + " without a program"
	}
	for _, u := range awkUnsafe {
		if strings.Contains(prog, u) {
			return name + ": the program uses " + u + " (it could run a command or write)"
		}
	}
	for _, f := range files {
		p.read(f)
	}
	return ""
}

// --- small ones ---

func checkPrintf(p *roProver, name string, args []string) string {
	if len(args) == 0 {
		return "printf without a format"
	}
	if strings.HasPrefix(args[0], "-") && args[0] != "--" {
		return "printf " + args[0] + ": an option (printf -v assigns a variable)"
	}
	return ""
}

// checkTest: test and [ compare and stat; their words must be literal
// (call checks that), and -v and -R are out: bash evaluates an array
// subscript in their operand, $(…) included (test -v 'a[$(id)]' runs id).
// The operands are not taken as reads: test opens nothing.
func checkTest(p *roProver, name string, args []string) string {
	for _, a := range args {
		if a == "-v" || a == "-R" {
			return name + " " + a + " evaluates an array subscript (it can run a command)"
		}
	}
	return ""
}

func checkDate(p *roProver, name string, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "+"):
		case a == "-u" || a == "-R" || a == "--utc" || a == "--universal" || a == "--rfc-email" ||
			strings.HasPrefix(a, "-I") || strings.HasPrefix(a, "--iso-8601") || strings.HasPrefix(a, "--rfc-3339="):
		case a == "-d" || a == "--date":
			i++
		case strings.HasPrefix(a, "-d") || strings.HasPrefix(a, "--date="):
		default:
			return "date " + a + ": not a format or a read-only option (date -s and an operand set the clock)"
		}
	}
	return ""
}

func checkCd(p *roProver, name string, args []string) string {
	if len(args) != 1 || args[0] == "-" || strings.HasPrefix(args[0], "-") {
		return "cd without one literal directory"
	}
	p.cd(args[0])
	return ""
}

func checkJq(p *roProver, name string, args []string) string {
	opts, ops, _, why := p.parseOpts(name, jqOpts.get(), args)
	if why != "" {
		return why
	}
	if !opts["-f"] && len(ops) > 0 {
		for _, u := range []string{"env", "$ENV", "input_filename", "$__loc__"} {
			if strings.Contains(ops[0], u) {
				return "jq: the filter uses " + u
			}
		}
		ops = ops[1:]
	} else if !opts["-f"] {
		return ""
	}
	for _, o := range ops {
		p.read(o)
	}
	return ""
}

func checkYq(p *roProver, name string, args []string) string {
	for _, a := range args {
		if a == "--inplace" || strings.HasPrefix(a, "--inplace=") || a == "--in-place" {
			return "yq " + a + " writes its files"
		}
	}
	_, ops, _, why := p.parseOpts(name, yqOpts.get(), args)
	if why != "" {
		return why
	}
	if len(ops) > 0 && (ops[0] == "e" || ops[0] == "eval" || ops[0] == "ea" || ops[0] == "eval-all") {
		ops = ops[1:]
	}
	for _, o := range ops {
		for _, u := range []string{"load", "env", "split_doc", "@"} {
			if strings.Contains(o, u) {
				return "yq: the expression uses " + u
			}
		}
		p.read(o)
	}
	return ""
}

// --- git ---

func gitListOnly(flag ...string) func(map[string]bool, []string) string {
	return func(opts map[string]bool, ops []string) string {
		if len(ops) == 0 {
			return ""
		}
		for _, f := range flag {
			if opts[f] {
				return ""
			}
		}
		return "an operand without " + flag[0] + " creates or changes (" + ops[0] + ")"
	}
}

// gitSpecTable builds the git entry of readOnlyTable (on its first use).
func gitSpecTable() *roSpec {
	gitLog := &roSpec{flags: "pusuzwbiEFMCrt", valFlags: "nSGLU", numeric: true, gitPaths: true, long: longs(gitLogDiff + " max-count= n=")}

	// gitSpec: the global options -P, --no-pager, --no-optional-locks and -C DIR
	// (a directory read: it must be inside the workspace); not -c or
	// --config-env (they can name programs), --git-dir, --work-tree, --exec-path.
	return &roSpec{flags: "P", valFlags: "C", pathVals: "C", long: longs("no-pager no-optional-locks version"), sub: map[string]*roSpec{
		"status":        {flags: "sbvzunoal", long: longs("short branch porcelain porcelain= untracked-files untracked-files= ignored ignored= long verbose null show-stash ahead-behind no-ahead-behind renames no-renames column no-column")},
		"log":           gitLog,
		"show":          gitLog,
		"whatchanged":   gitLog,
		"rev-list":      {flags: "n", valFlags: "n", numeric: true, gitPaths: true, long: longs("all count max-count= skip= since= until= after= before= reverse no-merges merges first-parent objects left-right topo-order date-order branches tags remotes author= grep=")},
		"diff":          {flags: "pusRwbzMCBDqa", valFlags: "U", gitPaths: true, long: longs(gitLogDiff)},
		"blame":         {flags: "wMCeslfnptcb", valFlags: "L", gitPaths: true, long: longs("porcelain line-porcelain incremental date= show-stats no-textconv root show-name show-number show-email abbrev= color-lines color-by-age")},
		"branch":        {flags: "arvl", long: longs("list all remotes verbose show-current merged merged= no-merged no-merged= contains= no-contains= sort= format= color color= no-color column no-column points-at= ignore-case omit-empty abbrev= no-abbrev"), noPaths: true, post: gitListOnly("--list", "-l")},
		"tag":           {flags: "l", valFlags: "n", numeric: true, long: longs("list sort= contains= no-contains= points-at= format= merged= no-merged= color color= ignore-case column no-column"), noPaths: true, post: gitListOnly("--list", "-l")},
		"rev-parse":     {flags: "q", gitPaths: true, long: longs("show-toplevel abbrev-ref abbrev-ref= short short= git-dir git-common-dir absolute-git-dir is-inside-work-tree is-inside-git-dir is-bare-repository is-shallow-repository verify quiet symbolic symbolic-full-name show-prefix show-cdup all branches branches= tags tags= remotes remotes= show-object-format show-object-format= path-format= default= revs-only no-revs flags no-flags")},
		"remote":        {flags: "v", maxPos: -1, long: longs("verbose")},
		"ls-files":      {flags: "cdmoiskuvtfz", valFlags: "xX", pathVals: "X", long: longs("cached deleted modified others ignored stage killed unmerged directory no-empty-directory exclude= exclude-from= exclude-per-directory= exclude-standard error-unmatch full-name recurse-submodules abbrev abbrev= debug eol deduplicate sparse format="), pathLong: set("exclude-from")},
		"ls-tree":       {flags: "rtdlz", gitPaths: true, long: longs("long name-only name-status object-only full-name full-tree abbrev abbrev= format=")},
		"shortlog":      {flags: "snec", gitPaths: true, long: longs("summary numbered email committer format= group= all since= until= no-merges")},
		"describe":      {gitPaths: true, long: longs("tags all always long abbrev= exact-match contains first-parent match= exclude= candidates=")},
		"cat-file":      {flags: "ptse", gitPaths: true, long: longs("batch batch= batch-check batch-check=")},                                                                                                                                                                                                                                                                                                                                                                                                                                               // not --textconv/--filters
		"grep":          {flags: "nilcwvEFGPIhHoqaz", valFlags: "eABCfm", pathVals: "f", numeric: true, long: longs("cached untracked no-index exclude-standard no-exclude-standard recurse-submodules line-number ignore-case files-with-matches files-without-match count word-regexp invert-match extended-regexp fixed-strings basic-regexp perl-regexp only-matching heading break show-function function-context max-depth= context= after-context= before-context= color color= no-color full-name all-match quiet null column threads= max-count=")}, // not -O (opens a pager program)
		"show-ref":      {flags: "sdq", long: longs("head heads tags verify hash hash= abbrev abbrev= quiet")},
		"merge-base":    {flags: "a", long: longs("all is-ancestor fork-point independent octopus")},
		"for-each-ref":  {long: longs("format= sort= count= points-at= merged= no-merged= contains= no-contains= ignore-case")},
		"count-objects": {flags: "vH", maxPos: -1, long: longs("verbose human-readable")},
		"check-ignore":  {flags: "qvnz", long: longs("quiet verbose non-matching no-index")},
		"version":       {maxPos: -1, long: longs("build-options")},
		"stash": {subReq: true, sub: map[string]*roSpec{
			"list": gitLog,
			"show": {flags: "pusRwbz", valFlags: "U", long: longs(gitLogDiff + " include-untracked only-untracked")},
		}},
		"worktree": {subReq: true, sub: map[string]*roSpec{"list": {flags: "vz", long: longs("porcelain verbose")}}},
	}}
}
