package shellparse

import (
	"path"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// Writes the analysis attributes beyond a program's plain operands:
// directory destinations, archives extracted into a directory, in-place
// editors and filters, git's working-tree commands.

// writeRuleOf is the path rule of a program of this file, nil when it has
// none (pathRuleOf asks it last).
func writeRuleOf(name string) pathRule {
	switch name {
	case "sponge":
		return func(args []field, add pathAdder) { operands(optSpec{}, call.OpWrite, args, add) }
	case "yq":
		return yqPaths
	case "unzip":
		return unzipPaths
	case "ed", "red", "ex", "vi", "vim", "nvim",
		"nano", "pico", "micro", "mcedit", "joe", "jed", "kak", "hx", "helix":
		return editorPaths // visited files are edited; -c/-S values mostly mean nothing there
	case "view":
		return viewPaths
	case "emacs":
		return emacsPaths
	case "git":
		return gitPaths
	case "dotenv":
		return dotenvPaths
	case "docker", "podman", "nerdctl", "bun", "deno":
		return envFileValues
	}
	return outputRuleOf(name)
}

// viewPaths: view is vim -R.
func viewPaths(args []field, add pathAdder) {
	editorPaths(append([]field{litField("-R", fieldPos(args))}, args...), add)
}

// envFileValues: --env-file FILE (docker/podman run and compose, node,
// bun, deno) and dotenv -e/-f FILE load a file into a program's
// environment, which it may print (docker run --env-file .env alpine env):
// they are reads. Only literal option words are looked at, anywhere in
// the line; dotenv's options end at its command.
func envFileValues(args []field, add pathAdder) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit {
			continue
		}
		switch {
		case f.s == "--env-file" || f.s == "--env-file-if-exists":
			if i+1 < len(args) {
				add(args[i+1], call.OpRead)
				i++
			}
		case strings.HasPrefix(f.s, "--env-file=") || strings.HasPrefix(f.s, "--env-file-if-exists="):
			_, v, _ := strings.Cut(f.s, "=")
			add(litField(v, f.pos), call.OpRead)
		}
	}
}

// dotenvPaths: dotenv (dotenv-cli -e FILE, python-dotenv -f/--file FILE)
// loads the file into the command's environment; with none named it loads
// ./.env.
func dotenvPaths(args []field, add pathAdder) {
	spec := optSpec{short: "efcvp", long: []string{"--file"}}
	opts, _ := spec.parse(args[:spec.first(args)])
	files := values(opts, "-e", "-f", "--file")
	if len(files) == 0 {
		files = []field{litField(".env", fieldPos(args))}
	}
	for _, f := range files {
		add(f, call.OpRead)
	}
}

// emacsPaths: the files emacs visits (its operands, --file/--visit/--find-file
// values) are edited, as vim's are; -l/--load/--script files are read.
func emacsPaths(args []field, add pathAdder) {
	opts, ops := optSpec{short: "lfLutd", long: []string{"--eval", "--execute", "--load", "--funcall", "--directory", "--user",
		"--chdir", "--insert", "--display", "--script", "--file", "--visit", "--find-file", "--batch-file", "--terminal", "--name", "--title", "--font"}}.parse(args)
	for _, f := range values(opts, "--file", "--visit", "--find-file", "--insert") {
		add(f, call.OpWrite)
	}
	for _, f := range values(opts, "-l", "--load", "--script") {
		add(f, call.OpRead)
	}
	for _, f := range ops {
		if f.lit && (strings.HasPrefix(f.s, "+") || f.s == "-") {
			continue
		}
		add(f, call.OpWrite)
	}
}

// into is the path a copy of src gets inside the directory dir (cp a d/
// writes d/a): dir/base(src). A src with a trailing slash is its base too
// (cp -r src/ d/ writes d/src).
func into(dir, src field) field {
	s := src.s
	if isRemotePath(s) && !strings.Contains(s, "://") {
		_, s, _ = strings.Cut(s, ":") // scp host:f . writes ./f
	}
	base := path.Base(strings.TrimRight(s, "/"))
	if strings.TrimRight(s, "/") == "" || s == "~" {
		base = "" // cp -r / d: d itself
	}
	f := dir
	f.s = strings.TrimRight(dir.s, "/") + "/" + base
	f.lit = dir.lit && src.lit
	f.glob = dir.glob || src.glob
	f.subst = dir.subst || src.subst
	return f
}

// destWrites reports what a copy, move, link or install of srcs to dest
// writes: dest itself, and dest/base(src) for each source unless dest is
// known to be a file (noDir: -T, --no-target-directory). Whether an
// existing dest is a directory the analysis cannot tell without the
// filesystem — and the string may create or remove it first (mkdir d &&
// cp a d) — so both are reported when it is not certain.
func destWrites(dest field, srcs []field, noDir bool, add pathAdder) {
	add(dest, call.OpWrite)
	if noDir {
		return
	}
	for _, s := range srcs {
		if s.lit && s.s == "" {
			continue
		}
		add(into(dest, s), call.OpWrite)
	}
}

// tarExtract: tar -x (--extract, --get, x in an old-style cluster) writes
// its member operands under -C DIR (or the working directory), or, with
// no members named, the whole directory.
func tarExtract(opts []option, ops []field, add pathAdder) {
	dir := litField(".", fieldPos(ops))
	if d := values(opts, "-C", "--directory"); len(d) > 0 {
		dir = d[len(d)-1]
	}
	if len(ops) == 0 || has(opts, "-T", "--files-from") {
		add(dir, call.OpWrite)
	}
	for _, m := range ops {
		add(dir.joined(m), call.OpWrite)
	}
}

// joined is dir/rel for a path operand rel inside dir (tar's and unzip's
// member names keep their directories; a leading slash is stripped, as
// GNU tar and unzip do).
func (dir field) joined(rel field) field {
	f := dir
	r := strings.TrimLeft(rel.s, "/")
	if dir.s == "." || dir.s == "" {
		f.s = r
	} else {
		f.s = strings.TrimRight(dir.s, "/") + "/" + r
	}
	f.lit = dir.lit && rel.lit
	f.glob = dir.glob || rel.glob
	f.subst = dir.subst || rel.subst
	return f
}

func isExtract(opts []option) bool {
	for _, o := range opts {
		switch {
		case o.name == "--extract" || o.name == "--get":
			return true
		case len(o.name) > 1 && o.name[1] != '-' && strings.ContainsRune(o.name[1:], 'x'):
			return true
		}
	}
	return false
}

// unzipPaths: unzip ARCHIVE [MEMBER…] [-x EXCLUDED…] [-d DIR] reads the
// archive and writes the members under DIR (or the working directory), or
// the whole directory when no member is named. -l, -t, -v, -p, -Z and -z
// list, test or print: nothing is written.
func unzipPaths(args []field, add pathAdder) {
	var archive *field
	var members []field
	dir := litField(".", fieldPos(args))
	writes, junk, excluding, prints := true, false, false, false
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		if f.lit && len(s) > 1 && s[0] == '-' {
			excluding = false
			switch {
			case s == "-d" && i+1 < len(args):
				i++
				dir = args[i]
			case strings.HasPrefix(s, "-d"):
				dir = litField(s[2:], f.pos)
			case s == "-P" && i+1 < len(args):
				i++
			case s == "-x":
				excluding = true
			default:
				if strings.ContainsAny(s[1:], "ltvpZzc") {
					writes = false
				}
				if strings.ContainsAny(s[1:], "pc") {
					prints = true // -p, -c: members to standard output
				}
				if strings.ContainsRune(s[1:], 'j') {
					junk = true
				}
			}
			continue
		}
		switch {
		case excluding:
		case archive == nil:
			archive = &args[i]
		default:
			members = append(members, f)
		}
	}
	if archive == nil {
		return
	}
	add(*archive, call.OpRead)
	if prints {
		// unzip -p x.zip .env prints the member: a read of it, named
		// as in the archive.
		for _, m := range members {
			add(dir.joined(m), call.OpRead)
		}
	}
	if !writes {
		return
	}
	if len(members) == 0 {
		add(dir, call.OpWrite)
	}
	for _, m := range members {
		if junk {
			add(into(dir, m), call.OpWrite)
		} else {
			add(dir.joined(m), call.OpWrite)
		}
	}
}

// yqPaths: yq -i (--inplace) writes its files; the first operand (after
// the eval/eval-all command) is the expression unless --from-file gave
// one. Without -i the files are read.
func yqPaths(args []field, add pathAdder) {
	opts, ops := optSpec{short: "IopC", long: []string{"--indent", "--output-format", "--input-format",
		"--from-file", "--expression", "--front-matter", "--xml-attribute-prefix", "--split-exp", "--arg",
		"--argjson"}}.parse(args)
	if len(ops) > 0 && ops[0].lit {
		switch ops[0].s {
		case "e", "eval", "ea", "eval-all":
			ops = ops[1:]
		}
	}
	if !has(opts, "--from-file", "--expression") && len(ops) > 0 {
		ops = ops[1:]
	}
	op := call.OpRead
	for _, o := range opts {
		if o.name == "-i" || o.name == "--inplace" {
			op = call.OpWrite
		}
	}
	for _, f := range ops {
		if f.lit && f.s == "-" {
			continue
		}
		add(f, op)
	}
}

// editorPaths: ed, ex, vi, vim and nvim write the files they edit — in a
// hook they run scripted (ed F <<<…, vim -es -c 'wq' F, ex -sc …). -R
// (and view) only read; option values (-c CMD, -S FILE, -u VIMRC…) and
// +CMD are not files.
func editorPaths(args []field, add pathAdder) {
	opts, ops := optSpec{short: "cSuiTwWtqU", long: []string{"--cmd", "--startuptime", "--remote",
		"--servername", "--listen"}}.parse(args)
	op := call.OpWrite
	if has(opts, "-R", "-M") {
		op = call.OpRead
	}
	for _, f := range values(opts, "-S", "-s") {
		add(f, call.OpRead)
	}
	for _, f := range ops {
		if f.lit && (strings.HasPrefix(f.s, "+") || f.s == "-" || f.s == "!") {
			continue
		}
		add(f, op)
	}
}

// gitPaths: the working-tree files git rm deletes (not --cached or
// --dry-run), git mv moves (sources deleted, the destination written),
// and git checkout -- F / git checkout TREE F / git restore F rewrite.
// -C DIR before the command moves the paths under DIR.
func gitPaths(args []field, add pathAdder) {
	var dir *field
	i := gitCommandIndex(args, &dir)
	if gitSubcommand(args) == "" {
		return
	}
	sub, rest := args[i].s, args[i+1:]
	in := add
	if dir != nil {
		in = func(f field, op call.Op) {
			if path.IsAbs(f.s) {
				add(f, op)
				return
			}
			add(dir.joined(f), op)
		}
	}
	switch sub {
	case "rm":
		opts, ops := gitRmOpts.parse(rest)
		if has(opts, "--cached", "-n", "--dry-run") {
			return
		}
		for _, f := range ops {
			in(f, call.OpDelete)
		}
	case "mv":
		opts, ops := optSpec{}.parse(rest)
		if len(ops) < 2 || has(opts, "-n", "--dry-run") {
			return
		}
		dest := ops[len(ops)-1]
		for _, f := range ops[:len(ops)-1] {
			in(f, call.OpDelete)
		}
		destWrites(dest, ops[:len(ops)-1], false, in)
	case "checkout", "restore":
		spec := optSpec{short: "bBs", long: []string{"--source", "--conflict", "--orphan", "--pathspec-from-file"}}
		dash := -1
		for j, f := range rest {
			if f.lit && f.s == "--" {
				dash = j
				break
			}
		}
		opts, ops := spec.parse(rest)
		if sub == "restore" && has(opts, "--staged", "-S") && !has(opts, "--worktree", "-W") {
			return
		}
		switch {
		case dash >= 0:
			_, ops = spec.parse(rest[dash:])
		case sub == "checkout" && len(ops) > 0:
			// The first operand is a branch or commit unless it can only
			// be a path (git checkout . restores the whole tree).
			if s := ops[0].s; !(ops[0].lit && (s == "." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../"))) {
				ops = ops[1:]
			}
		}
		for _, f := range ops {
			in(f, call.OpWrite)
		}
	case "clone", "worktree", "checkout-index", "init", "submodule", "archive", "bundle", "format-patch":
		gitNewTreePaths(sub, rest, in)
	case "clean", "stash", "reset":
		if sub == "clean" {
			for _, f := range args[:i] {
				if strings.Contains(strings.ToLower(f.s), "clean.requireforce") {
					// git -c clean.requireForce=false clean: no -f needed.
					rest = append([]field{litField("-f", f.pos)}, rest...)
					break
				}
			}
		}
		gitDiscardPaths(sub, rest, in)
	case "add":
		// git add -f stages a file .gitignore keeps out (.env): a read
		// of it, on its way to a commit and a push.
		opts, ops := gitAddOpts.parse(rest)
		if has(opts, "-f", "--force") && !has(opts, "-n", "--dry-run") {
			for _, f := range ops {
				in(f, call.OpRead)
			}
		}
	case "blame", "annotate":
		_, ops := optSpec{short: "LSC", long: []string{"--contents", "--date", "--ignore-rev", "--ignore-revs-file", "--since", "--reverse"}}.parse(rest)
		for _, f := range ops {
			in(f, call.OpRead)
		}
	case "hash-object":
		// git hash-object -w FILE stores the content, for git cat-file -p
		// HASH to print under no file name.
		opts, ops := optSpec{short: "t", long: []string{"--path"}}.parse(rest)
		if !has(opts, "--stdin", "--stdin-paths") {
			for _, f := range ops {
				in(f, call.OpRead)
			}
		}
	case "grep":
		// git grep --no-index PATTERN PATH… searches any file.
		opts, ops := optSpec{short: "efABCm", long: []string{"--max-depth", "--after-context", "--before-context", "--context", "--max-count", "--threads", "--open-files-in-pager"}}.parse(rest)
		if has(opts, "--no-index", "--untracked") && !has(opts, "-e", "-f") && len(ops) > 1 {
			for _, f := range ops[1:] {
				in(f, call.OpRead)
			}
		} else if has(opts, "--no-index", "--untracked") && has(opts, "-e", "-f") {
			for _, f := range ops {
				in(f, call.OpRead)
			}
		}
	case "diff":
		// git diff --no-index A B prints two files, tracked or not, and
		// so does git diff A B when a path lies outside the working tree
		// (git switches to --no-index by itself): absolute and ../ paths
		// are reads. --output FILE is written.
		opts, ops := gitDiffOpts.parse(rest)
		noIndex := has(opts, "--no-index")
		for _, f := range ops {
			if noIndex || (f.lit && (path.IsAbs(f.s) || f.s == ".." || strings.HasPrefix(f.s, "../"))) {
				in(f, call.OpRead)
			}
		}
		for _, f := range values(opts, "--output") {
			in(f, call.OpWrite)
		}
	}
}

// gitCommandIndex is the index of git's command word, past its global
// options; -C DIR is stored in *dir.
func gitCommandIndex(args []field, dir **field) int {
	i := 0
	for ; i < len(args); i++ {
		f := args[i]
		if !f.lit || len(f.s) < 2 || f.s[0] != '-' {
			break
		}
		switch f.s {
		case "-C":
			if i+1 < len(args) {
				i++
				*dir = &args[i]
			}
		default:
			if !strings.Contains(f.s, "=") && (f.s == "-c" || gitGlobalOpts.takesValue(f.s)) {
				i++
			}
		}
	}
	return i
}

// gitSubcommand is git's command when it is one whose operands are
// working-tree files (rm, mv, checkout, restore), else "".
func gitSubcommand(args []field) string {
	var dir *field
	i := gitCommandIndex(args, &dir)
	if i >= len(args) || !args[i].lit {
		return ""
	}
	switch args[i].s {
	case "rm", "mv", "checkout", "restore", "clean", "stash", "reset", "add", "blame", "annotate", "diff", "hash-object", "grep",
		"clone", "worktree", "checkout-index", "init", "submodule", "archive", "bundle", "format-patch":
		return args[i].s
	}
	return ""
}

// gitDiscardPaths: git clean -f removes the untracked files under its
// pathspecs (or the working directory), git stash -u/-a takes untracked
// (and ignored) files away with it, git reset --hard/--merge/--keep puts
// back the committed version of every tracked file. Each is a write of
// the tree it acts on (not a delete: the directory stays), so that rules
// about what lies under it (the guard's own surfaces) see it. git stash
// and git reset act on the whole repository; the analysis does not know
// its top and reports the working directory (or -C DIR).
func gitDiscardPaths(sub string, rest []field, in pathAdder) {
	dot := litField(".", fieldPos(rest))
	switch sub {
	case "clean":
		opts, ops := gitCleanOpts.parse(rest)
		if has(opts, "-n", "--dry-run") || !has(opts, "-f", "--force", "-i", "--interactive") {
			return
		}
		if len(ops) == 0 {
			ops = []field{dot}
		}
		for _, f := range ops {
			in(f, call.OpWrite)
		}
	case "stash":
		if len(rest) > 0 && rest[0].lit && !strings.HasPrefix(rest[0].s, "-") {
			switch rest[0].s {
			case "push", "save":
				rest = rest[1:]
			default:
				return // list, show, pop, apply, drop, branch, …: nothing untracked removed
			}
		}
		opts, ops := gitStashOpts.parse(rest)
		untracked := false
		for _, o := range opts {
			switch o.name {
			case "-u", "--include-untracked", "-a", "--all":
				untracked = true
			case "--no-include-untracked", "--no-all":
				untracked = false
			}
		}
		if !untracked {
			return
		}
		if len(ops) == 0 || (len(rest) > 0 && !hasDash(rest)) {
			// git stash save takes a message, not paths; push without -- too
			// takes its operands as paths, but reporting "." covers both.
			ops = []field{dot}
		}
		for _, f := range ops {
			in(f, call.OpWrite)
		}
	case "reset":
		opts, _ := gitResetOpts.parse(rest)
		if has(opts, "--hard", "--merge", "--keep") && !has(opts, "-h", "--help") {
			in(dot, call.OpWrite)
		}
	}
}

func hasDash(args []field) bool {
	for _, f := range args {
		if f.lit && f.s == "--" {
			return true
		}
	}
	return false
}

// gitNewTreePaths: the git commands that make files outside the index's
// own bookkeeping. git clone REPO [DIR] writes DIR (by default the
// repository's base name without .git, in the working directory) and
// --separate-git-dir; git worktree add PATH writes PATH (move A B: A
// deleted, B written; remove PATH deleted); git checkout-index writes
// the files it names, or with -a the whole tree, under --prefix (a
// prefix ending in / is a directory); git init DIR and git submodule add
// URL PATH write DIR and PATH; git archive -o, git bundle create FILE and
// git format-patch -o DIR write their output. So git clone URL ~/.codex
// writes the directory that holds Codex's hook settings.
func gitNewTreePaths(sub string, rest []field, in pathAdder) {
	switch sub {
	case "clone":
		opts, ops := optSpec{short: "obucj", long: []string{"--origin", "--branch", "--upload-pack", "--reference",
			"--reference-if-able", "--separate-git-dir", "--depth", "--shallow-since", "--shallow-exclude", "--config",
			"--template", "--jobs", "--filter", "--server-option", "--bundle-uri", "--ref-format", "--recurse-submodules"}}.parse(rest)
		for _, f := range values(opts, "--separate-git-dir") {
			in(f, call.OpWrite)
		}
		switch {
		case len(ops) >= 2:
			in(ops[1], call.OpWrite)
		case len(ops) == 1 && ops[0].lit && !strings.ContainsAny(ops[0].s, " \t"):
			u := strings.TrimRight(ops[0].s, "/")
			if i := strings.LastIndexAny(u, "/:"); i >= 0 {
				u = u[i+1:]
			}
			u = strings.TrimSuffix(u, ".git")
			if u != "" && u != "." && u != ".." {
				in(litField(u, ops[0].pos), call.OpWrite)
			}
		}
	case "worktree":
		if len(rest) == 0 || !rest[0].lit {
			return
		}
		_, ops := optSpec{short: "bB", long: []string{"--reason", "--orphan"}}.parse(rest[1:])
		switch rest[0].s {
		case "add":
			if len(ops) > 0 {
				in(ops[0], call.OpWrite)
			}
		case "move":
			if len(ops) == 2 {
				in(ops[0], call.OpDelete)
				in(ops[1], call.OpWrite)
			}
		case "remove":
			for _, f := range ops {
				in(f, call.OpDelete)
			}
		}
	case "checkout-index":
		opts, ops := optSpec{long: []string{"--prefix", "--stage"}}.parse(rest)
		prefix := values(opts, "--prefix")
		if has(opts, "-a", "--all") || has(opts, "--stdin") {
			if len(prefix) > 0 {
				in(prefix[len(prefix)-1], call.OpWrite)
			} else {
				in(litField(".", fieldPos(rest)), call.OpWrite)
			}
		}
		for _, f := range ops {
			if len(prefix) > 0 && prefix[len(prefix)-1].lit {
				p := prefix[len(prefix)-1]
				f.s = p.s + f.s // git's prefix is a string prefix
			}
			in(f, call.OpWrite)
		}
	case "init":
		_, ops := optSpec{long: []string{"--template", "--separate-git-dir", "--object-format", "--ref-format", "--initial-branch", "--shared"}, short: "b"}.parse(rest)
		if len(ops) > 0 {
			in(ops[0], call.OpWrite)
		}
	case "submodule":
		if len(rest) == 0 || !rest[0].lit || rest[0].s != "add" {
			return
		}
		_, ops := optSpec{short: "b", long: []string{"--branch", "--name", "--reference", "--depth"}}.parse(rest[1:])
		if len(ops) >= 2 {
			in(ops[1], call.OpWrite)
		}
	case "archive":
		opts, _ := optSpec{short: "o", long: []string{"--output", "--format", "--prefix", "--remote", "--exec", "--add-file", "--add-virtual-file"}}.parse(rest)
		for _, f := range values(opts, "-o", "--output") {
			in(f, call.OpWrite)
		}
	case "bundle":
		if len(rest) >= 2 && rest[0].lit && rest[0].s == "create" {
			_, ops := optSpec{}.parse(rest[1:])
			if len(ops) > 0 {
				in(ops[0], call.OpWrite)
			}
		}
	case "format-patch":
		opts, _ := optSpec{short: "ov", long: []string{"--output-directory", "--output", "--subject-prefix", "--in-reply-to", "--to", "--cc", "--from", "--base", "--interdiff", "--range-diff", "--creation-factor", "--signature", "--signature-file", "--suffix", "--start-number", "--reroll-count"}}.parse(rest)
		for _, f := range values(opts, "-o", "--output-directory", "--output") {
			in(f, call.OpWrite)
		}
	}
}
