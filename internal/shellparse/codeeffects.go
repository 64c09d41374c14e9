package shellparse

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// What interpreter code does besides running shell commands (codecalls.go)
// and opening files (inline_paths.go), found by the same lexical scan
// (issue 33):
//
//   - library calls that delete trees, link, rename or copy are given as
//     the shell commands that do the same (rm -rf --, ln -s --, mv --,
//     cp -r --), labelled "NAME code", so the rules for those commands
//     (the root and the home directory, the guard's own files) judge
//     them. A recursive delete of a path the code builds at run time (a
//     variable, a glob's results) is Dynamic: settings.on_dynamic;
//   - effects on the interpreter's command (Command.Effects):
//     network-send for a request, sends-secret when the code also reads
//     a credential-named environment variable or the whole environment,
//     runs-remote-code when it evaluates what it fetches.
//
// Only literal arguments (and the home directory spelled through the
// environment: codehome.go) are paths; the scan does not follow
// variables.

type codeOpKind int

const (
	codeRmTree codeOpKind = iota
	codeLink
	codeMove
	codeCopy
	codeCopyTree
)

// codeOps are the library calls per language; a name with a dot matches
// exactly, one without also as the last member of a chain
// (require('fs').rmSync, fs.promises.rm).
var codeOps = sync.OnceValue(func() map[string]map[string]codeOpKind {
	return map[string]map[string]codeOpKind{
		"python": {
			"shutil.rmtree": codeRmTree, "rmtree": codeRmTree,
			"os.symlink": codeLink, "os.link": codeLink,
			"os.rename": codeMove, "os.replace": codeMove, "shutil.move": codeMove, "os.renames": codeMove,
			"shutil.copy": codeCopy, "shutil.copy2": codeCopy, "shutil.copyfile": codeCopy, "shutil.copytree": codeCopyTree,
		},
		"node": {
			"rmSync": codeRmTree, "rimraf": codeRmTree, "rimrafSync": codeRmTree, "Deno.remove": codeRmTree, "Deno.removeSync": codeRmTree,
			"symlinkSync": codeLink, "symlink": codeLink, "linkSync": codeLink, "Deno.symlink": codeLink, "Deno.symlinkSync": codeLink,
			"renameSync": codeMove, "Deno.rename": codeMove, "Deno.renameSync": codeMove,
			"copyFileSync": codeCopy, "copyFile": codeCopy, "cpSync": codeCopyTree, "Deno.copyFile": codeCopy,
		},
		"ruby": {
			"FileUtils.rm_rf": codeRmTree, "FileUtils.rm_r": codeRmTree, "FileUtils.remove_dir": codeRmTree, "FileUtils.remove_entry": codeRmTree,
			"FileUtils.rmtree": codeRmTree, "FileUtils.remove_entry_secure": codeRmTree,
			"File.symlink": codeLink, "File.link": codeLink, "FileUtils.ln_s": codeLink, "FileUtils.ln_sf": codeLink, "FileUtils.ln": codeLink,
			"File.rename": codeMove, "FileUtils.mv": codeMove, "FileUtils.move": codeMove,
			"FileUtils.cp": codeCopy, "FileUtils.copy": codeCopy, "FileUtils.cp_r": codeCopyTree, "FileUtils.copy_entry": codeCopyTree,
		},
		"perl": {
			"remove_tree": codeRmTree, "rmtree": codeRmTree, "File::Path::remove_tree": codeRmTree, "File::Path::rmtree": codeRmTree,
			"symlink": codeLink, "link": codeLink,
			"rename": codeMove, "move": codeMove, "File::Copy::move": codeMove,
			"copy": codeCopy, "File::Copy::copy": codeCopy, "dircopy": codeCopyTree,
		},
		"php": {
			"symlink": codeLink, "link": codeLink, "rename": codeMove, "copy": codeCopy,
		},
	}
})

// codeEffects analyzes the inline code of command idx (run by name) for
// the calls above and sets its Effects.
func (a *analyzer) codeEffects(idx int, name, code string, x runCtx) {
	lang := interpreter(name)
	if lang == "deno" {
		lang = "node"
	}
	ops := codeOps()[lang]
	wx := x.with(name + " code")
	emitted := 0
	for i := 0; i < len(code) && a.err == nil && len(ops) > 0; i++ {
		c := code[i]
		if !isIdentStart(c) || (i > 0 && (isIdentChar(code[i-1]) || code[i-1] == '$' || code[i-1] == '@' || code[i-1] == '>')) {
			continue
		}
		j := i
		for j < len(code) && (isIdentChar(code[j]) || code[j] == '.' || code[j] == ':') {
			j++
		}
		word := code[i:j]
		i = j - 1
		kind, ok := ops[word]
		if !ok {
			if k := strings.LastIndexByte(word, '.'); k >= 0 && lang == "node" {
				kind, ok = ops[word[k+1:]]
			}
		}
		if !ok || emitted >= 16 {
			continue
		}
		args, end := codeCallArgs(code[j:], lang)
		if len(args) == 0 {
			continue
		}
		paths := make([]string, 0, 2)
		known := true
		for n, ar := range args {
			if n >= 2 || (kind == codeRmTree && n >= 1) {
				break
			}
			switch {
			case ar.lit:
				paths = append(paths, ar.s)
			default:
				if h, ok := codeHomeArg(ar.s, false, a.opts.Home); ok {
					paths = append(paths, h)
				} else if h, ok := codeHomeArg(strings.ReplaceAll(ar.s, "require('os').", "os."), false, a.opts.Home); ok {
					paths = append(paths, h)
				} else {
					known = false
				}
			}
		}
		if kind == codeRmTree && lang == "node" && strings.HasSuffix(word, "rmSync") && !strings.Contains(code[j:j+end], "recursive") {
			continue // fs.rmSync(file): one file, inline_paths.go reports it
		}
		emitted++
		var argv []string
		switch kind {
		case codeRmTree:
			if !known {
				e := j + end
				a.emit(Command{Dynamic: true, DynamicText: strings.TrimSpace(code[i-len(word)+1 : e]), Wrappers: wx.wrappers, Sources: x.srcs, Pos: x.pos})
				continue
			}
			argv = []string{"rm", "-rf", "--"}
		case codeLink:
			argv = []string{"ln", "-s", "--"}
		case codeMove:
			argv = []string{"mv", "--"}
		case codeCopy:
			argv = []string{"cp", "--"}
		case codeCopyTree:
			argv = []string{"cp", "-r", "--"}
		}
		if !known || len(paths) == 0 || (kind != codeRmTree && len(paths) < 2) {
			continue
		}
		fs := make([]field, 0, len(argv)+len(paths))
		for _, s := range append(argv, paths...) {
			fs = append(fs, litField(s, syntax.Pos{}))
		}
		a.run(fs, wx)
	}
	if idx < len(a.cmds) {
		a.cmds[idx].Effects = codeCallEffects(lang, code)
	}
}

var (
	codeNetwork = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(urlopen|urllib\.request|requests\.(get|post|put|patch|request)|httpx\.|http\.client|aiohttp|fetch\s*\(|https?\.(request|get)\s*\(|axios|XMLHttpRequest|Net::HTTP|URI\.open|open-uri|LWP|HTTP::Tiny|curl_exec|curl_init|file_get_contents\s*\(\s*["']https?:|fsockopen|socket\.(socket|create_connection)|Deno\.connect|WebSocket)`)
	})
	codeSecretEnv = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(environ(\.get)?\s*[\[(]\s*["'][a-z0-9_]*(key|token|secret|passw|pwd|cred|auth)|getenv\s*\(\s*["'][a-z0-9_]*(key|token|secret|passw|pwd|cred|auth)|env\.[a-z0-9_]*(key|token|secret|passw|pwd|cred|auth)|env\[\s*["'][a-z0-9_]*(key|token|secret|passw|pwd|cred|auth)|\$ENV\{\s*["']?[a-z0-9_]*(key|token|secret|passw|pwd|cred|auth)|Deno\.env\.get\(\s*["'][a-z0-9_]*(key|token|secret|passw|pwd|cred|auth)|dict\(\s*os\.environ\s*\)|json\.dumps\(\s*(dict\()?os\.environ|JSON\.stringify\(\s*process\.env\s*\)|Deno\.env\.toObject|ENV\.to_h|getenv\(\s*\))`)
	})
	codeEval = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\bexec\s*\(|\beval\s*\(|new\s+Function\s*\(|\bFunction\s*\(|instance_eval|Invoke-Expression|\biex\b|\bload\s*\(|\brequire\s*\(\s*["']https?:|\bimport\s*\(\s*["']https?:|\bcompile\s*\()`)
	})
)

// codeCallEffects are the effects of inline code as a whole.
func codeCallEffects(lang, code string) []string {
	if lang == "awk" || lang == "" {
		return nil
	}
	var out []string
	net := codeNetwork().MatchString(code)
	if net {
		out = append(out, "network-send")
		if codeSecretEnv().MatchString(code) {
			out = append(out, "sends-secret")
		}
		if codeEval().MatchString(code) {
			out = append(out, "runs-remote-code")
		}
	}
	return out
}

// codeCallArgs splits the arguments of a call at the start of s (after
// blanks): "(" … ")", or for Perl and Ruby also without parentheses up to
// the end of the statement. Commas inside brackets and strings do not
// split; an argument is literal when it folds to a string as a whole
// (codefold.go). At most 4 arguments; end is where the call ends.
func codeCallArgs(s, lang string) ([]arg, int) {
	i := skipSpace(s, 0)
	paren := i < len(s) && s[i] == '('
	if paren {
		i++
	} else if lang != "perl" && lang != "ruby" {
		return nil, 0
	}
	var out []arg
	depth, start := 0, i
	piece := func(end int) {
		t := strings.TrimSpace(s[start:end])
		if t == "" {
			return
		}
		if v, e, ok, whole := foldString(t, 0, lang); ok && whole && e == len(t) {
			lit := !(t[0] == '"' && (lang == "perl" || lang == "ruby" || lang == "php") && strings.ContainsAny(v, "$@#{")) // interpolation
			out = append(out, arg{s: v, lit: lit})
			return
		}
		out = append(out, arg{s: t})
	}
	for ; i < len(s) && len(out) < 4; i++ {
		switch c := s[i]; c {
		case '\'', '"', '`':
			if _, e, ok := readString(s, i, lang); ok {
				i = e - 1
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				piece(i)
				return out, i + 1
			}
			depth--
		case ',':
			if depth == 0 {
				piece(i)
				start = i + 1
			}
		case ';', '\n':
			if depth == 0 && !paren {
				piece(i)
				return out, i
			}
		}
	}
	piece(min(i, len(s)))
	return out, i
}
