package shellparse

import (
	"net/url"
	"path"
	"strings"
	"unicode"

	"github.com/toolguard/toolguard/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// resolve turns a path operand into a PathRef: absolute paths are cleaned,
// relative ones joined to the working directory the analysis tracks. A
// path that is not literal keeps its text and is marked Dynamic; so is a
// relative path after a cd the analysis cannot follow, and a find/xargs
// placeholder ({}).
func resolve(f field, op call.Op, sc *scope) (PathRef, bool) {
	p, ok := resolveHere(f, op, sc)
	if ok && sc.container != nil {
		return sc.container.host(p)
	}
	return p, ok
}

func resolveHere(f field, op call.Op, sc *scope) (PathRef, bool) {
	if f.lit && f.s == "" {
		return PathRef{}, false
	}
	p := f.s
	switch {
	case !f.lit && f.subst && (strings.HasPrefix(p, "<(") || strings.HasPrefix(p, ">(")):
		return PathRef{}, false // a process substitution: a pipe, not a file
	case !f.lit || (strings.Contains(p, "{") && strings.Contains(p, "}")):
		return PathRef{Path: p, Op: op, Dynamic: true}, true
	case path.IsAbs(p):
		return PathRef{Path: path.Clean(p), Op: op}, true
	case strings.HasPrefix(p, "~"):
		return PathRef{Path: p, Op: op}, true
	case sc.cwdUnknown:
		return PathRef{Path: path.Clean(p), Op: op, Dynamic: true}, true
	}
	return PathRef{Path: path.Join(sc.cwd, p), Op: op}, true
}

// redirPath is the path a redirection opens, if it names one.
func redirPath(rd *syntax.Redirect, f field, sc *scope) (PathRef, bool) {
	var op call.Op
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		op = call.OpWrite
	case syntax.RdrIn:
		op = call.OpRead
	case syntax.DplOut:
		// >&N and >&- duplicate or close descriptors; >&file writes file.
		if f.lit && (strings.Trim(f.s, "0123456789") == "" || strings.Trim(f.s, "0123456789") == "-") {
			return PathRef{}, false
		}
		op = call.OpWrite
	default:
		return PathRef{}, false
	}
	if len(rd.Word.Parts) == 1 {
		if _, ok := rd.Word.Parts[0].(*syntax.ProcSubst); ok {
			return PathRef{}, false
		}
	}
	if f.lit && isStdDevice(f.s) {
		return PathRef{}, false
	}
	return resolve(f, op, sc)
}

// isStdDevice reports the device files that are no real target:
// /dev/null, the standard streams, the terminal and descriptor aliases.
func isStdDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero":
		return true
	}
	for _, pre := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}

// pathAdder collects the paths of one command.
type pathAdder func(f field, op call.Op)

type pathRule func(args []field, add pathAdder)

// pathsFor returns the paths the program name writes, deletes or reads
// given its arguments.
func pathsFor(name string, args []field, sc *scope) []PathRef {
	rule := pathRuleOf(name)
	if rule == nil || (name == "git" && gitSubcommand(args) == "") {
		return nil // most git commands name no working-tree file
	}
	var out []PathRef
	rule(args, func(f field, op call.Op) {
		if p, ok := resolve(f, op, sc); ok {
			p.Pattern = f.pattern && !p.Dynamic
			out = append(out, p)
		}
		if alt, ok := defaultAlt(f, sc); ok {
			if p, ok := resolve(alt, op, sc); ok {
				out = append(out, p)
			}
		}
	})
	return out
}

// defaultAlt is the value of a word whose only unknown parts are
// ${X:-w}, ${X-w}, ${X:=w} or ${X=w} of variables from the environment,
// when each takes its default: cat ${KEY:-~/.ssh/id_rsa} reads the key
// unless KEY is set, which a command string cannot count on. Defaults
// that are not plain text (quotes aside) give no alternative.
func defaultAlt(f field, sc *scope) (field, bool) {
	if f.lit || f.subst || !strings.Contains(f.s, "${") {
		return field{}, false
	}
	s := f.s
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		j := i + 2
		for j < len(s) && isIdentChar(s[j]) && s[j] != '$' {
			j++
		}
		if j == i+2 || j >= len(s) {
			return field{}, false
		}
		k := j
		if s[k] == ':' {
			k++
		}
		if k >= len(s) || (s[k] != '-' && s[k] != '=') {
			return field{}, false
		}
		end := strings.IndexByte(s[k:], '}')
		if end < 0 {
			return field{}, false
		}
		w := s[k+1 : k+end]
		if strings.ContainsAny(w, "$`{\\") {
			return field{}, false
		}
		w = strings.NewReplacer(`"`, "", "'", "").Replace(w)
		if w == "~" || strings.HasPrefix(w, "~/") {
			home, ok := sc.lookup("HOME")
			if !ok || !home.known || home.val == "" {
				return field{}, false
			}
			w = home.val + w[1:]
		}
		b.WriteString(w)
		s = s[k+end+1:]
	}
	b.WriteString(s)
	out := b.String()
	if out == "" || strings.ContainsAny(out, "$`") {
		return field{}, false
	}
	alt := litField(out, f.pos)
	alt.glob = f.glob || isGlob(out)
	return alt, true
}

// Specs of the programs only the path rules read (the shared ones are in
// opttables.go).
var (
	setfaclOpts  = optSpec{short: "mMxX", long: []string{"--modify", "--modify-file", "--remove", "--remove-file", "--set", "--set-file"}}
	pythonOpts   = optSpec{short: "cmWXQ", long: []string{"--check-hash-based-pycs"}}
	rubyOpts     = optSpec{short: "eIrECTFKWx"}
	nodeOpts     = optSpec{short: "erpC", long: []string{"--eval", "--print", "--require", "--import", "--loader", "--conditions", "--input-type", "--env-file", "--title"}}
	compressOpts = optSpec{short: "SoDTM", long: []string{"--suffix", "--output", "--threads", "--memlimit", "--memory", "--format", "--patch-from"}}
)

// pathRuleOf is the path rule of the program name, nil when it has none.
// A switch of functions that capture nothing: no table is built, at
// start or on first use. The rules of writes.go come from writeRuleOf.
func pathRuleOf(name string) pathRule {
	switch name {
	case "rm", "rmdir", "unlink":
		return func(args []field, add pathAdder) { operands(optSpec{}, call.OpDelete, args, add) }
	case "shred":
		return func(args []field, add pathAdder) { operands(shredOpts, call.OpDelete, args, add) }
	case "truncate":
		return func(args []field, add pathAdder) { operands(truncateOpts, call.OpDelete, args, add) }
	case "tee":
		return func(args []field, add pathAdder) { operands(optSpec{}, call.OpWrite, args, add) }
	case "touch":
		return func(args []field, add pathAdder) { operands(touchOpts, call.OpCreate, args, add) }
	case "mkdir":
		return func(args []field, add pathAdder) { operands(mkdirOpts, call.OpWrite, args, add) }
	case "cp":
		return func(args []field, add pathAdder) { noClobber(cpOpts, cpPaths, args, add) }
	case "mv":
		return func(args []field, add pathAdder) { noClobber(mvOpts, mvPaths, args, add) }
	case "install":
		return installPaths
	case "ln":
		return lnPaths
	case "link":
		return linkPaths
	case "patch":
		return patchPaths
	case "split", "csplit":
		return func(args []field, add pathAdder) { splitPaths(name, args, add) }
	case "rsync":
		return func(args []field, add pathAdder) {
			remoteCopyPaths(rsyncOpts, args, add, "-n", "--dry-run", "--list-only")
		}
	case "scp":
		return func(args []field, add pathAdder) { remoteCopyPaths(scpOpts, args, add) }
	case "sed":
		return sedPaths
	case "perl":
		return perlPaths
	case "dd":
		return ddPaths
	case "chmod":
		return func(args []field, add pathAdder) { modePaths("cfvR", args, add) }
	case "chown", "chgrp":
		return func(args []field, add pathAdder) { modePaths("cfvRhHLP", args, add) }
	case "chattr":
		return chattrPaths
	case "setfacl":
		return func(args []field, add pathAdder) { operands(setfaclOpts, call.OpWrite, args, add) }
	case "find":
		return findPaths
	case "cat", "tac", "more":
		return func(args []field, add pathAdder) { operands(optSpec{}, call.OpRead, args, add) }
	case "less":
		return lessPaths
	case "awk", "gawk", "mawk", "nawk":
		return awkPaths
	case "nl":
		return func(args []field, add pathAdder) { operands(nlOpts, call.OpRead, args, add) }
	case "wc":
		return wcPaths
	case "xargs":
		return xargsPaths
	case "head", "tail":
		return func(args []field, add pathAdder) { operands(headTailOpts, call.OpRead, args, add) }
	case "grep", "egrep", "fgrep":
		return func(args []field, add pathAdder) { grepPaths(grepOpts, args, add) }
	case "rg":
		return func(args []field, add pathAdder) { grepPaths(rgOpts, args, add) }
	case "source", ".":
		return sourcePaths
	case "base64":
		return func(args []field, add pathAdder) { operands(base64Opts, call.OpRead, args, add) }
	case "xxd":
		return xxdPaths
	case "strings":
		return func(args []field, add pathAdder) { operands(stringsOpts, call.OpRead, args, add) }
	case "od":
		return func(args []field, add pathAdder) { operands(odOpts, call.OpRead, args, add) }
	case "sort":
		return sortPaths
	case "curl":
		return curlPaths
	case "wget":
		return wgetPaths
	case "tar", "bsdtar", "gtar":
		return tarPaths
	case "openssl":
		return opensslPaths
	case "python", "python2", "python3":
		return func(args []field, add pathAdder) { scriptPaths(pythonOpts, "cm", args, add) }
	case "ruby":
		return func(args []field, add pathAdder) { scriptPaths(rubyOpts, "e", args, add) }
	case "node":
		return func(args []field, add pathAdder) {
			scriptPaths(nodeOpts, "ep", args, add)
			envFileValues(args, add)
		}
	case "date":
		return func(args []field, add pathAdder) {
			optionValues(dateOpts, args, add, "-f", "--file", "-r", "--reference")
		}
	}
	return writeRuleOf(name)
}

// cpPaths and mvPaths are cp's and mv's rules under noClobber.
func cpPaths(args []field, add pathAdder) { copyPaths(cpOpts, call.OpRead, args, add) }
func mvPaths(args []field, add pathAdder) { copyPaths(mvOpts, call.OpDelete, args, add) }

// xargsPaths: xargs -a/--arg-file FILE reads FILE and passes its words to
// the command (xargs -a .env echo prints it). Only xargs' own options, up
// to the command, are read.
func xargsPaths(args []field, add pathAdder) {
	opts, _ := xargsOpts.parse(args[:xargsOpts.first(args)])
	for _, f := range values(opts, "-a", "--arg-file") {
		if f.lit && f.s == "-" {
			continue
		}
		add(f, call.OpRead)
	}
}

// tarPaths: creating or appending (-c, -r, -u, -A) reads the operands and
// -T lists and writes the archive (-f); otherwise the archive is read.
// The first word may be an old-style cluster without a dash (tar czf …).
func tarPaths(args []field, add pathAdder) {
	if len(args) > 0 && args[0].lit && args[0].s != "" && args[0].s[0] != '-' {
		a := args[0]
		a.s = "-" + a.s
		args = append([]field{a}, args[1:]...)
	}
	opts, ops := tarOpts.parse(args)
	create := false
	for _, o := range opts {
		switch {
		case o.name == "--create" || o.name == "--append" || o.name == "--update" || o.name == "--catenate" || o.name == "--concatenate":
			create = true
		case len(o.name) > 1 && o.name[1] != '-' && strings.ContainsAny(o.name[1:], "cruA"):
			create = true
		}
	}
	if !create && isExtract(opts) {
		tarExtract(opts, ops, add)
	}
	archive := call.OpRead
	if create {
		archive = call.OpWrite
		// --remove-files deletes what it archived: tar of the audit log
		// or of .claude removes them.
		remove := has(opts, "--remove-files")
		for _, f := range ops {
			add(f, call.OpRead)
			if remove {
				add(f, call.OpDelete)
			}
		}
	}
	for _, f := range values(opts, "-f", "--file") {
		if f.lit && (f.s == "-" || isRemotePath(f.s)) {
			continue
		}
		add(f, archive)
	}
	for _, f := range values(opts, "-T", "--files-from", "-X", "--exclude-from") {
		add(f, call.OpRead)
	}
}

// opensslPaths: -in (and -inkey, -key, -kfile, -pass file:) read, -out
// writes, whatever the subcommand.
func opensslPaths(args []field, add pathAdder) {
	for i := 0; i+1 < len(args); i++ {
		if !args[i].lit {
			continue
		}
		switch args[i].s {
		case "-in", "-inkey", "-key", "-kfile", "-CAfile", "-cert", "-certfile", "-signkey":
			add(args[i+1], call.OpRead)
			i++
		case "-out":
			add(args[i+1], call.OpWrite)
			i++
		}
	}
}

// scriptPaths: an interpreter running a script file reads it (unless code
// comes from one of the options in code, such as -c or -m).
func scriptPaths(spec optSpec, code string, args []field, add pathAdder) {
	i := spec.first(args)
	for j, f := range args[:i] {
		if f.lit && len(f.s) > 1 && f.s[0] == '-' {
			inline := false
			if f.s[1] == '-' {
				inline = f.s == "--eval" || f.s == "--print" || strings.HasPrefix(f.s, "--eval=") || strings.HasPrefix(f.s, "--print=")
			} else {
				inline = strings.ContainsAny(f.s[1:], code)
			}
			if inline {
				codeOperands(args, j, add)
				return
			}
		}
	}
	if i < len(args) && !(args[i].lit && args[i].s == "-") {
		add(args[i], call.OpRead)
	}
}

// codeOperands: the words after an interpreter's inline code or module
// (python3 -c CODE FILE…, python3 -m json.tool FILE, ruby -ne CODE FILE,
// node -e CODE FILE) are its arguments, which the code, read only by
// pattern, may well open (print(open(sys.argv[1]).read())): the literal
// ones that are no options are reads. j is the index of the option word;
// its value is the next word unless attached (-cCODE, --eval=CODE).
func codeOperands(args []field, j int, add pathAdder) {
	f := args[j]
	k := j + 1
	if f.s[1] == '-' {
		if !strings.Contains(f.s, "=") {
			k++
		}
	} else if last := f.s[len(f.s)-1]; strings.IndexByte("cemp", last) >= 0 {
		k++ // the cluster ends in the code option: its value is next
	}
	for ; k < len(args); k++ {
		if a := args[k]; a.lit && a.s != "" && a.s[0] != '-' {
			add(a, call.OpRead)
		}
	}
}

// optionValues reads the values of the given options.
func optionValues(spec optSpec, args []field, add pathAdder, names ...string) {
	opts, _ := spec.parse(args)
	for _, f := range values(opts, names...) {
		add(f, call.OpRead)
	}
}

// operands gives every operand op.
func operands(spec optSpec, op call.Op, args []field, add pathAdder) {
	_, ops := spec.parse(args)
	for _, f := range ops {
		add(f, op)
	}
}

// wcPaths: wc prints counts, never a file's text, so its operands are not
// reads (wc -l .env passes like ls -l .env); the file --files0-from names
// is read, and its content is printed back in wc's errors ("wc: 'TOKEN=…':
// No such file or directory").
func wcPaths(args []field, add pathAdder) {
	opts, _ := wcOpts.parse(args)
	for _, f := range values(opts, "--files0-from") {
		if f.lit && f.s == "-" {
			continue
		}
		add(f, call.OpRead)
	}
}

// copyPaths handles cp and mv: the destination (-t DIR or the last operand)
// is written, and so is DEST/base(SOURCE) for each source (destWrites);
// the sources get srcOp.
func copyPaths(spec optSpec, srcOp call.Op, args []field, add pathAdder) {
	opts, ops := spec.parse(args)
	if t := values(opts, "-t", "--target-directory"); len(t) > 0 {
		destWrites(t[len(t)-1], ops, false, add)
	} else if len(ops) >= 2 {
		destWrites(ops[len(ops)-1], ops[:len(ops)-1], has(opts, "-T", "--no-target-directory"), add)
		ops = ops[:len(ops)-1]
	} else {
		return
	}
	for _, f := range ops {
		add(f, srcOp)
	}
}

func installPaths(args []field, add pathAdder) {
	spec := installOpts
	opts, ops := spec.parse(args)
	if has(opts, "-d", "--directory") {
		for _, f := range ops {
			add(f, call.OpWrite)
		}
		return
	}
	copyPaths(spec, call.OpRead, args, add)
}

// lnPaths: ln writes its link names and reads its targets. A symbolic
// link's relative target is relative to the link's directory, not the
// working directory (ln -s settings.local.json .claude/x points at
// .claude/settings.local.json): both are read, the link's directory
// being DEST's when DEST is a file and DEST itself when it is a
// directory. Whether the target exists does not matter: a link onto a
// surface that is not there yet is that surface once it is written.
func lnPaths(args []field, add pathAdder) {
	opts, ops := lnOpts.parse(args)
	symbolic := has(opts, "-s", "--symbolic")
	relTargets := func(dir field, srcs []field) {
		if !symbolic || !dir.lit {
			return
		}
		for _, f := range srcs {
			if f.lit && f.s != "" && !path.IsAbs(f.s) && !strings.HasPrefix(f.s, "~") {
				if d := path.Clean(dir.s); d != "." {
					add(litField(path.Join(d, f.s), f.pos), call.OpRead)
				}
			}
		}
	}
	switch t := values(opts, "-t", "--target-directory"); {
	case len(t) > 0:
		destWrites(t[len(t)-1], ops, false, add)
		for _, f := range ops {
			add(f, call.OpRead)
		}
		relTargets(t[len(t)-1], ops)
	case len(ops) >= 2:
		dest := ops[len(ops)-1]
		noDir := has(opts, "-T", "--no-target-directory")
		destWrites(dest, ops[:len(ops)-1], noDir, add)
		for _, f := range ops[:len(ops)-1] {
			add(f, call.OpRead)
		}
		if dest.lit && len(ops) == 2 && !strings.HasSuffix(dest.s, "/") {
			relTargets(litField(path.Dir(dest.s), dest.pos), ops[:1])
		}
		if !noDir {
			relTargets(dest, ops[:len(ops)-1])
		}
	case len(ops) == 1 && ops[0].lit:
		add(litField(path.Base(ops[0].s), ops[0].pos), call.OpWrite)
		add(ops[0], call.OpRead)
	}
}

// remoteCopyPaths handles rsync and scp: operands on another host
// (host:path) are skipped.
func remoteCopyPaths(spec optSpec, args []field, add pathAdder, dryRun ...string) {
	opts, ops := spec.parse(args)
	if len(ops) < 2 {
		return
	}
	dest := ops[len(ops)-1]
	if !isRemotePath(dest.s) && !has(opts, dryRun...) {
		// rsync -n/--dry-run/--list-only writes nothing.
		destWrites(dest, ops[:len(ops)-1], false, add)
	}
	for _, f := range ops[:len(ops)-1] {
		if !isRemotePath(f.s) {
			add(f, call.OpRead)
		}
	}
}

func isRemotePath(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	colon := strings.IndexByte(s, ':')
	slash := strings.IndexByte(s, '/')
	return colon > 0 && (slash < 0 || colon < slash)
}

// sedPaths: the files of sed -i are written, others read. The first operand
// is the script unless -e or -f gave one.
func sedPaths(args []field, add pathAdder) {
	inPlace, script := false, false
	var ops, scripts []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		if !f.lit || len(s) < 2 || s[0] != '-' {
			ops = append(ops, f)
			continue
		}
		if s == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if strings.HasPrefix(s, "--") {
			name, val, eq := strings.Cut(s, "=")
			switch name = sedOpts.longName(name); name { // --in-pl is --in-place
			case "--in-place":
				inPlace = true
			case "--expression", "--file", "--line-length":
				script = script || name != "--line-length"
				if name == "--file" && eq {
					add(litField(val, f.pos), call.OpRead)
				}
				if name == "--expression" && eq {
					scripts = append(scripts, litField(val, f.pos))
				}
				if !eq {
					if name == "--file" && i+1 < len(args) {
						add(args[i+1], call.OpRead)
					}
					if name == "--expression" && i+1 < len(args) {
						scripts = append(scripts, args[i+1])
					}
					i++
				}
			}
			continue
		}
	cluster:
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'i':
				inPlace = true
				// BSD sed: -i '' gives an empty backup suffix.
				if j+1 == len(s) && i+1 < len(args) && args[i+1].lit && args[i+1].s == "" {
					i++
				}
				break cluster
			case 'e', 'f':
				script = true
				if j+1 == len(s) {
					if s[j] == 'f' && i+1 < len(args) {
						add(args[i+1], call.OpRead)
					}
					if s[j] == 'e' && i+1 < len(args) {
						scripts = append(scripts, args[i+1])
					}
					i++
				} else if s[j] == 'e' {
					scripts = append(scripts, litField(s[j+1:], f.pos))
				}
				break cluster
			case 'l':
				if j+1 == len(s) {
					i++
				}
				break cluster
			}
		}
	}
	if !script && len(ops) > 0 {
		scripts = append(scripts, ops[0])
		ops = ops[1:]
	}
	// The script's w FILE commands and s///w FILE flags write FILE
	// (/dev/stdout and /dev/stderr are GNU sed's streams).
	for _, sc := range scripts {
		if !sc.lit {
			continue
		}
		for _, c := range sedExec(sc.s) {
			if c.write && !isStdDevice(c.text) {
				add(litField(c.text, sc.pos), call.OpWrite)
			}
		}
	}
	op := call.OpRead
	if inPlace {
		op = call.OpWrite
	}
	for _, f := range ops {
		add(f, op)
	}
}

func perlPaths(args []field, add pathAdder) {
	p := parsePerl(args)
	ops := p.operands
	if !p.hasCode && len(ops) > 0 {
		add(ops[0], call.OpRead)
		ops = ops[1:]
	}
	op := call.OpRead
	if p.inPlace {
		op = call.OpWrite
	}
	for _, f := range ops {
		add(f, op)
	}
}

func ddPaths(args []field, add pathAdder) {
	for _, f := range args {
		if !f.lit {
			continue
		}
		if v, ok := strings.CutPrefix(f.s, "of="); ok && !isStdDevice(v) {
			add(litField(v, f.pos), call.OpWrite)
		} else if v, ok := strings.CutPrefix(f.s, "if="); ok && !isStdDevice(v) {
			add(litField(v, f.pos), call.OpRead)
		}
	}
}

// modePaths handles chmod, chown and chgrp: the first operand is the mode
// or owner (unless --reference), the others are written. flags are the
// program's single-letter options; for chmod anything else starting with
// "-" is a mode (chmod -x file).
func modePaths(flags string, args []field, add pathAdder) {
	skipMode := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		if f.lit && s == "--" {
			for _, g := range args[i+1:] {
				if !skipMode {
					skipMode = true
					continue
				}
				add(g, call.OpWrite)
			}
			return
		}
		if f.lit && strings.HasPrefix(s, "--") {
			if strings.HasPrefix(s, "--reference") {
				skipMode = true
				if !strings.Contains(s, "=") {
					i++
				}
			}
			continue
		}
		if f.lit && len(s) > 1 && s[0] == '-' && strings.Trim(s[1:], flags) == "" {
			continue
		}
		if !skipMode {
			skipMode = true
			continue
		}
		add(f, call.OpWrite)
	}
}

func chattrPaths(args []field, add pathAdder) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		switch {
		case f.lit && (s == "-v" || s == "-p"):
			i++
		case f.lit && (s == "-R" || s == "-V" || s == "-f" || s == "--"):
		case f.lit && len(s) > 1 && (s[0] == '+' || s[0] == '-' || s[0] == '='):
		default:
			add(f, call.OpWrite)
		}
	}
}

// findPaths gives find's starting points as read, or as deleted with
// -delete; -fprint and friends write their file.
func findPaths(args []field, add pathAdder) {
	i := 0
	for i < len(args) && args[i].lit {
		s := args[i].s
		if s == "-H" || s == "-L" || s == "-P" || strings.HasPrefix(s, "-O") {
			i++
			continue
		}
		if s == "-D" {
			i += 2
			continue
		}
		break
	}
	var starts []field
	// BSD find: -f PATH names a starting point (one that may begin with -).
	for i+1 < len(args) && args[i].lit && args[i].s == "-f" {
		starts = append(starts, args[i+1])
		i += 2
	}
	for ; i < len(args); i++ {
		s := args[i].s
		if args[i].lit && (strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == ",") {
			break
		}
		starts = append(starts, args[i])
	}
	op := call.OpRead
	expr := args[i:]
	for j := i; j < len(args); j++ {
		f := args[j]
		if !f.lit {
			continue
		}
		switch f.s {
		case "-delete":
			op = call.OpDelete
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if j+1 < len(args) {
				add(args[j+1], call.OpWrite)
			}
			j += findValues(f.s)
		case "-exec", "-execdir", "-ok", "-okdir":
			// find DIR -exec rm … {} deletes what it finds under DIR.
			if findExecDeletes(args[j+1:]) {
				op = call.OpDelete
			}
			for j++; j < len(args) && !(args[j].lit && (args[j].s == ";" || args[j].s == "+")); j++ {
			}
		default:
			n := findValues(f.s) // a test's value is not an action: -name -delete
			if n == 0 && len(f.s) == len("-newerXY") && strings.HasPrefix(f.s, "-newer") {
				n = 1
			}
			j += n
		}
	}
	if len(starts) == 0 {
		starts = []field{litField(".", fieldPos(args))}
	}
	if op == call.OpDelete {
		if names, empty, ok := findSelection(expr); ok {
			// find deletes what its tests select, not its start point:
			// START/**/NAME for each name test (a Pattern path), nothing
			// that can hold a setting for -empty alone. The start is read.
			for _, f := range starts {
				add(f, call.OpRead)
				if !f.lit || empty && len(names) == 0 {
					continue
				}
				for _, n := range names {
					p := f
					p.s = strings.TrimRight(f.s, "/") + "/**/" + n
					if f.s == "/" {
						p.s = "/**/" + n
					}
					p.pattern = true
					add(p, call.OpDelete)
				}
			}
			return
		}
	}
	for _, f := range starts {
		add(f, op)
	}
}

// findSelection reads what a deleting find's tests select (the words
// before its first action): the name patterns of its -name and -iname
// tests (-iname's letters as [xX] classes), and whether it selects only
// empty files and directories (-empty, which hold no setting and no
// hook). ok is false when the tests cannot be reduced to that — no name
// test and no -empty, a negation (!, -not), -prune, a path or regular
// expression test (-path, -regex, -lname…), an alternative (-o) without
// a name test of its own, a value that is not literal: then the start
// point stands for what is deleted, as before.
func findSelection(expr []field) (names []string, empty, ok bool) {
	branchHasName := false
	for j := 0; j < len(expr); j++ {
		f := expr[j]
		if !f.lit {
			return nil, false, false
		}
		switch f.s {
		case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-print", "-print0", "-ls", "-printf", "-fprint", "-fprint0", "-fprintf", "-fls", "-quit":
			j = len(expr)
			continue
		case "!", "-not", "-prune", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname", "-samefile", "-inum", "-links", "-files0-from":
			return nil, false, false
		case "-o", "-or", ",":
			if !branchHasName {
				return nil, false, false
			}
			branchHasName = false
		case "-name", "-iname":
			if j+1 >= len(expr) || !expr[j+1].lit || expr[j+1].s == "" || strings.Contains(expr[j+1].s, "/") {
				return nil, false, false
			}
			n := expr[j+1].s
			if f.s == "-iname" {
				n = caseless(n)
			}
			names = append(names, n)
			branchHasName = true
			j++
		case "-empty":
			empty = true
			branchHasName = true // selects nothing that holds a setting
		default:
			j += findValues(f.s)
		}
	}
	if !branchHasName || len(names) == 0 && !empty {
		return nil, false, false
	}
	return names, empty, true
}

// caseless turns a name pattern's letters into [xX] classes (-iname).
func caseless(n string) string {
	var b strings.Builder
	inClass := false
	for _, r := range n {
		switch {
		case r == '[':
			inClass = true
		case r == ']':
			inClass = false
		case !inClass && unicode.IsLetter(r) && unicode.ToLower(r) != unicode.ToUpper(r):
			b.WriteString("[" + string(unicode.ToLower(r)) + string(unicode.ToUpper(r)) + "]")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// findValues are the find primaries that take arguments, and how many.
func findValues(p string) int {
	switch p {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
		"-regex", "-iregex", "-lname", "-ilname", "-regextype",
		"-user", "-group", "-uid", "-gid", "-perm", "-size", "-type", "-xtype",
		"-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-used",
		"-newer", "-anewer", "-cnewer", "-samefile", "-inum", "-links",
		"-fstype", "-context", "-maxdepth", "-mindepth", "-files0-from",
		"-printf", "-fprint", "-fprint0", "-fls":
		return 1
	case "-fprintf":
		return 2
	}
	return 0
}

// findExecDeletes reports an -exec command that deletes: rm, rmdir,
// unlink or shred, also behind sudo, env, command or busybox.
func findExecDeletes(argv []field) bool {
	for _, f := range argv {
		if !f.lit {
			return false
		}
		switch progName(f.s) {
		case "sudo", "env", "command", "busybox", "doas", "nice":
			continue
		case "rm", "rmdir", "unlink", "shred":
			return true
		}
		return false
	}
	return false
}

// grepPaths: the first operand is the pattern unless -e or -f gave one;
// the others and -f files are read.
func grepPaths(spec optSpec, args []field, add pathAdder) {
	opts, ops := spec.parse(args)
	for _, f := range values(opts, "-f", "--file", "--exclude-from") {
		add(f, call.OpRead)
	}
	if !has(opts, "-e", "--regexp", "-f", "--file", "--files") && len(ops) > 0 { // rg --files: no pattern
		ops = ops[1:]
	}
	for _, f := range ops {
		add(f, call.OpRead)
	}
}

func sourcePaths(args []field, add pathAdder) {
	if args = sourceOperands(args); len(args) > 0 {
		add(args[0], call.OpRead)
	}
}

func xxdPaths(args []field, add pathAdder) {
	_, ops := optSpec{short: "cglsoCn", long: []string{"-cols", "-groupsize", "-len", "-seek", "-name"}}.parse(args)
	for i, f := range ops {
		if f.lit && f.s == "-" {
			continue
		}
		if i == 1 {
			add(f, call.OpWrite)
		} else if i == 0 {
			add(f, call.OpRead)
		}
	}
}

func sortPaths(args []field, add pathAdder) {
	opts, ops := sortOpts.parse(args)
	for _, f := range values(opts, "-o", "--output") {
		add(f, call.OpWrite)
	}
	for _, f := range values(opts, "--files0-from") {
		add(f, call.OpRead) // its contents are named in error messages
	}
	for _, f := range ops {
		add(f, call.OpRead)
	}
}

// fileURLPath returns the local path of a literal file:// URL (file:///p,
// file://localhost/p), which curl reads like cat.
func fileURLPath(f field) (string, bool) {
	if !f.lit || len(f.s) < 7 || !strings.EqualFold(f.s[:7], "file://") {
		return "", false
	}
	h, tail, ok := strings.Cut(f.s[7:], "/")
	if !ok || !(h == "" || strings.EqualFold(h, "localhost")) {
		return "", false
	}
	if u, err := url.PathUnescape(tail); err == nil {
		tail = u
	}
	return "/" + tail, true
}

// curlPaths: -o and -c/-D write; -T, -K, @file data (-d, -F, --json,
// --data-urlencode, --url-query, -H, --variable) and file:// URLs are
// read. Options are read with curlOpts, the table quietNetwork and
// remoteNames use.
func curlPaths(args []field, add pathAdder) {
	opts, urls := curlArgs(args)
	for _, u := range urls {
		if p, ok := fileURLPath(u); ok {
			add(litField(p, u.pos), call.OpRead)
		}
	}
	for _, o := range opts {
		if o.val == nil {
			continue
		}
		v := *o.val
		switch o.name {
		case "-o", "--output", "-c", "--cookie-jar", "-D", "--dump-header", "--trace", "--trace-ascii", "--stderr",
			"--libcurl", "--etag-save", "--hsts", "--alt-svc":
			if !(v.lit && v.s == "-") {
				add(v, call.OpWrite)
			}
		case "-T", "--upload-file", "-K", "--config", "--netrc-file":
			if !(v.lit && v.s == "-") {
				add(v, call.OpRead)
			}
		case "-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "--url-query", "--json", "-F", "--form",
			"-H", "--header", "--proxy-header", "--variable":
			if !v.lit {
				continue
			}
			s := v.s
			switch o.name {
			case "-F", "--form":
				_, after, ok := strings.Cut(s, "=")
				if !ok {
					continue
				}
				if rest, ok := strings.CutPrefix(after, "<"); ok {
					after = "@" + rest
				}
				s = after
			case "--data-urlencode", "--url-query":
				if at := strings.IndexByte(s, '@'); at > 0 && !strings.Contains(s[:at], "=") {
					s = s[at:]
				}
			case "--variable":
				// [%]name@file (name[START-END]@file), or name=text.
				at := strings.IndexByte(s, '@')
				if eq := strings.IndexByte(s, '='); at < 0 || (eq >= 0 && eq < at) {
					continue
				}
				s = s[at:]
			}
			if f, ok := strings.CutPrefix(s, "@"); ok && f != "-" && f != "" {
				if semi := strings.IndexByte(f, ';'); semi >= 0 && (o.name == "-F" || o.name == "--form") {
					f = f[:semi]
				}
				add(litField(f, v.pos), call.OpRead)
			}
		}
	}
}

// wgetPaths: -O, -o, -a, -P and --save-cookies write; --post-file,
// --body-file, -i and --load-cookies are read. Options are read with
// wgetOpts, the table quietNetwork and remoteNames use.
func wgetPaths(args []field, add pathAdder) {
	opts, _ := wgetOpts.parse(args)
	for _, o := range opts {
		if o.val == nil || (o.val.lit && o.val.s == "-") {
			continue
		}
		switch o.name {
		case "-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P", "--directory-prefix", "--save-cookies":
			add(*o.val, call.OpWrite)
		case "--post-file", "--body-file", "-i", "--input-file", "--load-cookies":
			add(*o.val, call.OpRead)
		}
	}
}

// lessPaths: less's operands are read; -p PATTERN and the other valued
// options are not paths, -o/-O LOGFILE is written.
func lessPaths(args []field, add pathAdder) {
	opts, ops := optSpec{short: "bhjkopOPTtxyz#", long: []string{"--pattern", "--tag", "--log-file",
		"--LOG-FILE", "--prompt", "--tag-file", "--tabs", "--max-back-scroll", "--window", "--buffers",
		"--max-forw-scroll", "--jump-target", "--lesskey-file", "--shift"}}.parse(args)
	for _, f := range values(opts, "-o", "-O", "--log-file", "--LOG-FILE") {
		add(f, call.OpWrite)
	}
	for _, f := range values(opts, "-k", "--lesskey-file", "-T", "--tag-file") {
		add(f, call.OpRead)
	}
	for _, f := range ops {
		add(f, call.OpRead)
	}
}

// awkPaths: the program is the first operand unless -f gave one (-f files
// are read); var=value operands are assignments; the other operands are
// read, or written under gawk -i inplace.
func awkPaths(args []field, add pathAdder) {
	opts, ops := awkOpts.parse(args)
	files := values(opts, "-f", "--file")
	for _, f := range files {
		add(f, call.OpRead)
	}
	if len(files) == 0 && len(ops) > 0 {
		awkFiles(ops[0], add)
		ops = ops[1:]
	}
	op := call.OpRead
	for _, f := range values(opts, "-i", "--include") {
		if !f.lit || strings.TrimSuffix(f.s, ".awk") == "inplace" {
			op = call.OpWrite
		}
	}
	for _, f := range ops {
		if f.lit && isAssignment(f.s) {
			continue
		}
		add(f, op)
	}
}

// linkPaths: link FILE1 FILE2 makes FILE2 a hard link to FILE1 (no
// options but --help and --version): FILE1 is read like ln's source,
// FILE2 written — a write through the link is a write of FILE1, which
// the hard-link rules see by the source.
func linkPaths(args []field, add pathAdder) {
	_, ops := optSpec{}.parse(args)
	if len(ops) != 2 {
		return
	}
	add(ops[1], call.OpWrite)
	add(ops[0], call.OpRead)
}

// patchPaths: patch [ORIGFILE [PATCHFILE]] rewrites ORIGFILE in place (or
// -o FILE), reads PATCHFILE (or -i FILE) and writes rejects (-r FILE).
// Without ORIGFILE the files are the ones the patch names, which the
// analysis does not read (docs/defaults.md, known limits). -d DIR runs it
// from DIR: the operands are then DIR's.
func patchPaths(args []field, add pathAdder) {
	opts, ops := patchOpts.parse(args)
	dir := values(opts, "-d", "--directory")
	in := func(f field) field {
		if len(dir) == 0 || !f.lit || strings.HasPrefix(f.s, "/") {
			return f
		}
		d := dir[len(dir)-1]
		if !d.lit {
			return d // somewhere only known at run time
		}
		return litField(path.Join(d.s, f.s), f.pos)
	}
	if has(opts, "--dry-run") {
		return
	}
	for _, f := range values(opts, "-o", "--output", "-r", "--reject-file") {
		if !f.lit || f.s != "-" {
			add(in(f), call.OpWrite)
		}
	}
	for _, f := range values(opts, "-i", "--input") {
		add(in(f), call.OpRead)
	}
	if len(ops) > 0 && len(values(opts, "-o", "--output")) == 0 {
		add(in(ops[0]), call.OpWrite)
	}
	if len(ops) > 1 {
		add(in(ops[1]), call.OpRead)
	}
}

// splitPaths: split [FILE [PREFIX]] and csplit -f PREFIX FILE PATTERN…
// write PREFIX followed by a suffix they choose (split -a 1 -n 14 x
// settings.jso writes settings.json): the write is reported on PREFIX's
// directory, which holds every file they make ("." for the default
// prefix). FILE is read (readers.go).
func splitPaths(name string, args []field, add pathAdder) {
	spec, _ := lookup(readerTable, name)
	opts, ops := spec.opts.parse(args)
	if name == "split" && len(values(opts, "--filter")) > 0 {
		return // the pieces go to the command (execopts.go), not to files
	}
	var prefix field
	switch {
	case name == "csplit":
		p := values(opts, "-f", "--prefix")
		if len(p) == 0 {
			add(litField(".", syntax.Pos{}), call.OpWrite)
			return
		}
		prefix = p[len(p)-1]
	case len(ops) >= 2:
		prefix = ops[1]
	default:
		add(litField(".", syntax.Pos{}), call.OpWrite)
		return
	}
	if !prefix.lit {
		add(prefix, call.OpWrite) // known at run time: the resolver says what it can
		return
	}
	add(litField(path.Dir(prefix.s), prefix.pos), call.OpWrite)
}
