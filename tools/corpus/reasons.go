package main

import "strings"

// Why toolguard decides differently from a peer, for docs/corpus.md. A
// block the peer expects and toolguard passes is explained by the record's
// category; an allow toolguard flags, by the rule or cause that decided.

var missReasons = []struct{ category, reason string }{
	{"config-count", "git configuration from GIT_CONFIG_* environment variables is not visible to rules (assignments are not arguments)"},
	{"analyzeGit direct", "git aliases defined through environment variables are not visible to rules"},
	{"git ssh environment", "GIT_SSH*/GIT_CONFIG_* environment overrides ask for the git subcommands that talk to a remote (git-env-exec, git-env-exec-archive, git-env-config); this one is a local command"},
	{"fs-forkbomb", "a wait in every iteration bounds the loop to two jobs at a time (work & wait; work &): not a fork bomb"},
	{"exec-obfuscated", "the command name comes from variable, alias or hash tricks the parser cannot resolve statically"},
	{"shell-resolution", "the command name comes from variable, alias or hash tricks the parser cannot resolve statically"},
	{"secrets-exfil", "data flow through archives, copies, links, fifos or fds to a network client is not tracked; direct uploads ask (network-upload)"},
	{"exec-remote", "the download reaches the shell through a descriptor (exec {fd}<, >&3, a coproc), which the parser does not follow"},
	{"exec-decoded", "an archive member extracted to standard output (tar -xO) and piped to a shell is local content, like cat script.sh | sh"},
	{"secrets-keys", "the secret reaches the command through a link, glob, URL or an option toolguard does not read as a path"},
	{"secrets-env", "the secret file is named through an option (--file, --exclude-from), or by a glob, which the hook expands against the filesystem and the scorer, having none, cannot"},
	{"git-metadata", "the path is not literal enough to resolve"},
	{"xargs", "the input is known and harmless (echo ok | xargs find . -delete stays in the workspace), or it only fills the arguments of a script (xargs node -e CODE): toolguard judges what actually runs"},
	{"parallel", "--dry-run runs nothing; known harmless arguments; parallel rm / xargs rm with file names on stdin is the ordinary idiom (rm -r asks)"},
	{"find -delete", "find -delete that selects by name or path (find . -name '*.pyc' -delete), or starts below the workspace root or in /tmp, is everyday cleanup; toolguard asks only when it takes the whole workspace (find-delete-workspace) or starts outside it, and denies it at system and home paths"},
	{"find -exec rm", "find -exec rm that selects by name or path, or starts below the workspace root, is everyday cleanup; toolguard asks when it takes the whole workspace (find-delete-workspace) and denies it at system and home paths"},
	{"busybox", "find -delete inside the workspace passes on purpose"},
	{"git reset", "Windows or upper-case spellings (git.exe, GIT.EXE) are other programs on this host"},
	{"git rm", "--dry-run --no-dry-run: git rm's -n/--dry-run is read as given; only --cached is undone by a later --no-cached"},
	{"git clean", "git clean -nf is a dry run (-n wins); the peer blocks it"},
	{"git push", "a + after the colon (src:+dst) is not git's force syntax"},
	{"git branch", "option spelling edge case"},
	{"git stash", "option spelling edge case"},
	{"git worktree", "option spelling edge case"},
	{"deterministic shell execution carriers", "sourcing a local script, or a shell script toolguard can read as harmless; toolguard asks only where the program itself is unknown"},
	{"dynamic execution-source", "an interpreter run with a dynamic script asks through on_dynamic only when the program is unknown"},
	{"rules-rm", "the path is written in a form not expanded (~user) or the peer treats it as outside the workspace"},
	{"git checkout", "option-parsing edge case of the peer"},
	{"git restore", "git restore - names a path called -, which does not exist"},
	{"git switch", "option-parsing edge case of the peer"},
	{"git missing destructive", "rebase/merge --abort and similar are escape hatches toolguard leaves quiet"},
	{"rm -rf cwd-aware", "rm -rf of a relative path inside the workspace passes on purpose (build output must pass)"},
	{"behavioral-contract", "rm -rf of a relative path inside the workspace passes on purpose (build output must pass)"},
	{"analyze-coverage", "the peer treats unknown words as wrappers (tool rm -rf /) or blocks rm -rf of build output; toolguard does not"},
	{"derived-command-budget", "the peer treats an unknown program's arguments as a command (tool git reset --hard); toolguard does not"},
	{"linear-danger-scans", "the whole quoted string is one program name that does not exist ('rm rm -rf /tmp/x')"},
	{"input validation", "upper-case names (RM, GIT CHECKOUT) are different programs on case-sensitive systems"},
	{"unparseable commands", "the peer scans raw text; the parser reads the string as one harmless program"},
	{"interpreter one-liners", "the code is not valid in that language (node -e \"rm -rf /\"), so nothing runs"},
	{"interpreter stdin heredocs", "a here-document read by an interpreter is data unless the parser finds a shell call in it"},
	{"display-only commands", "awk programs that pipe to getline/print are not read as shell calls"},
	{"shell startup", "BASH_ENV/ENV/--rcfile startup files are not followed"},
	{"direct shell source", "source -p DIR FILE of a literal file sources a local script, which passes like source ./FILE (a file named at run time asks)"},
	{"secret-protection", "the peer blocks any argument that names a secret (custom-tool .env, rg ~/.ssh, find -name .env, bun … explain); toolguard guards reads and writes it can attribute"},
	{"heredoc", "a here-document fed to an unknown program is data"},
	{"deferred-assignment", "a variable holding a whole command line ($W) is not split into a command"},
	{"command substitution", "an edge case of substitution analysis"},
	{"env wrappers", "command -v/-V only prints; invalid assignments are not commands"},
	{"strict mode", "the peer's strict mode blocks what toolguard can read as harmless"},
	{"device", "the device path is written in a form the rule does not match"},
	{"tmpdir", "the peer resolves TMPDIR on its own filesystem"},
	{"command-trace", "PowerShell syntax in a Bash call is a program that does not exist on the host"},
	{"fs-system-tree", "the destructive command is hidden inside another program's option or a construct the parser does not unwrap"},
	{"fs-home", "the home path is written in a form the parser does not expand (~user, $PWD after cd)"},
	{"fs-raw-device", "the device is written in a form the rule does not match"},
	{"git-rewrite-force", "option-parsing edge case"},
	{"generic tool input extraction", "the path is in an input field the Claude Code codec does not read (nested, diff, patchText, Glob pattern)"},
	{"path matching", "an unexpanded variable in a tool path (${CODEX_HOME})"},
	{"native", "Glob patterns are not matched by path rules (engine gap)"},
	{"self-protection", "another guard's state file"},
}

var fpReasons = map[string]string{
	"dynamic":                      "on_dynamic = ask: the program is only known at run time (eval \"$(…)\", \"$CMD\"); toolguard asks instead of guessing",
	"unparsable":                   "on_unparsable = ask: the string does not parse as bash",
	"on_error":                     "a malformed payload (tool_input not an object) gets on_error = deny",
	"git-push-force":               "--force-with-lease is still a force push (the issue lists it); dry-run forms after -- are taken literally",
	"git-push-delete":              "deleting remote branches or tags is denied for everyone, however routine",
	"secrets-env":                  ".env is protected for write as well as read, as the issue asks",
	"secrets-keys":                 "private keys and credential stores are denied for every operation, delete and move included",
	"secrets-certs":                "*.pem/*.key files ask: a human tells a fixture from a real key",
	"rm-recursive-root":            "a recursive delete of a top-level, system or home path is denied however the peer reasons about the operand (globs, /tmp itself, an inert outer shell)",
	"rm-recursive-outside":         "recursive deletes outside the workspace and /tmp ask, -f or not",
	"rm-recursive-workspace":       "rm -rf . wipes the current tree: ask",
	"rm-recursive-dynamic":         "xargs rm -r deletes paths nobody can see",
	"pipe-to-shell":                "any network or decoder output piped into a shell or interpreter is denied, even where the shell ignores stdin",
	"dev-tcp":                      "any use of /dev/tcp is denied",
	"disk-destroy":                 "device and volume destruction is denied even for device names that may not exist",
	"system-file-write":            "writes and deletes under /etc, /usr … ask",
	"mv-system":                    "moving top-level directories away is denied even when the move would fail",
	"network-upload":               "uploading local content to a remote host asks, whatever the content",
	"socat-file-to-network":        "a program or file wired to a socket asks",
	"git-inline-config-exec":       "inline git aliases and command settings ask, even when git would ignore them",
	"git-restore-worktree":         "git restore of paths overwrites the working tree",
	"git-restore-staged-worktree":  "restore --worktree overwrites the working tree",
	"git-clean-force":              "git clean -f deletes untracked files: ask",
	"git-checkout-discard":         "checkout -f / -- paths overwrite the working tree: ask",
	"git-switch-discard":           "switch -f overwrites the working tree: ask",
	"git-branch-force-delete":      "branch -D can lose unmerged work: ask",
	"git-stash-discard":            "dropping stashes loses work: ask",
	"git-history-rewrite":          "history rewriting asks",
	"git-ref-delete":               "deleting refs directly asks",
	"git-recovery-destroy":         "destroying reflog/unreachable objects is denied",
	"git-rm-force":                 "git rm -f loses uncommitted changes: ask",
	"git-reset-hard":               "reset --hard asks however it is spelled: --ha$(printf rd) is --hard once printf has run (the peer lets $(…) output through)",
	"network-shell":                "nc -e with a shell is denied even without a port",
	"interpreter-remote-code":      "decoded content reaching shell=True is denied by pattern",
	"find-delete-system":           "find from / with -exec rm is denied",
	"find-delete-workspace":        "find -delete / -exec rm over the whole workspace with nothing selecting by name or path deletes every file of the project, as rm -rf . does: ask",
	"secrets-npmrc":                "a project .npmrc may hold a registry token: reading it asks",
	"chmod-recursive-system":       "recursive chmod of / is denied whatever the program's path",
	"encoded-powershell":           "PowerShell -e… options are denied",
	"hidden-command-option":        "options that run local commands ask",
	"git-checkout-tree-paths":      "checkout A B: B is a path (git takes --track/--recurse-submodules values only after =), so it is overwritten",
	"xargs-input-options":          "unknown input after a find test value (-fprintf FILE FORMAT) may be a new expression: ask",
	"run-downloaded":               "a downloaded file run later asks whatever happens to it in between (overwrite by another command is not tracked)",
	"fork-bomb":                    "an endless loop of unwaited background jobs is denied",
	"mail-send":                    "piping content to mail sends it off the machine (env | mail x@y): ask",
	"shell-rename-program":         "hash -p renames a program for later commands; toolguard asks rather than model the hash table",
	"terminal-multiplexer-command": "tmux runs its command where toolguard cannot see it: ask",
	"write-outside-workspace":      "a write outside the workspace and the safe prefixes asks, as Claude Code asks for its own file tools (a record run with its cwd at /workspace/outside and the project root at /workspace/project writes its relative files outside the project; docs/corpus.md, round 6)",
}

func missReason(category string) string {
	for _, r := range missReasons {
		if strings.Contains(category, r.category) {
			return r.reason
		}
	}
	return "not covered by a default rule"
}

func fpReason(rule string) string {
	if r, ok := fpReasons[rule]; ok {
		return r
	}
	return "flagged by rule " + rule
}
