// Files, by stage of the analysis (one line each; tests sit beside them):
//
//	doc.go             this map and the package contract
//	types.go           the public types: Options, Result, Command, PathRef, errors
//	analyze.go         entry point: Analyze, the analyzer's state, limits, emit
//	walk.go            the syntax walk: statements, redirections, compounds, pipelines
//	scope.go           variables in scope: constant propagation, exports, cd
//	arrays.go          arrays and their expansion
//	alias.go           alias definitions and their expansion
//	fold.go            word folding: quoting, parameter expansion, tilde, $(…) values
//	braces.go          brace expansion
//	text.go            text utilities: escapes, word splitting, Quote, globs
//	run.go             running a command: argv resolution, builtins, wrapper dispatch
//	wrappers.go        wrappers (sudo, env, find -exec, su, ssh, docker …) and their table
//	xargs.go           wrappers that fill in their input: xargs, parallel
//	deferred.go        deferred execution: at, crontab, screen, tmux, expect
//	execopts.go        commands hidden in options and config (git -c, vim -c, tar --to-command …)
//	readers.go         programs that print the files they are given (jq, zip …)
//	nested.go          nested shells: bash -c, eval, a shell's stdin, source, sourced scripts
//	links.go           cross-statement state: links, written files, scripts run or read
//	inline.go          interpreter one-liners (python -c, node -e …)
//	codecalls.go       shell calls inside interpreter code (os.system, child_process …)
//	codehome.go        the home directory spelled inside interpreter code
//	inline_paths.go    files opened by interpreter code
//	awk.go             awk programs: system(), pipes, getline, files
//	sources.go         source classes: network, decoders (where a command's data comes from)
//	download.go        downloads executed later (curl -o x.sh && bash x.sh)
//	output.go          simulated output: what echo, printf, cat, base64 -d … print
//	paths.go           path extraction per program (reads, writes, deletes)
//	writes.go          writes beyond plain operands: destinations, extraction, editors, git
//	outputs.go         writes by mechanism: compiler/linker outputs, compressors, renamers, sqlite3
//	container.go       docker/podman run: the container's paths, the host's mounts
//	createonly.go      copies and guards that only create (cp -n, [ -e P ] ||)
//	options.go         the option parser (optSpec: values, clusters, prefixes)
//	opttables.go       option tables shared by several stages (curl, wget, git, tar, rsync, ssh …)
//	tables.go          static tables without init cost: lazy, named, lookup
//	forkbomb.go        fork bombs: recursion into background jobs
//	readonly.go        ProveReadOnly: the read-only proof
//	readonly_check.go  the read-only proof's per-program checks
//	readonly_table.go  the read-only proof's program table

// Package shellparse finds every command a shell string would run.
//
// Analyze parses a string as bash (mvdan.cc/sh/v3) and walks the whole
// syntax tree. It never executes anything and never touches the
// filesystem: substitutions are analyzed, not run; paths are cleaned, not
// resolved through symlinks.
//
// # What is found
//
// Every simple command the tree can run: pipelines, lists, subshells,
// blocks, if/for/while/until/case conditions and bodies, function bodies
// (whether called or not), coprocs, time, negation, [[ ]] and arithmetic,
// declarations, assignments, redirection words, unquoted here-documents,
// here-strings, and command and process substitutions anywhere inside a
// word (quotes, parameter expansions, array elements). Declaration
// builtins (declare, local, export, readonly, typeset) are reported as
// commands too. A redirection with no command (`> f`) is reported on a
// command named ":".
//
// # Names and arguments
//
// Command.Name is the program's base name, quotes and leading backslashes
// removed; a name in capitals only is lower-cased (RM, GIT: a
// case-insensitive filesystem runs rm, git) and .exe and a Windows
// directory (C:\…\git.exe) are dropped. Arguments are folded to their values: quotes, escapes and
// $'…' strings are resolved, brace expansion is applied (up to 256 words),
// and literal variables are substituted (constant propagation, below). A
// word that is not fully known keeps its source text with the known parts
// folded ("$DIR/x"). An unquoted expansion of a known value is split on
// blanks (c="git push"; $c finds git).
//
// # Wrappers
//
// A wrapper is reported, and so is the command it runs, whose
// Command.Wrappers lists the chain outermost first (["sudo", "bash -c"]).
// Each wrapper's own options are understood, including those taking a
// value. Unwrapped: sudo, doas, pkexec, env (VAR=val, -i, -u, -C, -S
// whose string is split into words), nice, ionice, nohup, timeout, time,
// stdbuf, chrt, taskset, setsid, flock (argv or -c), watch (words joined
// into a shell string, or -x), command (not -v/-V), builtin, exec, xargs,
// parallel (the command before :::, joined into a shell string), find
// -exec/-execdir/-ok/-okdir (each one), fd -x/-X, su/runuser -c, runuser
// -u, sg, script -c, busybox/toybox APPLET, docker/podman/nerdctl exec|run
// (and compose exec|run), kubectl/oc exec, ssh HOST CMD (the words joined
// into a shell string), nix-shell --run, nix develop|shell -c, npx/bunx
// (and -c), npm exec, socat EXEC:PROGRAM (words) and SYSTEM:STRING (a
// shell string), netcat/ncat -e/--exec PROGRAM and -c/--sh-exec STRING,
// and the prefix wrappers unbuffer, caffeinate,
// proxychains, torsocks, firejail, chroot, nsenter, unshare, strace,
// ltrace, valgrind, faketime, fakeroot, numactl, cgexec, systemd-run,
// dbus-run-session, xvfb-run, dumb-init, tini, gosu, su-exec, setpriv,
// prlimit, sshpass, ssh-agent, dotenv, and `uv|poetry|pipenv|pdm|hatch|
// rye|pixi run`, `bundle exec`, `pnpm|yarn exec|dlx`, `direnv exec DIR`,
// `aws-vault exec PROFILE`, `mise exec`, `op run`.
//
// Labels are the wrapper's name ("sudo", "xargs", "ssh"), with the
// subcommand or option where it matters ("docker exec", "find -exec",
// "bash -c", "python3 -c"). A shell reading its script from standard
// input is labelled with its bare name ("bash").
//
// Commands run by ssh, docker and kubectl run elsewhere: their paths are
// not joined to the local working directory and ~ is not expanded.
//
// # Nested shells
//
// sh, bash, zsh, dash, ksh, mksh, ash, fish and the other common shells:
// the -c script (option clusters such as -lc, -ec and options before -c
// are understood), the script given on standard input by a here-document,
// a here-string, or an earlier pipeline stage whose output the analysis
// knows (echo, echo -e, printf with %s %b %d %c %q, cat of a
// here-document, base64 -d and xxd -r -p of a known text, rev). eval
// joins its arguments; trap's action and alias bodies are scripts too
// (reported where they are defined, like function bodies). Nested scripts
// are analyzed recursively; a shell running a script file is only the
// command (plus a read path), as is source. Process substitutions carry
// data like pipes: a shell whose script or standard input is <(A) (bash
// <(echo …), bash < <(printf …)) runs what A prints when the analysis
// knows it, and source <(A) is eval "$(A)": A's known output is analyzed,
// an unknown one is Dynamic (on_dynamic). A >(B) is analyzed after its
// statement, with that statement's output as B's standard input when the
// substitution is its stdout (echo … > >(bash), &> and >> too) or a file
// tee writes (… | tee >(sh)); written any other way (exec 3> >(bash),
// 2> >(sh), an option's file) the data is unknown and a shell reading it
// is Dynamic. B has the statement's commands as sources (Via "pipe"). A
// group ({ …; } or ( … )) writes its statements' outputs in order; when
// only some are known, a shell reading them is Dynamic and the known text
// is still analyzed. source and . accept -- and bash 5.3's -p PATH. The words after a -c script
// are its positional parameters ($0, $1, "$@", "$*"); inside a function
// body they are unknown. A shell with -n (noexec, unless -i or +n) runs
// nothing; a shell running -c reads its standard input as data, so the
// commands feeding it are not its sources (the script's commands keep
// them). A script file named only at run time (bash "$FILE", source
// "$FILE") is Dynamic. xargs with a known input (echo / | xargs rm) gets
// the input words appended, or each line (up to 16) in place of its -I
// (or -J) string; with an unknown input the -I words are unknown, and a
// shell or interpreter whose script, code or options come from the input
// (xargs bash -c, xargs python, xargs -I{} perl -M{} -e …) is Dynamic.
// parallel fills its replacement strings ({}, {1}, {.} …) with each :::
// argument (up to 16), runs the arguments themselves when there is no
// command, and treats standard input like xargs; --dry-run runs nothing.
// Unknown input is written InputWord ("{xargs input}") where it goes: in
// place of the -I string or replacement string inside each argument
// (rm -r{} gives "-r{xargs input}"), or appended as the last argument
// when there is none. parallel input inside an interpreter's code
// (python -c 'print("{}")') makes the code Dynamic.
//
// # Commands hidden in options, settings and variables
//
// Programs that run a command they are given as an option, a setting or an
// environment variable give that command too (execopts.go), labelled with
// where it came from; a literal gives its commands, anything else is
// Dynamic, and code the analysis does not read (vim's :py3, gdb's python,
// emacs' call-process, sed's s///e and a bare e, make -f - reading its
// makefile from standard input, awk printing into "sh") is Dynamic too:
//
//   - git: -c KEY=VALUE and git config KEY VALUE for the keys that run a
//     command (alias.* with !, core.sshCommand/fsmonitor/pager/editor/
//     askPass/gitProxy, sequence.editor, diff.external and
//     diff.*.textconv/command, filter.*.clean/smudge/process,
//     merge.*.driver, credential.helper with ! or a path, pager.*,
//     gpg.program, difftool/mergetool/browser/man.*.cmd,
//     interactive.diffFilter, uploadpack.packObjectsHook,
//     remote.*.uploadpack/receivepack, sendemail.*cmd; include.path is
//     Dynamic); an alias without ! used in the same call is expanded (git
//     -c alias.p='push -f' p gives git push -f); ext:: URLs; rebase
//     -x/--exec, bisect run, submodule foreach, difftool -x/--extcmd,
//     filter-branch's filters; GIT_EDITOR, GIT_SEQUENCE_EDITOR,
//     GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_PAGER, GIT_ASKPASS,
//     GIT_PROXY_COMMAND, EDITOR, VISUAL, PAGER, GIT_SSH and
//     GIT_CONFIG_COUNT/KEY_n/VALUE_n in its environment; --exec-path=DIR,
//     GIT_EXEC_PATH and GIT_TEMPLATE_DIR (programs and hooks from a
//     directory) are Dynamic;
//   - vim/vi/nvim/ex -c, --cmd and +CMD with :!, :r !, :w !, a range
//     filter (:%!sort) or :silent !; emacs --eval (shell-command "…");
//     gdb -ex/-iex shell/!, gdb --args PROG; lldb -o "platform shell …";
//   - psql -c \! and \o|/\g| pipes, mysql -e system/\!, sqlite3 .shell,
//     .system and .once/.output pipes; GNU sed's e COMMAND;
//   - zip -TT/--unzip-command, rsync --rsync-path (remote) and -e/--rsh,
//     tar -I/--use-compress-program/--to-command/--info-script/
//     --checkpoint-action=exec, split --filter, ssh/scp -o ProxyCommand/LocalCommand/
//     KnownHostsCommand, scp -S, man -P, apt/apt-get -o …::Pre-Invoke/
//     Post-Invoke/Pre-Install-Pkgs; less's LESSOPEN/LESSCLOSE, man's
//     MANPAGER/PAGER.
//
// Not followed: settings already in the user's git config files, vim -S
// and gdb -x script files, SQL COPY … PROGRAM (it runs on the server), a
// value that only a later call sets.
//
// # Deferred and detached commands
//
// at and batch run the commands they read on standard input, crontab -
// the command column of the table it reads (after the five time fields or
// an @nickname; comments and NAME=value lines skipped): when that input is
// known (echo, printf, a here-string or heredoc) its commands are
// analyzed, otherwise a Dynamic command stands for them. at -f FILE and
// crontab FILE are not read (the policy asks for any scheduling anyway).
// screen [-dmS NAME] CMD…, tmux new/new-window/split-window/respawn-*/
// run-shell/display-popup CMD (words joined, as tmux does), expect -c
// spawn/exec/system, nsenter, run0, systemd-run, daemonize and
// start-stop-daemon --start give the command they start; screen -X stuff
// and tmux send-keys type keys the analysis does not know (Dynamic).
//
// Package runners (npx, bunx, pnpx, npm exec, pnpm dlx/exec, yarn dlx,
// uvx, pipx run, deno run npm:PKG / jsr:PKG) and entr
// run the package's program, its version or scope removed (rimraf@5 and
// @scope/tool@1 are rimraf and tool). The delete programs rimraf, del,
// del-cli, trash and trash-put give rm -rf -- OPERANDS too, so the rm
// rules judge them (--dry-run gives nothing; del's /s /q switches are not
// operands).
//
// # Fork bombs
//
// A script that spawns processes without bound gets a synthetic command
// named ForkBomb (":forkbomb") with one argument, "function NAME" or
// "loop": a function that, once called, reaches itself through a call
// that forks (a background job, a pipeline stage, a subshell, a
// substitution), judged over the definitions made before the call; or a
// loop whose condition is constant (while true/:/[ x ]/((1)), until false,
// for ((;;))) with no break, exit or return outside a constant-false if,
// that starts background jobs which no unconditional wait in its body
// settles (disowned jobs and jobs left by a subshell never are).
//
// # Environment
//
// Command.Env lists the NAME=value assignments a command runs with that
// the string makes: prefix assignments (X=1 cmd), env X=1 and sudo X=1,
// and variables exported earlier (export X=1, declare -x, export X after
// X=1), inherited by nested shells and wrappers but not by ssh, docker or
// kubectl. Values that are not literal keep their text (X=$Y).
//
// # Dynamic
//
// A command whose name is not known (`$cmd`, `"$(…)"`, `${X:-rm}` with X
// unknown, an unquoted glob) is reported with Dynamic set, an empty Name
// and DynamicText holding its text. So is a script that is not fully
// known (`eval "$x"`, `sh -c "$x"`, `sh -c "$(curl …)"`, `python -c
// "$code"`), with Wrappers naming what runs it, and a script that does
// not parse. When the unknown parts of such a script are only variables,
// its text is analyzed too, as far as it goes.
//
// # Constant propagation
//
// Literal assignments (X=v, export/declare/local/readonly X=v, X+=v, for
// X in ONE) are followed in straight-line order; in a && run, a variable
// that takes two different values is unknown after it (the run may stop
// between them). A for loop over 2 to 16
// known words with no break or continue (for f in a .env; do cat "$f";
// done) is analyzed once per word, in order, as it runs (64 bodies per
// analysis at most, nested loops included); otherwise its variable is
// unknown. Changes inside a
// conditional context (the right side of && and ||, if/case branches,
// loop bodies, function bodies) survive only if a single literal value
// was ever assigned; subshells, pipeline stages, substitutions and
// background jobs keep their changes to themselves; eval shares the
// caller's. A variable unset by the script is known to be empty, so
// ${X:-w} is w (unset -f and -n leave variables alone). A $(…) whose
// output the analysis knows — one command or pipeline of echo, printf,
// cat of a here-document, base64 -d or xxd -r -p of a known text, … —
// stands for that output, trailing newlines removed, split unless quoted
// (K=$(echo LmVudg== | base64 -d); cat $K reads .env); 256 per analysis. PWD starts
// as Options.Cwd; cd sets PWD to the directory it tracks and OLDPWD to the
// one before. After declare -n REF=T, T is unknown, and so
// after every assignment to REF. An assignment to IFS changes how known values split (an
// unknown IFS makes unquoted expansions unknown). declare's words are
// expanded before it assigns (declare A=x B=$A sees the old A), and a
// brace in them makes the value unknown. Known expansions are $X, ${X},
// ${#X}, ${X:-w}, ${X/a/b} and
// ${X//a/b} with literal patterns, ${X#p}, ${X%s}, ${X:o:l}, and ${X:=w}
// (which also assigns w when X is empty or unset by the script). $HOME and ~
// expand to Options.Home when it is set, ~user to a sibling of it (/root
// for root). A path whose only unknown parts are ${X:-w}, ${X-w}, ${X:=w}
// or ${X=w} of inherited variables is also reported with the defaults
// filled in (cat ${KEY:-~/.ssh/id_rsa} reads the key). A variable assigned from a
// substitution carries that substitution's sources.
//
// # Sources
//
// Command.Sources lists the commands whose output a command reads: every
// earlier stage of its pipeline (Via "pipe"), the commands of command
// substitutions in its arguments ("cmdsubst") and of process
// substitutions ("procsubst"), those in a here-string ("herestring") or an
// unquoted here-document ("heredoc"). Wrappers are transparent: the
// command inside gets its wrapper's sources. Classes: network (curl, wget,
// fetch, httpie, xh, aria2c, nc/ncat/netcat, socat, lwp-request and
// GET/POST/HEAD, ftp, tftp, sftp, telnet, ssh, dig, nslookup, host,
// gsutil, s3cmd, aws s3, openssl s_client, lynx/links/w3m with
// -dump/-source, and one-liners fetching URLs; not --version/--help, curl
// saving its one URL with -o/-O or reading file:// URLs, wget without
// -O -, httpie --download/--offline or nc -z, which write nothing fetched
// to standard output) and decoder (base64,
// base32 and basenc -d, xxd -r, uudecode, openssl base64/enc -d, gpg -d,
// gzip/bzip2/xz/zstd/lz4 -d and their cat/un- forms, rev, tr, and
// one-liners that decode base64 or hex). Everything else is other.
//
// An interpreter that runs its own program (-c/-e code, a script file or
// -m module: python, perl, node, ruby, lua) reads its standard input as
// data: the pipe's sources are not attached to it (curl … | python3 -m
// json.tool, zcat x.gz | python3 parse.py), unless its code may execute
// what it reads (exec, eval, system, popen, spawn, subprocess, a
// backtick…) or is "-". xargs running only echo/printf-like programs
// likewise. A shell or an interpreter reading its program from the pipe
// keeps them.
//
// # Option tables
//
// A program whose options several stages read has one table of the
// options that take a value (opttables.go), and every stage parses with
// it: curl's path extraction, its quiet check and its downloads read the
// same curlOpts, so -XPOST is -X POST everywhere (not -X -P -O -S -T), and
// a flag (--insecure) never swallows a URL. curl and wget take a unique
// prefix of a long option (curl --upl FILE is --upload-file FILE, wget
// --output-doc=- is --output-document=-); a prefix of several options is
// left as written, as they refuse it. curl 8's options are matched only
// in full (curl 8 takes no prefixes). curl --expand-X is X, with a value
// holding {{variables}} unknown (a dynamic path). What is not quiet,
// besides the cases above: curl with -K/--config (the file names URLs and
// outputs), -w/--write-out (the server's headers), -v, --trace, -D to
// standard output, -o to standard output or a device (-, /dev/stdout,
// /dev/fd/1, /dev/stderr, /proc/…; not /dev/null) or to an unknown word;
// wget with --config, -O to standard output or a device, or -e
// output_document=- (a wgetrc command). Reads: curl -T, -K, --netrc-file,
// @file values of -d/--data*/--json/-F/--url-query/-H/--proxy-header and
// --variable NAME@FILE. Tables: curlOpts (curl 7.88's --help all, plus
// curl 8's), wgetOpts (wget 1.21), gitGlobalOpts (git.c: -C, -c,
// --git-dir, --work-tree, --namespace, --config-env, --super-prefix,
// --attr-source; --exec-path and --list-cmds take =VALUE only), tarOpts,
// rsyncOpts, sshOpts, scpOpts, sftpOpts. Not read: a ~/.curlrc or
// ~/.wgetrc an earlier call wrote (curl reads ~/.curlrc unless -q).
//
// Prefixes of long options: the GNU and util-linux programs (getopt_long)
// take a unique prefix, so the wrappers sudo, timeout, nice, stdbuf,
// ionice, chrt, taskset, setsid, chroot, nsenter, unshare, setpriv,
// prlimit, systemd-run, time, xargs, su, runuser, flock, watch, script and
// env, and the path rules of cp, mv, ln, install, sort, tar, grep, wc,
// touch, truncate, shred, mkdir, head, tail, date, nl, od, base64 and sed
// read --sig KILL as --signal KILL, --t DIR as --target-directory DIR,
// --outp F as --output F (timeout --sig KILL 5 rm -rf ~ runs rm). Their
// tables list each program's value options and flags from its --help
// (coreutils 9.1, util-linux 2.38, findutils 4.9, tar 1.34, grep 3.8,
// sed 4.9; sudo from its manual); an option that takes only =VALUE
// (--preserve, --context, --max-lines) is a flag there. git's clean,
// stash, reset, rm and add too (parse-options: git stash --incl is
// --include-untracked). git diff reads its absolute and ../ operands
// (outside the working tree it works as --no-index and prints them), and
// --color, --word-diff, -U take only an attached or =VALUE. Decoders too:
// base64 --dec, gzip --decomp and gpg --decr decode. The read-only proof
// (readonly_table.go) keeps its own lists of the options it allows; tests
// check that each agrees with the path rules and the readers on which
// options take a value. The programs whose tables do not list their
// flags (strace, ltrace, numactl, torsocks, parallel, the compressors,
// rsync, the readers) read an unknown long option as a flag; a wrapper
// among them is analyzed twice, once with each such option taking the
// next word (parallel --jo 4 rm -rf ::: ~ also runs rm -rf ~), and a
// reader or path rule reads that word as an operand (a file). One
// analysis works out at most 32 such second readings (nested wrappers
// multiply them); past that the command is Dynamic.
//
// # Inline code
//
// Command.Inline holds the program of an interpreter one-liner: python -c
// (and clusters like -Bc), perl -e/-E (several joined), ruby -e, node/bun
// -e/-p/--eval/--print, deno eval, php -r, lua -e, osascript -e, Rscript
// -e, julia -e, awk's program text, pwsh -c, and the program an
// interpreter reads from a known standard input. The code is then scanned
// lexically for shell commands: string literals passed to os.system,
// subprocess.*, os.popen, pty.spawn (Python); system, exec, backticks,
// qx// (Perl); system, exec, spawn, backticks, %x(), Open3/IO.popen
// (Ruby); exec*, spawn*, execa (Node, Deno); system, exec, shell_exec,
// passthru, popen, proc_open, backticks (PHP); os.execute, io.popen
// (Lua); system, "cmd" | getline and print | "cmd" (awk, whose
// non-literal commands such as system($0) are Dynamic); system (R); do
// shell script (AppleScript). parallel's {= perl =} replacement strings
// and --rpl definitions are read as perl -e code, even under --dry-run. In JavaScript
// the process calls count only when the code names child_process (or
// execa, shelljs, zx, cp.) or loads a module by a computed name:
// database.exec("…") is not a shell. A string is
// parsed as a shell script, a list literal as an argument vector; code
// passed to the language's own eval/exec is scanned again (4 levels).
// Python's os.exec*/os.spawn* family gives the argument vector after the
// program (os.execvp("rm", ["rm", "-rf", "/"]) is rm -rf /). Strings built
// at run time (concatenation, variables, f-strings' substitutions) are not
// followed: a system-like call whose command is not a literal, or a
// literal joined to more ("rm -rf " + d), is a Dynamic command
// (os.system(cmd), subprocess.run(cmd), perl system $cmd, execSync(c));
// ambiguous names (run, call) count only qualified (subprocess.run), so
// asyncio.run(main()) is not one. Found commands have Wrappers ending in
// e.g. "python3 -c". An argument of an argv-style exec that names the
// home directory through the environment (os.environ["HOME"],
// os.path.expanduser("~"), Path.home(), process.env.HOME, os.homedir(),
// ENV["HOME"], Dir.home, $ENV{HOME}, alone or joined to a literal
// "/rest", and Perl/Ruby strings interpolating it: "$ENV{HOME}/.ssh",
// "#{Dir.home}/.aws") is that path (codehome.go): subprocess.run(["rm",
// "-rf", os.environ["HOME"]]) is rm -rf ~. Anywhere else such
// expressions are not resolved here; the policy's
// interpreter-destructive-code rule matches them as text in library
// deletes. Obfuscation (getattr(os, "sys"+"tem"), chr() strings, exec
// of a decoded blob built in several steps) stays out of reach.
//
// # Paths
//
// Command.Paths are resolved against Options.Cwd and literal cd/pushd
// earlier in the same sequential list (a cd in a subshell does not leak;
// cd - or cd $X makes relative paths Dynamic), with ~ and $HOME expanded
// and the result cleaned (path.Clean: shell paths use slashes on every
// platform). Sources of paths: redirections (>, >>, &>, &>>, >|, N>, <>
// and >&FILE write; < reads; /dev/null, the standard streams, /dev/tty and
// /dev/fd/N are not paths), tee, cp/mv/install/ln/rsync/scp destinations
// (-t DIR or the last operand; mv sources are deleted, cp sources read),
// rm/rmdir/unlink/shred/truncate (delete), sed -i and perl -i files,
// dd of=/if=, chmod/chown/chgrp/chattr/setfacl (the mode or owner
// skipped), touch, mkdir, sort -o, curl -o/-T/-d @file/-F x=@file and file:// URLs (read), ln's targets (read), sort --files0-from and grep --exclude-from (read), wget
// -O/--post-file, find's starting points (read; with -delete or -exec rm
// a delete of START/**/NAME for each -name NAME, a Pattern path, or of
// START itself when the tests are not names alone — docs/surfaces.md),
// and the operands of cat, tac, less (not -p PATTERN), more, nl, awk
// (after the program; -f files; written under gawk -i inplace; the
// program's getline < "f" read, print > "f" written), head, tail,
// grep/egrep/fgrep/rg (after the pattern), source/., base64, xxd,
// strings and od (read), tar (operands and -T read when creating, the -f
// archive written; otherwise the archive read), openssl -in/-key (read)
// and -out (write), the script of python/node/ruby (read), date -f. The
// placeholder {} of find -exec is START/NAME when the search has one
// literal start and one literal -name (find . -name .env -exec cat {}
// reads ./.env), Dynamic otherwise, like xargs -I{}. BSD find -f DIR
// names a start. Also read: the operands of the compressors (gzip,
// bzip2, xz, lzma, zstd and their cat/un- forms), xargs -a/--arg-file,
// --env-file of docker/podman/nerdctl/node/bun/deno, dotenv's -e/-f file
// (./.env when none), git add -f's operands, git blame's, git diff
// --no-index's, git grep --no-index's and git hash-object's (the content
// goes to the object store, for cat-file to print under no name), and the
// words after an interpreter's inline code or module (python3 -c CODE
// FILE, python3 -m json.tool FILE, ruby -ne CODE FILE, node -e CODE FILE:
// the code, read only by pattern, may open them). wc's operands are not reads (it prints counts, never
// text), nor is a < redirection into it; its --files0-from file is. test, [, ls, stat and file name no
// path at all.
//
// # Creates
//
// A write that cannot change what an existing file holds is call.OpCreate
// (createonly.go): touch's operands; the destinations of cp and mv with
// -n, --no-clobber or --update=none[-fail] (and no later -f, -i, -u,
// --update=…, --remove-destination or -b); and a write of exactly P by
// the command that runs only when P is absent — the command after
// [ -e P ] || / test -f P || / [ -s P ] || (or [ ! -e P ] && / ! test -e
// P &&) at the head of an && / || chain, and the then branch of if [ ! -f
// P ]. -e, -a, -f and -s count (-L, -d, -r do not); P must be literal.
// Policy rules with op "write" match creates too; "modify" does not.
//
// # Writes attributed
//
// By mechanism (outputs.go, docs/surfaces.md "Writers by mechanism"):
// compiler, linker and binary-tool outputs (cc -o, go build -o, GOBIN go
// install, rustc -o/--out-dir, strip/objcopy, ld/as -o, zig -femit-bin),
// compressors that replace their input (gzip x writes x.gz and deletes
// x; gunzip x.gz writes x), tar --remove-files, zip -m, 7z a -sdel,
// rename/prename, mmv, sqlite3's writefile/readfile and dot commands,
// awk print > "f" anywhere in a print statement, sed w FILE and s///w
// FILE, git clone/worktree add/checkout-index/init destinations. A
// symbolic link's relative target is read from the link's directory. A
// command word $(which NAME) (command -v, type -p, readlink -f $(which
// …)) runs NAME. $(mktemp …) has the path mktemp makes as its value.
// Commands under docker/podman run report only the paths under the host
// directories mounted into the container, as host paths (container.go).
//
// Beyond plain operands (writes.go): a copy, move, link or install to a
// destination (cp, mv, install, ln, rsync, scp, git mv; -t DIR or the last
// operand) writes the destination and DEST/base(SOURCE) for each source —
// cp /tmp/s.json .claude/ writes .claude/s.json. Whether DEST is an
// existing directory is not asked of the filesystem (no I/O, and the same
// string may create it first: mkdir d && cp a d), so both are reported
// unless -T says DEST is a file. tar -x (--extract, x in tar xzf) writes
// its member operands under -C DIR (or the working directory), or DIR
// itself when it names none; unzip likewise with -d DIR (-j: base names
// only; -l, -t, -v, -p, -c, -Z write nothing, and -p and -c read the
// members they print). sponge F, yq -i (eval/e, the
// expression skipped), ed/red/ex/vi/vim/nvim (their files, unless -R; -c,
// -S, +CMD are not files), view (read), emacs (its files, --file/--visit;
// -l/--load/--script read), nano/pico/micro/mcedit/joe/jed/kak/hx, git rm
// (not --cached or -n), git mv, git checkout -- F / git checkout TREE F /
// git checkout ., git restore (not --staged alone), git clean -f (its
// pathspecs or the working directory; not -n), git stash [push|save]
// -u/-a (the pathspecs after --, else the working directory), git reset
// --hard/--merge/--keep (the working directory): the last three are
// writes of the tree they remove untracked files from or put committed
// files back into; git -C DIR before them. rsync -n/--dry-run/--list-only
// writes nothing. chmod, chown, chgrp, setfacl
// and chattr operands are writes (call.Op has no separate kind). Redirections
// of any command (jq … > F) are writes as before.
//
// The working directory has its shell names: Options.Cwd seeds $PWD; ~+
// is $PWD and ~- is $OLDPWD, which cd sets (cd - goes back to it); $(pwd),
// `pwd`, $(pwd -P) stand for the directory the analysis tracks, and
// $(cd DIR && pwd) for DIR resolved against it. cd with
// relative and .. paths moves it (cd .. && rm -rf project deletes the
// workspace root when it is named project), and paths are cleaned after
// substitution ($PWD/.. is the parent; X=/tmp; $X/../etc is /etc).
//
// Interpreter one-liners (inline_paths.go): string-literal paths given to
// the file calls of Python (open(p, 'w'|'a'|'x'|'+'), os.remove, unlink,
// rmdir, rename, replace, shutil.rmtree/move/copy*, os.symlink, chmod,
// pathlib's Path(p).write_text/unlink/…), Node, Bun and Deno
// (fs.writeFileSync, appendFile, rmSync, unlinkSync, renameSync,
// copyFileSync, createWriteStream, fs.promises.*, require('fs').…, Bun.write,
// Deno.writeTextFile), Ruby (File.write/open/delete/rename, FileUtils.rm_rf,
// mv, cp, touch, …) and Perl (unlink, rmdir, rename, open(F, '>p'),
// open(my $f, '>', 'p'), rmtree) become write, delete or read paths of
// the command; read opens are reads. A path built at run time (a variable,
// concatenation, an f-string, Perl's "$d/x") gives nothing: the scan is
// lexical, and a call named inside a string literal counts as one.
//
// # Links and written scripts
//
// The filesystem changes a string makes are seen by its later commands
// (links.go), whatever scope made them (a subshell's ln is still there):
// ln -s TARGET LINK (and hard links, -t DIR, LINK/ as a directory) records
// LINK → TARGET, and a later path equal to or under LINK is also reported
// under TARGET (ln -s ~ h && rm -rf h/ deletes ~; ln -s .claude x; echo >
// x/settings.json writes .claude/settings.json), chains up to 8 links, 64
// links per analysis. A path is matched after cleaning: u/.. under a link
// u is cleaned to the directory holding u, not the target's parent.
// A statement that writes a text the analysis knows through its standard
// output (echo, printf, cat <<EOF, a group of them; > F, >> F appends to a
// known text, &> F) or through tee F records it (64 files, each up to
// maxValue); bash F, sh F (the shells), source F, . F and ./F (when F has
// no #! line or a shell's) then analyze that text as the script, with its
// positional parameters; python, node, ruby and perl running such a file
// (python3 x.py) analyze it as their -c/-e code (Inline, the code's
// commands and paths). A file written with an unknown text is forgotten.
//
// # Arrays and aliases
//
// Indexed arrays of literal words (arrays.go): a=(…), a+=(…), a[N]=v;
// "${a[@]}" is one word per element, ${a[*]} and "${a[*]}" join (with
// IFS), ${a[N]}, $a (the first), ${#a[@]}, ${a[@]:OFF:LEN}. So a=(-rf /);
// rm "${a[@]}" is rm -rf /. Associative arrays, [i]=v inside ( ), globs,
// unknown elements and arrays assigned in a branch are unknown.
// alias NAME=BODY earlier in the string (alias.go) makes a command whose
// first word is an unquoted NAME also be analyzed as BODY followed by
// the command's other words, in the same shell (wrapper "alias"), with
// or without shopt -s expand_aliases — and the command as written is
// still reported, since bash -c without expand_aliases runs it (alias
// rm=echo; rm -rf / gives rm -rf /). An alias is not expanded inside its
// own expansion; unalias forgets it; 64 aliases per analysis.
//
// # Readers
//
// Readers the path attribution does not know by name give their file
// operands as a nested cat -- FILE… labelled "NAME reads" (readers.go), so
// path rules see what they read: jq/gojq/jaq/yq (the operands after the
// filter, --slurpfile/--rawfile files, -f programs; not --args lists),
// cut, diff, cmp, hexdump, paste, rev, column, fold, fmt, iconv, uniq,
// split, expand, pr, zip (after the archive), 7z a/u, gpg when it
// encrypts, signs or exports, look (after the prefix), join, comm,
// bat/batcat, unexpand, shuf (not -e/-i), tsort, ptx, csplit (its file),
// base32, basenc, pv, uuencode (its file, when a name follows), ag and ack
// (after the pattern). Their options are read as the programs read them:
// column -t/-d, zip -X are flags; pr -e/-i/-n/-s/-S, ack -C and diff
// --color/--unified/--context, split --numeric-suffixes take only an
// attached value (a flag with a separate word after it: the word is a
// file). readerTable is a sorted static table.
//
// # Downloads
//
// A command that executes a file fetched from the network earlier in the
// same string — as the program, or the script of a shell, an interpreter,
// source or pwsh -File — gets a Source of class SourceDownload ("download",
// Via "file"). Fetched: written by a network client (curl -o/-O, wget,
// also curl's output through tee or a redirection), by rsync/scp from a
// remote, or a copy, move or link of such a file; files are matched by
// base name, and rm forgets one.
//
// # Limits
//
// Options.MaxBytes (default 4 MiB) is checked first. Input nested deeper
// than 1000 levels (brackets, compound commands, prefix keywords), or with
// more than MaxNodes/2 (at least 65,536) words and operators (a
// substitution, subshell or group weighing 4), is rejected
// before parsing, which bounds the parser's memory (a hook killed for its
// memory is an allow to some agents); the analysis' own recursion stops
// at 10000.
// Options.MaxDepth (default 16) bounds wrappers and nested scripts
// together (sudo env bash -c … counts three). Options.MaxNodes (default
// 1<<20) bounds the syntax nodes and commands over the whole analysis,
// nested scripts included. Exceeding any limit returns a *LimitError (Limit "size",
// "depth", "nodes", "words" or "nesting"); input that does not parse returns a
// *ParseError with its position. A bug in the analysis is recovered and
// returned as *InternalError rather than a panic.
//
// # Bounded values
//
// A few bytes of shell can describe a value of gigabytes (X=$X$X forty
// times is 2^40 bytes; bash runs it in milliseconds). The values the
// analysis works out are bounded instead of built: a value that would
// pass 64 KiB (maxValue) — by concatenation, X+=, ${X//a/aa}, ${X/a/…},
// ${X:-…}/${X:=…}, $(…) outputs, "$@", ~ of a grown $HOME, a cd path —
// is unknown, and so is every expansion once the analysis has expanded 4
// MiB of values in all (maxValueTotal: a value of 64 KiB copied into a
// thousand words, exported into a thousand commands' Env). Nested shell
// scripts (bash -c, eval, … | sh, aliases) are parsed up to eight times
// the input's size plus 128 KiB in all (maxScripts); past that a script
// is Dynamic. Brace expansion stays at 256 words, loop unrolling at 64
// bodies, $(…) values at 256, printf output at 1 MiB. What is past a
// bound is never an error: the word is not literal, so a command it
// names is Dynamic (on_dynamic), a path it names is a Dynamic path, a
// variable assigned it is unknown, and the literal commands around it
// are analyzed as usual (X=a; X=$X$X …; git push --force origin main
// still finds git push). A nested script that runs its own text again
// (X='eval "$X"'; eval "$X") is Dynamic past the first round, and a
// written script or an alias is not run again inside itself, rather than
// the depth limit failing the whole analysis. Every input of at most 4
// KiB in the bomb table (bombs_test.go: 59 ways of growing a value or the
// work on it) is analyzed with at most 64 MB allocated in total; the
// worst measured about 28 MB.
//
// # Read-only proof
//
// ProveReadOnly (readonly.go) is separate from Analyze and stricter: it
// says whether a string only reads, for settings.auto_allow =
// "read-only" (docs/auto-allow.md). The table in readonly_table.go and
// readonly_check.go is the single source of what it accepts: programs
// (ls, cat, head, tail, wc, grep/rg/ag, find, sed, awk, sort, uniq, cut,
// diff, jq, yq, git status|log|show|diff|blame|branch|tag|rev-parse|
// remote|ls-files|…, go list|version|env, which, file, stat, du, df,
// pwd, echo, printf, date, uname, id, cd, test …), each with the short
// and long options under which it only reads; any other option is "not
// proven". Programs with scripts are parsed: sed scripts command by
// command (w, W, e and the s flags w and e are not read-only; r and R
// are reads), awk programs rejected when they hold system, |, >,
// getline, @, ENVIRON or PROCINFO, find expressions primary by primary
// (no -exec/-execdir/-ok/-okdir/-delete/-fprint*/-fls), jq and yq
// filters without env or load. Around the commands only lists,
// pipelines, subshells, { } and if are followed; every other construct
// (assignments and environment prefixes of any kind, functions, loops,
// case, [[ ]], arithmetic, background jobs) is not proven. A redirection
// may write only /dev/null or duplicate a descriptor; $(…) and <(…) are
// followed when their commands are proven; parameter expansion is only
// accepted as a plain $X in echo's words; a word whose glob could expand
// to an option (* at its start) or brace expansion is not proven.
// Result.Reads lists every path the commands may read (operands, option
// values naming files, sed r files, < files, cd directories), relative
// ones resolved against every directory a literal cd may have entered:
// the caller checks them against its rules and the workspace.
//
// # Not covered
//
// hash -p and enable -n (renaming programs), a script file written by an
// earlier tool call (only text written in the same string is read back),
// text written by cp/mv of a known script or by programs other than echo,
// printf, cat and tee, descriptors
// opened with exec {fd}<…, the values of $(…) whose output the analysis
// cannot follow and of arithmetic, and
// arithmetic evaluation of variable contents (bash's a[$(cmd)] injection).
package shellparse
