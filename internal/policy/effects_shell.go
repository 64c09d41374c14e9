package policy

import (
	"path"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/knowledge"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// shellStringEffects finds, over one command string's commands (before
// their targets are made), the runs-remote-code effects that need more
// than one command to see:
//
//   - running code from a directory or file the same string fetched
//     (git clone URL d && ./d/install.sh, cd d && make, sh d/setup.sh,
//     pip install ./d, curl -o x.sh … && bash x.sh);
//   - writing a build file (buildFile: Makefile, package.json, setup.py,
//     git hooks, .husky/ …) with content that fetches and runs code
//     (fetchRun over the string's text: echo/printf arguments, heredoc
//     bodies, sed replacements), or with content the string cannot show
//     (a download, a copy from outside the workspace or from a fetched
//     directory).
//
// It returns the commands that have the effect, by index.
func shellStringEffects(src string, cmds []shellparse.Command, ev *evalEnv) map[int]bool {
	var out map[int]bool
	mark := func(i int) {
		if out == nil {
			out = map[int]bool{}
		}
		out[i] = true
	}
	var fetched []string // directories and files the string fetched
	fetchedAny := false
	inFetched := func(p string) bool {
		for _, f := range fetched {
			if _, in := relInside(f, p); in {
				return true
			}
		}
		return false
	}
	text := "" // the string and its commands' normalized lines, built on first need
	for i := range cmds {
		cmd := &cmds[i]
		if cmd.Dynamic {
			continue
		}
		if fetches(cmd, fetchedAny) {
			fetchedAny = true
			n := len(fetched)
			for _, p := range cmd.Paths {
				if p.Op == call.OpWrite && !p.Dynamic && !p.Pattern {
					fetched = append(fetched, p.Path)
				}
			}
			if len(fetched) == n && cmd.Name == "gh" && len(cmd.Args) >= 3 && cmd.Dir != "" {
				// gh repo clone OWNER/REPO [DIR]
				d := path.Base(cmd.Args[2])
				if len(cmd.Args) >= 4 && !strings.HasPrefix(cmd.Args[3], "-") {
					d = cmd.Args[3]
				}
				if !path.IsAbs(d) {
					d = path.Join(cmd.Dir, d)
				}
				fetched = append(fetched, path.Clean(d))
			}
		} else if len(fetched) > 0 && runsFrom(cmd, inFetched) {
			mark(i)
		}
		for _, p := range cmd.Paths {
			if p.Op != call.OpWrite || !buildFile(p.Path) {
				continue
			}
			if text == "" {
				var b strings.Builder
				b.WriteString(src)
				for j := range cmds {
					b.WriteByte('\n')
					b.WriteString(cmds[j].Line())
				}
				text = b.String()
				// printf and sed escapes: \tcurl is a tab and curl
				text += "\n" + strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\/`, "/").Replace(text)
			}
			if fetchRun().MatchString(text) || unknownContent(cmd, ev, inFetched) {
				mark(i)
			}
			break
		}
	}
	return out
}

// fetches reports a command that puts code from the network on disk:
// a clone, a download, or an archive unpacked after (or from) one.
func fetches(cmd *shellparse.Command, after bool) bool {
	switch cmd.Name {
	case "git", "hg", "jj":
		return firstWord(cmd.Args) == "clone"
	case "gh":
		return len(cmd.Args) >= 2 && cmd.Args[0] == "repo" && cmd.Args[1] == "clone"
	case "svn":
		w := firstWord(cmd.Args)
		return w == "checkout" || w == "co" || w == "export"
	case "curl", "wget", "aria2c":
		for _, a := range cmd.Args {
			if strings.Contains(a, "://") && !strings.HasPrefix(strings.ToLower(a), "file://") {
				return true
			}
		}
		return false // a file:// copy, or no URL the string shows
	case "degit", "tiged":
		return true
	case "tar", "bsdtar", "unzip", "7z", "7za", "gunzip", "unxz":
		if after {
			return true
		}
		for _, s := range cmd.Sources {
			if s.Class == shellparse.SourceNetwork || s.Class == shellparse.SourceDownload {
				return true
			}
		}
	}
	return false
}

func firstWord(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// runsFrom reports a command that runs code from a fetched place: its
// program is there, it builds or installs there, or it hands a script or
// a package there to an interpreter or an installer.
func runsFrom(cmd *shellparse.Command, in func(string) bool) bool {
	if cmd.Prog != "" && in(cmd.Prog) {
		return true
	}
	name := cmd.Name
	if readOnlySub(name, firstWord(cmd.Args)) {
		return false
	}
	if cmd.Dir != "" && in(cmd.Dir) && buildRunner(name) {
		return true
	}
	if interpreter(name) {
		for _, p := range cmd.Paths {
			if p.Op == call.OpRead && in(p.Path) {
				return true
			}
		}
	}
	if installer(name) {
		for _, a := range cmd.Args {
			a = strings.TrimPrefix(strings.TrimPrefix(a, "--path="), "file:")
			if a == "" || strings.HasPrefix(a, "-") || strings.Contains(a, "://") {
				continue
			}
			p := a
			if !path.IsAbs(p) {
				if cmd.Dir == "" {
					continue
				}
				p = path.Join(cmd.Dir, p)
			}
			if in(p) {
				return true
			}
		}
	}
	return false
}

func buildRunner(name string) bool {
	switch name {
	case "make", "gmake", "cmake", "ninja", "meson", "just", "rake", "npm", "pnpm", "yarn", "bun", "npx", "bunx", "deno",
		"pip", "pip3", "pipx", "uv", "poetry", "pipenv", "tox", "nox", "pre-commit", "cargo", "go", "gradle", "gradlew",
		"mvn", "mvnw", "ant", "sbt", "composer", "bundle", "gem", "mix", "dotnet", "swift", "autoreconf", "bazel",
		"sh", "bash", "zsh", "dash", "node", "ruby", "perl", "php", "source", ".":
		return true
	}
	return strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pip3.")
}

// readOnlySub reports a package manager's subcommand that reads the
// project without running its code (npm view in a fresh clone).
func readOnlySub(name, sub string) bool {
	switch name {
	case "npm", "pnpm", "yarn", "bun":
		switch sub {
		case "view", "info", "show", "ls", "list", "outdated", "audit", "search", "help", "config", "whoami", "why", "explain", "":
			return true
		}
	case "pip", "pip3", "uv", "poetry", "pipenv":
		switch sub {
		case "list", "show", "freeze", "check", "help", "tree", "":
			return true
		}
	case "cargo", "go":
		switch sub {
		case "tree", "metadata", "search", "version", "list", "env", "doc", "help", "":
			return true
		}
	}
	return false
}

func interpreter(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "source", ".", "node", "bun", "deno", "ruby", "perl", "php", "make", "gmake", "just":
		return true
	}
	return strings.HasPrefix(name, "python")
}

func installer(name string) bool {
	switch name {
	case "pip", "pip3", "uv", "pipx", "npm", "pnpm", "yarn", "bun", "cargo", "gem", "go", "make", "gmake", "cmake":
		return true
	}
	return strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pip3.")
}

// unknownContent reports a build-file write whose content the string
// does not show: a download, content from the network, or a copy from
// outside the workspace or from a fetched place.
func unknownContent(cmd *shellparse.Command, ev *evalEnv, inFetched func(string) bool) bool {
	switch cmd.Name {
	case "curl", "wget", "aria2c", "http", "xh", "scp", "sftp", "rsync", "nc", "ncat":
		return true
	}
	for _, s := range cmd.Sources {
		if s.Class == shellparse.SourceNetwork || s.Class == shellparse.SourceDownload {
			return true
		}
	}
	switch cmd.Name {
	case "cp", "mv", "install", "ln", "dd", "cat":
		for _, p := range cmd.Paths {
			if p.Op != call.OpRead {
				continue
			}
			if _, in := relInside(ev.workspace, p.Path); p.Dynamic || inFetched(p.Path) || ev.workspace == "" || !in {
				return true
			}
		}
	}
	return false
}

// stringEffect is the effect shellStringEffects gives a command.
const stringEffect = knowledge.RunsRemoteCode
