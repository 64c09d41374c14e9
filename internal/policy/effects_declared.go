package policy

import (
	"encoding/json"
	"errors"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/shellparse"
)

// runnerDeclared reports whether every package a package runner would
// fetch (npx, bunx, pnpm dlx, yarn dlx, npm exec, uvx, pipx run, go run
// MODULE@VERSION) is one the project declares or installs: a programs.toml
// entry with declared = "npm", "python" or "go" gives its effect only when
// this is false. The project is the call's directory and its parents up to
// the workspace root; its manifests are read through Env.ReadScript (what
// the agent may read itself, bounded). Whatever cannot be read or parsed
// is not declared: the runner asks.
//
// A package is named, never located: a URL, a git or npm: alias, a path
// (other than the project's own node_modules/.bin) or a spec with shell
// syntax left in it is never declared. A declared name at another version
// (npx prettier@latest) is declared: the name is the project's choice.
func runnerDeclared(eco string, cmd *shellparse.Command, ev *evalEnv) bool {
	if ev.readScript == nil {
		return false
	}
	for _, e := range cmd.Env {
		n, _, _ := strings.Cut(e, "=")
		n = strings.ToUpper(n)
		if strings.HasPrefix(n, "NPM_CONFIG_REGISTRY") || strings.HasPrefix(n, "NPM_CONFIG_@") || strings.HasPrefix(n, "UV_INDEX") ||
			strings.HasPrefix(n, "UV_EXTRA_INDEX") || strings.HasPrefix(n, "UV_DEFAULT_INDEX") || strings.HasPrefix(n, "UV_FIND_LINKS") ||
			strings.HasPrefix(n, "PIP_INDEX") || strings.HasPrefix(n, "PIP_EXTRA_INDEX") || strings.HasPrefix(n, "PIP_FIND_LINKS") ||
			n == "GOPROXY" || n == "GOFLAGS" || n == "GONOSUMDB" || n == "GONOSUMCHECK" || n == "GOSUMDB" || n == "GOINSECURE" {
			return false // another registry or index than the project's
		}
	}
	dirs := ev.projectDirs(cmd.Dir)
	if len(dirs) == 0 {
		return false
	}
	switch eco {
	case "npm":
		pkgs, bin, ok := npmRunnerSpecs(cmd)
		if !ok {
			return false
		}
		for _, p := range pkgs {
			if !npmDeclaredName(p, bin, cmd.Dir, dirs, ev) {
				return false
			}
		}
		return true
	case "python":
		pkgs, ok := pyRunnerSpecs(cmd)
		if !ok {
			return false
		}
		for _, p := range pkgs {
			if !pyDeclaredName(p, dirs, ev) {
				return false
			}
		}
		return true
	case "go":
		return goRunDeclared(cmd, dirs, ev)
	}
	return false
}

// projectDirs are the command's directory (dir: after the string's
// literal cds; else the call's) and its parents up to the workspace root
// (at most 8), or that directory alone when it is outside the workspace.
func (e *evalEnv) projectDirs(dir string) []string {
	d := dir
	if d == "" {
		d = e.cwd
	}
	if d == "" {
		d = e.workspace
	}
	if d == "" || !filepath.IsAbs(d) {
		return nil
	}
	d = filepath.Clean(d)
	if e.workspace == "" || e.exposed {
		return []string{d}
	}
	if _, in := relInside(e.workspace, d); !in {
		return []string{d}
	}
	var out []string
	for i := 0; i < 8; i++ {
		out = append(out, d)
		if d == e.workspace {
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return out
}

// readProject reads dir/rel; ok is false for a missing or unreadable file.
func (e *evalEnv) readProject(dir, rel string) (string, bool) {
	t, err := e.readScript(filepath.Join(dir, rel))
	return t, err == nil
}

// existsProject reports a file there: one too large or not a script
// (any error but ErrNoScript) is there too.
func (e *evalEnv) existsProject(dir, rel string) bool {
	_, err := e.readScript(filepath.Join(dir, rel))
	return err == nil || !errors.Is(err, shellparse.ErrNoScript)
}

// runnerArgs returns the arguments after the runner's subcommand word
// (npm exec, pnpm dlx, uv tool run, pipx run, bun x), or all of them (npx,
// bunx, uvx, pnpx).
func runnerArgs(cmd *shellparse.Command, subs ...string) ([]string, bool) {
	for i, a := range cmd.Args {
		for _, s := range subs {
			if a == s {
				if s == "tool" && (i+1 >= len(cmd.Args) || cmd.Args[i+1] != "run") {
					return nil, false
				}
				if s == "tool" {
					return cmd.Args[i+2:], true
				}
				return cmd.Args[i+1:], true
			}
		}
		if !strings.HasPrefix(a, "-") {
			return nil, false // another subcommand
		}
	}
	return nil, false
}

// npmRunnerSpecs returns the package specs an npm-family runner fetches
// and, when it runs the first word as both package and program, that
// word (bin). ok is false for a form it does not know (-c, --call, a
// --registry).
func npmRunnerSpecs(cmd *shellparse.Command) (pkgs []string, bin string, ok bool) {
	args := cmd.Args
	switch cmd.Name {
	case "npx", "bunx", "pnpx":
	case "npm":
		if args, ok = runnerArgs(cmd, "exec", "x"); !ok {
			return nil, "", false
		}
	case "pnpm", "yarn":
		if args, ok = runnerArgs(cmd, "dlx"); !ok {
			return nil, "", false
		}
	case "bun":
		if args, ok = runnerArgs(cmd, "x"); !ok {
			return nil, "", false
		}
	default:
		return nil, "", false
	}
	first := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				first = args[i+1]
			}
			i = len(args)
		case strings.HasPrefix(a, "-p="):
			pkgs = append(pkgs, strings.TrimPrefix(a, "-p="))
		case a == "-p" || a == "--package":
			if i+1 >= len(args) {
				return nil, "", false
			}
			pkgs = append(pkgs, args[i+1])
			i++
		case strings.HasPrefix(a, "--package="):
			pkgs = append(pkgs, strings.TrimPrefix(a, "--package="))
		case a == "-c" || a == "--call" || strings.HasPrefix(a, "--call=") || strings.HasPrefix(a, "--registry"):
			return nil, "", false
		case a == "-w" || a == "--workspace" || a == "--prefix":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			first = a
			i = len(args)
		}
	}
	if len(pkgs) > 0 {
		return pkgs, "", true // the first word is a program of those packages
	}
	if first == "" {
		return nil, "", false
	}
	return []string{first}, first, true
}

var (
	npmName = regexp.MustCompile(`^(@[a-zA-Z0-9~-][a-zA-Z0-9._~-]*/)?[a-zA-Z0-9~-][a-zA-Z0-9._~-]*$`)
	npmVer  = regexp.MustCompile(`^[a-zA-Z0-9.^~<>=*|+ -]*$`)
)

// npmDeclaredName reports whether spec (name or name@version) is in a
// project directory's package.json dependencies, its lockfile or its
// node_modules; bin, when spec is run as a program too and carries no
// version, may be a program the project's node_modules/.bin holds.
func npmDeclaredName(spec, bin, cmdDir string, dirs []string, ev *evalEnv) bool {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || strings.HasPrefix(spec, "/") {
		// a path: only a program the project's own node_modules holds
		for _, d := range dirs {
			p := filepath.Clean(filepath.Join(ev.cwdOr(cmdDir, d), spec))
			if r, in := relInside(filepath.Join(d, "node_modules", ".bin"), p); in && r != "." && !strings.Contains(r, "/") {
				return ev.existsProject(d, filepath.Join("node_modules", ".bin", r))
			}
		}
		return false
	}
	name, ver := spec, ""
	if at := strings.LastIndex(spec, "@"); at > 0 {
		name, ver = spec[:at], spec[at+1:]
	}
	if !npmName.MatchString(name) || !npmVer.MatchString(ver) {
		return false // a URL, a git remote, user/repo, an npm: alias, shell syntax
	}
	for _, d := range dirs {
		if bin != "" && ver == "" && ev.existsProject(d, filepath.Join("node_modules", ".bin", bin)) {
			return true
		}
		if ev.existsProject(d, filepath.Join("node_modules", name, "package.json")) {
			return true
		}
		if t, ok := ev.readProject(d, "package.json"); ok && packageJSONDeclares(t, name) {
			return true
		}
		if t, ok := ev.readProject(d, "package-lock.json"); ok && strings.Contains(t, `"node_modules/`+name+`"`) {
			return true
		}
		if t, ok := ev.readProject(d, "yarn.lock"); ok && (strings.Contains(t, "\n"+name+"@") || strings.Contains(t, "\n\""+name+"@")) {
			return true
		}
		if t, ok := ev.readProject(d, "pnpm-lock.yaml"); ok && (strings.Contains(t, "\n  "+name+":") || strings.Contains(t, "\n  '"+name+"':") || strings.Contains(t, "/"+name+"@")) {
			return true
		}
	}
	return false
}

func (e *evalEnv) cwdOr(cmdDir, d string) string {
	if cmdDir != "" {
		return cmdDir
	}
	if e.cwd != "" {
		return e.cwd
	}
	return d
}

// packageJSONDeclares reports name among package.json's dependency keys.
func packageJSONDeclares(text, name string) bool {
	var m struct {
		D  map[string]json.RawMessage `json:"dependencies"`
		DD map[string]json.RawMessage `json:"devDependencies"`
		OD map[string]json.RawMessage `json:"optionalDependencies"`
		PD map[string]json.RawMessage `json:"peerDependencies"`
	}
	if json.Unmarshal([]byte(text), &m) != nil {
		return false
	}
	for _, d := range []map[string]json.RawMessage{m.D, m.DD, m.OD, m.PD} {
		if _, ok := d[name]; ok {
			return true
		}
	}
	return false
}

// pyRunnerSpecs returns the packages uvx / uv tool run / pipx run fetch:
// --from/--spec/--with values and, without --from/--spec, the program
// word itself.
func pyRunnerSpecs(cmd *shellparse.Command) ([]string, bool) {
	args := cmd.Args
	var ok bool
	switch cmd.Name {
	case "uvx":
	case "uv":
		if args, ok = runnerArgs(cmd, "tool"); !ok {
			return nil, false
		}
	case "pipx":
		if args, ok = runnerArgs(cmd, "run"); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	var pkgs []string
	from, first := false, ""
	value := map[string]bool{"--from": true, "--spec": true, "--with": true, "--with-editable": true}
	skip := map[string]bool{"--python": true, "-p": true, "--pip-args": true, "--with-requirements": true, "--constraints": true, "-c": true, "--overrides": true, "--directory": true, "--project": true, "--cache-dir": true, "--config-file": true, "--env-file": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, v, eq := strings.Cut(a, "=")
		switch {
		case a == "--":
			if i+1 < len(args) {
				first = args[i+1]
			}
			i = len(args)
		case value[name]:
			if !eq {
				if i+1 >= len(args) {
					return nil, false
				}
				v = args[i+1]
				i++
			}
			pkgs = append(pkgs, v)
			from = from || name == "--from" || name == "--spec"
		case skip[name]:
			if !eq {
				i++
			}
		case strings.HasPrefix(name, "--index") || strings.HasPrefix(name, "--extra-index") || name == "--default-index" || name == "--find-links" || name == "-f" || name == "-i":
			return nil, false // another index: not the project's
		case strings.HasPrefix(a, "-"):
		default:
			first = a
			i = len(args)
		}
	}
	if !from {
		if first == "" {
			return nil, false
		}
		pkgs = append(pkgs, first)
	}
	return pkgs, true
}

var (
	pySpec = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9._,-]*\])?(([=<>!~]=?|@)[A-Za-z0-9.*+!,<>=~-]*)?$`)
	pySep  = regexp.MustCompile(`[-_.]+`)
	// a requirement line's name; a pyproject.toml dependency string's name; a lockfile's name = "…"
	pyReqName  = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z0-9][A-Za-z0-9._-]*)`)
	pyDepName  = regexp.MustCompile(`["']([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])? ?[=<>!~;@,"']`)
	pyLockName = regexp.MustCompile(`(?m)^name = "([A-Za-z0-9][A-Za-z0-9._-]*)"`)
)

func pyNorm(s string) string { return strings.ToLower(pySep.ReplaceAllString(s, "-")) }

// pyDeclaredName reports whether spec (name, name==1.0, name@latest,
// name[extra]) is named in a project directory's pyproject.toml,
// requirements files, uv.lock or poetry.lock, or installed in its .venv.
func pyDeclaredName(spec string, dirs []string, ev *evalEnv) bool {
	m := pySpec.FindStringSubmatch(spec)
	if m == nil {
		return false // a URL, git+…, a path, a wheel
	}
	name := pyNorm(m[1])
	for _, d := range dirs {
		if ev.existsProject(d, filepath.Join(".venv", "bin", m[1])) {
			return true
		}
		for _, f := range []string{"pyproject.toml", "requirements.txt", "requirements-dev.txt", "requirements-test.txt", "dev-requirements.txt", "uv.lock", "poetry.lock"} {
			t, ok := ev.readProject(d, f)
			if !ok {
				continue
			}
			re := pyReqName
			switch f {
			case "pyproject.toml":
				re = pyDepName
			case "uv.lock", "poetry.lock":
				re = pyLockName
			}
			for _, tm := range re.FindAllStringSubmatch(t, -1) {
				if pyNorm(tm[1]) == name {
					return true
				}
			}
		}
	}
	return false
}

var goRequire = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:require\s+)?([a-zA-Z0-9][a-zA-Z0-9._~/-]*\.[a-zA-Z0-9._~/-]+)\s+v[0-9]`)
})

// goRunDeclared reports whether every PKG@VERSION that go run names is
// inside a module the project's go.mod requires.
func goRunDeclared(cmd *shellparse.Command, dirs []string, ev *evalEnv) bool {
	var want []string
	for _, a := range cmd.Args {
		if p, _, ok := strings.Cut(a, "@"); ok && !strings.HasPrefix(a, "-") {
			if strings.ContainsAny(p, ":$`\\ ") || p == "" {
				return false
			}
			want = append(want, path.Clean(p))
		}
	}
	if len(want) == 0 {
		return false
	}
	var mods []string
	for _, d := range dirs {
		if t, ok := ev.readProject(d, "go.mod"); ok {
			for _, m := range goRequire().FindAllStringSubmatch(t, -1) {
				mods = append(mods, m[1])
			}
		}
	}
	for _, w := range want {
		found := false
		for _, m := range mods {
			found = found || w == m || strings.HasPrefix(w, m+"/")
		}
		if !found {
			return false
		}
	}
	return true
}
