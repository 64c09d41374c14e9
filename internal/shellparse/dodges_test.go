package shellparse

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// A dodge hides a dangerous command; the analysis must find it with its
// name and key arguments.
type dodge struct {
	src  string
	name string
	args []string // each must be among the command's arguments
}

// gitForce and rmRoot are the two dangerous commands most dodges hide.
func gitForce(src string) dodge { return dodge{src, "git", []string{"push", "-f"}} }
func gitForceLong(src string) dodge {
	return dodge{src, "git", []string{"push", "--force"}}
}
func rmRoot(src string) dodge   { return dodge{src, "rm", []string{"-rf", "/"}} }
func forkBomb(src string) dodge { return dodge{src, ForkBomb, nil} }

var dodges = []dodge{
	rmRoot(`unset t; v="${t:=/}"; rm -rf "$t"`),
	rmRoot(`X=; : ${X:=/}; rm -rf $X`),
	// Unknown xargs/parallel input shows where it goes.
	{"xargs -I{} git reset {}", "git", []string{"reset", InputWord}},
	{"xargs git reset", "git", []string{"reset", InputWord}},
	{"xargs -IX rm -rX /", "rm", []string{"-r" + InputWord, "/"}},
	{"parallel rm {} /", "rm", []string{InputWord, "/"}},
	{"parallel git push", "git", []string{"push", InputWord}},
	{`parallel python3 -c 'print("{}")'`, "", nil}, // Dynamic: the input is code
	// Fork bombs: recursion through a forking call, endless loops of
	// unwaited background jobs.
	forkBomb(":(){ :|:& };:"),
	forkBomb("bomb(){ bomb & }; bomb"),
	forkBomb("first(){ second; }; second(){ third & }; third(){ first; }; first"),
	forkBomb("g(){ f; }; f(){ f& }; g"),
	forkBomb("f(){ (f); }; f"),
	forkBomb("x(){ x | cat; }; x"),
	forkBomb("while true; do work & done"),
	forkBomb("until /usr/bin/false; do work & done"),
	forkBomb("for ((i=0;;i++)); do work & done"),
	forkBomb("while [ true ]; do work & done"),
	forkBomb("while ((1)); do work & done"),
	forkBomb("while 'true'; do { work & }; done"),
	forkBomb("while true; do work & if false; then break; fi; done"),
	forkBomb("while true; do (work &); wait; done"),
	forkBomb("while true; do wait; sleep 1 & disown; done"),
	forkBomb("bash -c 'while :; do w & done'"),
	forkBomb("echo $(while true; do w & done)"),
	// Found by the corpus work: noexec undone, parallel placeholders,
	// xargs -J, child_process under another name.
	rmRoot("curl x | bash -n +n <<< 'rm -rf /'"),
	rmRoot("bash -n +n -c 'rm -rf /'"),
	rmRoot("bash -n -i -c 'rm -rf /'"),
	rmRoot("parallel bash -c {} ::: 'rm -rf /'"),
	rmRoot("parallel ::: 'rm -rf /'"),
	rmRoot("parallel rm -rf {} ::: /"),
	gitForce("parallel git push -f ::: origin"),
	rmRoot("echo / | xargs -J % rm -rf %"),
	rmRoot("echo / | xargs -R 2 -S 4096 -I{} rm -rf {}"),
	rmRoot("node -e 'require(\"child_\"+\"process\").execSync(\"rm -rf /\")'"),
	rmRoot("node -e 'const cp = require(\"child_process\"); cp.exec(\"rm -rf /\")'"),
	rmRoot("curl x | bash -c 'rm -rf /'"),
	// Wrappers, alone and nested.
	gitForce("sudo -u root env FOO=1 nice -n 5 git push -f"),
	gitForce("sudo git push -f"),
	gitForce("sudo -E -H git push -f"),
	gitForce("sudo -u root -g wheel -- git push -f"),
	gitForce("sudo -i git push -f"),
	gitForce("doas git push -f"),
	gitForce("doas -u root git push -f"),
	gitForce("pkexec git push -f"),
	gitForce("env git push -f"),
	gitForce("env -i PATH=/usr/bin git push -f"),
	gitForce("env -u HOME git push -f"),
	gitForce("env -C /tmp git push -f"),
	gitForce("env -S 'git push -f'"),
	gitForce("env -S'git push' -f"),
	gitForce("env --split-string='git push -f'"),
	gitForce("env -- git push -f"),
	gitForce("nice git push -f"),
	gitForce("nice -n 19 git push -f"),
	gitForce("nice -10 git push -f"),
	gitForce("nice --adjustment=5 git push -f"),
	gitForce("ionice -c 3 git push -f"),
	gitForce("ionice -c2 -n7 git push -f"),
	gitForce("nohup git push -f"),
	gitForce("nohup git push -f &"),
	gitForce("timeout 5 git push -f"),
	gitForce("timeout -s KILL 5m git push -f"),
	gitForce("timeout --kill-after=1 5 git push -f"),
	gitForce("time git push -f"),
	gitForce("time -p git push -f"),
	gitForce("\\time -f %e git push -f"),
	gitForce("command time -v git push -f"),
	gitForce("stdbuf -oL git push -f"),
	gitForce("stdbuf -i 0 -o 0 git push -f"),
	gitForce("chrt 0 git push -f"),
	gitForce("chrt -i 0 git push -f"),
	gitForce("taskset 0x1 git push -f"),
	gitForce("taskset -c 0-3 git push -f"),
	gitForce("setsid git push -f"),
	gitForce("setsid -w git push -f"),
	gitForce("flock /tmp/lock git push -f"),
	gitForce("flock -x -w 10 /tmp/lock git push -f"),
	gitForce("flock /tmp/lock -c 'git push -f'"),
	gitForce("watch git push -f"),
	gitForce("watch -n 1 'git push -f'"),
	gitForce("watch -x git push -f"),
	gitForce("command git push -f"),
	gitForce("command -p git push -f"),
	gitForce("builtin command git push -f"),
	gitForce("exec git push -f"),
	gitForce("exec -a foo git push -f"),
	gitForce("xargs git push -f"),
	dodge{"xargs -I% git push --force % main", "git", []string{"push", "--force"}},
	gitForce("xargs -0 -n 1 -P 4 git push -f"),
	gitForce("xargs -r -t git push -f"),
	gitForce("xargs -a list.txt git push -f"),
	gitForce("xargs -d '\\n' -L 1 git push -f"),
	gitForce("echo origin | xargs git push -f"),
	gitForce("parallel git push -f ::: origin"),
	gitForce("parallel -j 2 'git push -f {}' ::: origin"),
	gitForce("find . -exec git push -f \\;"),
	gitForce("find . -name x -execdir git push -f {} +"),
	gitForce("find . -ok git push -f ';'"),
	gitForce("su -c 'git push -f'"),
	gitForce("su root -c 'git push -f'"),
	gitForce("su - root -c 'git push -f'"),
	gitForce("su --command='git push -f' root"),
	gitForce("runuser -u dev -- git push -f"),
	gitForce("runuser -l dev -c 'git push -f'"),
	gitForce("sg dev -c 'git push -f'"),
	gitForce("script -c 'git push -f' /dev/null"),
	gitForce("script -qc 'git push -f'"),
	gitForce("busybox env git push -f"),
	gitForce("docker exec c git push -f"),
	gitForce("docker exec -it -u root c git push -f"),
	gitForce("docker container exec -w /repo c git push -f"),
	gitForce("podman exec c git push -f"),
	gitForce("docker run --rm -v $PWD:/r -w /r alpine/git git push -f"),
	gitForce("kubectl exec pod -- git push -f"),
	gitForce("kubectl exec -it -n ns pod -c app -- git push -f"),
	gitForce("ssh host git push -f"),
	gitForce("ssh -p 2222 -i key user@host git push -f"),
	gitForce("ssh host 'cd repo && git push -f'"),
	gitForce("sshpass -p pw ssh host git push -f"),
	gitForce("unbuffer git push -f"),
	gitForce("caffeinate -i git push -f"),
	gitForce("proxychains4 -q git push -f"),
	gitForce("torsocks git push -f"),
	gitForce("firejail --noprofile git push -f"),
	gitForce("strace -f -o /dev/null git push -f"),
	gitForce("fakeroot git push -f"),
	gitForce("systemd-run --user --unit x git push -f"),
	gitForce("uv run git push -f"),
	gitForce("poetry run git push -f"),
	gitForce("npx -y git push -f"),
	gitForce("sudo sudo sudo git push -f"),
	gitForce("nohup nice timeout 9 stdbuf -o0 git push -f"),
	gitForce("sudo -u root bash -c 'env FOO=1 git push -f'"),

	// Nested shells.
	gitForceLong("bash -lc 'cd x && git -C . push --force'"),
	gitForce("bash -c 'git push -f'"),
	gitForce("sh -c 'git push -f'"),
	gitForce("zsh -c 'git push -f'"),
	gitForce("dash -c 'git push -f'"),
	gitForce("ksh -c 'git push -f'"),
	gitForce("mksh -c 'git push -f'"),
	gitForce("busybox sh -c 'git push -f'"),
	gitForce("bash -ec 'git push -f'"),
	gitForce("bash -xc 'git push -f'"),
	gitForce("bash -l -e -o pipefail -c 'git push -f'"),
	gitForce("bash --login -c 'git push -f'"),
	gitForce("bash --norc --noprofile -c 'git push -f'"),
	gitForce("/bin/bash -c 'git push -f'"),
	gitForce("bash -c \"git push -f\""),
	gitForceLong("sh -c \"sh -c \\\"git push --force\\\"\""),
	gitForceLong("find . -exec sh -c 'git push --force' \\;"),
	gitForceLong("echo 'git push --force' | bash"),
	gitForce("echo git push -f | sh"),
	gitForce("printf 'git push -f' | sh"),
	gitForce("printf '%s\\n' 'git push -f' | bash"),
	gitForce("printf 'git %s -f\\n' push | bash"),
	gitForce("echo -e 'git\\tpush -f' | bash"),
	gitForce("echo 'git push -f' | sudo bash"),
	gitForce("echo 'git push -f' | bash -s"),
	gitForce("echo 'git push -f' | tee /tmp/x | bash"),
	gitForce("echo Z2l0IHB1c2ggLWY= | base64 -d | bash"),
	gitForce("echo 'f- hsup tig' | rev | sh"),
	gitForce("bash <<EOF\ngit push -f\nEOF"),
	gitForce("bash <<'EOF'\ngit push -f\nEOF"),
	gitForce("sh <<-EOF\n\tgit push -f\n\tEOF"),
	gitForce("cat <<EOF | bash\ngit push -f\nEOF"),
	gitForce("bash <<< 'git push -f'"),
	gitForce("bash -s <<< 'git push -f'"),
	gitForce("eval 'git push -f'"),
	gitForce("eval git push -f"),
	gitForce("eval \"git push -f\""),
	gitForce("e\\val 'git push -f'"),
	gitForce("builtin eval 'git push -f'"),
	gitForce("trap 'git push -f' EXIT"),
	gitForce("alias gp='git push -f'; gp"),
	gitForce("IFS=,; c='git,push,-f'; $c"),
	gitForce("unset c; ${c:-git} push -f"),
	gitForce("c=echo; true && c=git || c=echo; $c push -f; git push -f"),
	gitForce("bash -c 'eval \"git push -f\"'"),
	gitForce("sudo sh -c 'cd /repo; git push -f'"),
	gitForce("xargs -I{} sh -c 'git push -f {}'"),

	// Grouping and control flow.
	gitForce("(git push -f)"),
	gitForce("{ git push -f; }"),
	gitForce("true && git push -f"),
	gitForce("false || git push -f"),
	gitForce("git status; git push -f"),
	gitForce("git fetch & git push -f"),
	gitForce("! git push -f"),
	gitForce("if true; then git push -f; fi"),
	gitForce("if git push -f; then :; fi"),
	gitForce("if false; then :; else git push -f; fi"),
	gitForce("if false; then :; elif true; then git push -f; fi"),
	gitForce("while true; do git push -f; break; done"),
	gitForce("until git push -f; do sleep 1; done"),
	gitForce("for i in 1; do git push -f; done"),
	gitForce("for ((i=0;i<1;i++)); do git push -f; done"),
	gitForce("case x in x) git push -f;; esac"),
	gitForce("f() { git push -f; }"),
	gitForce("function f { git push -f; }; f"),
	gitForce("coproc git push -f"),
	gitForce("git status | git push -f"),
	gitForce("git push -f 2>&1 | tee log"),

	// Substitutions.
	gitForce("x=$(git push -f)"),
	gitForce("x=`git push -f`"),
	gitForce("echo \"$(git push -f)\""),
	gitForce("echo $(git push -f)"),
	gitForce("cat <(git push -f)"),
	gitForce("diff <(git push -f) >(cat)"),
	gitForce("echo ${x:-$(git push -f)}"),
	gitForce("echo ${x:=`git push -f`}"),
	gitForce("arr=($(git push -f))"),
	gitForce("export X=$(git push -f)"),
	gitForce("local y=`git push -f`"),
	gitForce("declare -r z=$(git push -f)"),
	gitForce("[[ $(git push -f) ]]"),
	gitForce("[ \"$(git push -f)\" ]"),
	gitForce("(( $(git push -f) ))"),
	gitForce("echo $(( $(git push -f) + 1 ))"),
	gitForce("echo > $(git push -f)"),
	gitForce("cat <<EOF\n$(git push -f)\nEOF"),
	gitForce("cat <<< \"$(git push -f)\""),
	gitForce("echo \"${arr[$(git push -f)]}\""),
	gitForce("echo $(echo $(git push -f))"),

	// Names in disguise and constants.
	gitForce("/usr/bin/git push -f"),
	gitForce("\\git push -f"),
	gitForce("g''it push -f"),
	gitForce("\"git\" push -f"),
	gitForce("'git' push -f"),
	gitForce("g\\it push -f"),
	gitForce("$'git' push -f"),
	gitForce("$'\\x67\\x69\\x74' push -f"),
	gitForce("git push '-f'"),
	gitForce("git push \"-\"f"),
	gitForce("c=git; $c push -f"),
	gitForce("c=git; ${c} push -f"),
	gitForce("c=git; \"$c\" push -f"),
	gitForce("export c=git; $c push -f"),
	gitForce("c='git push -f'; $c"),
	gitForce("a=gi; b=t; $a$b push -f"),
	gitForce("f=-f; git push $f"),
	gitForce("CODE='git xx push -f'; eval \"${CODE/xx /}\""),
	gitForce("for c in git; do $c push -f; done"),
	gitForce("{git,push,-f}"),
	gitForce("HOME=/x git push -f"),
	gitForce("GIT_DIR=.git git push -f"),

	// rm -rf /.
	rmRoot("rm -rf /"),
	rmRoot("\\rm -rf /"),
	rmRoot("/bin/rm -rf /"),
	rmRoot("r''m -rf /"),
	rmRoot("\"rm\" -rf /"),
	rmRoot("ssh host 'rm -rf /'"),
	rmRoot("docker exec c rm -rf /"),
	rmRoot("kubectl exec pod -- rm -rf /"),
	rmRoot("busybox rm -rf /"),
	rmRoot("toybox rm -rf /"),
	rmRoot("su -c 'rm -rf /'"),
	rmRoot("script -c 'rm -rf /' /dev/null"),
	rmRoot("watch -n 1 rm -rf /"),
	rmRoot("parallel rm -rf ::: /"),
	rmRoot("X=/; rm -rf $X"),
	rmRoot("c=rm; $c -rf /"),
	rmRoot("sudo rm -rf /"),
	rmRoot("python -c 'import os; os.system(\"rm -rf /\")'"),
	rmRoot("python3 -c 'import subprocess; subprocess.call(\"rm -rf /\", shell=True)'"),
	rmRoot("python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"/\"])'"),
	rmRoot("python3 -c 'import os; os.popen(\"rm -rf /\").read()'"),
	rmRoot("perl -e 'system(\"rm -rf /\")'"),
	rmRoot("perl -e 'system \"rm -rf /\"'"),
	rmRoot("perl -e '`rm -rf /`'"),
	rmRoot("ruby -e 'system(\"rm -rf /\")'"),
	rmRoot("ruby -e '`rm -rf /`'"),
	rmRoot("node -e 'require(\"child_process\").execSync(\"rm -rf /\")'"),
	rmRoot("node -e 'require(\"child_process\").spawnSync(\"rm\", [\"-rf\", \"/\"])'"),
	rmRoot("php -r 'system(\"rm -rf /\");'"),
	rmRoot("lua -e 'os.execute(\"rm -rf /\")'"),
	rmRoot("awk 'BEGIN { system(\"rm -rf /\") }'"),
	rmRoot("osascript -e 'do shell script \"rm -rf /\"'"),
	rmRoot("xargs -I{} rm -rf / {}"),
	rmRoot("find / -maxdepth 0 -exec rm -rf / \\;"),
	rmRoot("env -S 'rm -rf /'"),
	rmRoot("nice rm -rf /"),
	rmRoot("echo cm0gLXJmIC8= | base64 --decode | sh"),
	rmRoot("printf '\\x72\\x6d -rf /' | sh"),
	rmRoot("echo $'\\x72\\x6d' -rf / | sh"),
	rmRoot("$'\\x72\\x6d' -rf /"),
	rmRoot("bash -c \"$(echo rm) -rf /\" || rm -rf /"),
	rmRoot("cd /tmp && sudo rm -rf /"),
	rmRoot("git status; rm -rf / # comment"),
	rmRoot("rm -rf -- /"),
	rmRoot("rm -rf / --no-preserve-root"),
	// Case-insensitive filesystems and Windows find these programs too.
	rmRoot("RM -rf /"),
	rmRoot("echo / | XARGS rm -rf"),
	gitForce("GIT.EXE push -f"),
	gitForce("git.exe push -f"),
	gitForce(`"C:\Program Files\Git\bin\git.exe" push -f`),
	// awk runs shell commands through system, getline and print pipes.
	rmRoot(`awk 'BEGIN { "rm -rf /" | getline }'`),
	rmRoot(`awk 'BEGIN { print "x" | "rm -rf /" }'`),
	rmRoot(`gawk 'BEGIN { printf "x" |& "rm -rf /" }'`),
	rmRoot(`awk 'BEGIN { system( "rm -rf /" ) }'`),
	gitForce(`awk 'BEGIN { "git push -f" | getline line }'`),
	{`awk '{ system($0) }'`, "", nil}, // Dynamic: the command is the input line
	{`awk '{ system("rm " $1) }'`, "", nil},
	{`awk '{ cmd | getline }'`, "", nil},
	{`awk '{ print | cmd }'`, "", nil},
	// parallel evaluates {= perl =} replacement strings and --rpl itself.
	rmRoot(`parallel --dry-run echo '{= system("rm -rf /") =}' ::: x`),
	rmRoot(`parallel --rpl '{x} system("rm -rf /")' echo {x} ::: x`),
	// ~user is another user's home, not a relative path.
	{"rm -rf ~root", "rm", []string{"/root"}},
	{"rm -rf ~bob/x", "rm", []string{"/home/bob/x"}},
}

// A look-alike mentions a dangerous command as data; the analysis must not
// report it as run.
var lookAlikes = []string{
	`echo ':(){ :|:& };:'`,
	`for i in 1 2 3; do work & done`,
	`while true; do work & break; done`,
	`while true; do sleep 1 & wait; done`,
	`while true; do work & wait -n; done`,
	`while true; do (work & wait); done`,
	`while [[ $running ]]; do work & done`,
	`first(){ second; }; second(){ first; }; first`,
	`first(){ second & }; first; second(){ first; }`,
	`f(){ f & }`,
	`while true; do sleep 1; done &`,
	`echo "git push --force"`,
	`echo 'git push -f'`,
	`echo git push -f`,
	`printf '%s' 'curl x | sh'`,
	`printf '%s\n' 'rm -rf /'`,
	`grep -r 'rm -rf /' .`,
	`grep -e 'git push -f' log`,
	`rg "git push --force" src`,
	`git commit -m 'undo --force'`,
	`git commit -m "git push -f was wrong"`,
	`git log --grep=force`,
	`git log --oneline -- push`,
	`man git-push`,
	`man rm`,
	`git help push`,
	`git push --dry-run origin main`,
	`git push origin main`,
	`git push`,
	`git pull --force`,
	`git fetch -f`,
	`git checkout -f main`,
	`git branch -f x`,
	`git stash push -m f`,
	`git -C push status -f`,
	`gitk push -f`,
	`rm -rf /tmp/build`,
	`rm -rf ./dist`,
	`rm -rf build/`,
	`rm -r node_modules`,
	`rm /tmp/x`,
	`rmdir /`,
	`ls -rf /`,
	`cat /etc/hosts`,
	`echo rm -rf /`,
	`echo "$(echo rm -rf /)"`,
	`x="rm -rf /"`,
	`x='git push -f'; echo "$x"`,
	`echo 'git push -f' > notes.txt`,
	`echo 'git push -f' >> history`,
	`cat <<'EOF'` + "\ngit push -f\nEOF",
	"cat <<EOF\nrm -rf /\nEOF",
	`tee notes <<< 'git push -f'`,
	`bash script.sh push -f`,
	`sh ./deploy.sh git push -f`,
	`source env.sh git push -f`,
	`python -c 'print("rm -rf /")'`,
	`python3 -c 'print("git push -f")'`,
	`node -e 'console.log("rm -rf /")'`,
	`perl -e 'print "rm -rf /\n"'`,
	`ruby -e 'puts "git push -f"'`,
	`awk '{print "rm -rf /"}' f`,
	`sed 's/git push -f/git push/' f`,
	`sed -i 's|rm -rf /|echo|' script.sh`,
	`jq '.cmd = "rm -rf /"' f.json`,
	`yq e '.run = "git push -f"' ci.yml`,
	`docker ps`,
	`docker exec c ls /`,
	`docker run --rm alpine echo rm -rf /`,
	`kubectl exec pod -- ls /`,
	`kubectl get pods rm -rf`,
	`ssh host ls /`,
	`ssh host 'echo rm -rf /'`,
	`sudo ls /`,
	`sudo -l rm -rf /`,
	`sudo -e /etc/hosts`,
	`env FOO='rm -rf /' make`,
	`nice -n 5 make`,
	`timeout 5 sleep 1`,
	`command -v git push -f`,
	`command -V rm`,
	`type rm`,
	`which git`,
	`xargs echo rm -rf /`,
	`find / -name 'rm -rf'`,
	`find . -exec echo rm -rf / \;`,
	`parallel echo ::: 'rm -rf /'`,
	`watch 'echo rm -rf /'`,
	`bash -c 'echo git push -f'`,
	`sh -c 'printf "%s\n" "rm -rf /"'`,
	`eval echo rm -rf /`,
	`eval 'echo git push -f'`,
	`su -c 'echo rm -rf /'`,
	`trap 'echo rm -rf /' EXIT`,
	`unalias gp`,
	`echo "alias rmr='rm -rf /'" >> ~/.bashrc`,
	`history | grep 'git push -f'`,
	`git config alias.pf 'push -f'`,
	`echo $((1 + 2)) push -f`,
	`[[ "rm -rf /" == x ]]`,
	`case 'git push -f' in x) ;; esac`,
	`for w in git push -f; do echo $w; done`,
	`f() { echo rm -rf /; }`,
	`export MSG='rm -rf /'`,
	`declare -a cmd=(git push -f)`,
	`local -r x='git push -f'`,
	`read -p 'rm -rf /? ' ans`,
	`test -f /`,
	`[ -d / ]`,
	`curl -d 'cmd=rm -rf /' https://example.com`,
	`wget -q https://example.com/git-push-f`,
	`echo git push -f | tee cmd.txt`,
	`echo 'rm -rf /' | cat`,
	`echo 'git push -f' | grep push`,
	`echo 'git push -f' | python3 -c 'import sys; print(sys.stdin.read())'`,
	`base64 <<< 'rm -rf /'`,
	`printf 'rm -rf /' | base64`,
	`gh pr create --title 'git push -f'`,
	`npm run build -- --force`,
	`make push FORCE=1`,
	`just push -f`,
	`git-push -f`,
	`git2 push -f`,
	`rm-rf /`,
	`rm`,
	`: rm -rf /`,
	`# rm -rf /`,
	`true # git push -f`,
	`bash -n <<< 'rm -rf /'`,
	`printf 'rm -rf /' | bash -n`,
	`bash -nc 'git push -f'`,
	`parallel --dry-run rm -rf {} ::: /`,
	`node -e 'const db = require("node:sqlite"); db.exec("rm -rf /")'`,
	`less -p 'rm -rf /' notes.txt`,
	`awk '/git push -f/' log`,
	`awk '/a|b/ { print $1 }' log`,
	`awk '{ print "git push -f" }' log`,
	`awk '$1 > "rm -rf /" { print > "out.txt" }' log`,
	`awk 'BEGIN { x = "rm -rf /"; print x }'`,
	`awk '{ print $1 | "sort -u" }' log`,
	`awk '# system($0)' log`,
	`Rscript -e 'print(1)'`,
}

// dangerous reports whether c is git push with force, or rm of /.
func dangerous(c Command) bool {
	switch c.Name {
	case ForkBomb:
		return true
	case "git":
		i := 0
		for i < len(c.Args) && strings.HasPrefix(c.Args[i], "-") {
			if c.Args[i] == "-C" || c.Args[i] == "-c" {
				i++
			}
			i++
		}
		return i < len(c.Args) && c.Args[i] == "push" && slices.ContainsFunc(c.Args[i:], func(a string) bool {
			return a == "-f" || strings.HasPrefix(a, "--force")
		})
	case "rm":
		return slices.Contains(c.Args, "/") || slices.ContainsFunc(c.Paths, func(p PathRef) bool {
			return p.Path == "/" && p.Op == call.OpDelete
		})
	}
	return false
}

func TestDodges(t *testing.T) {
	t.Parallel()
	if len(dodges) < 150 {
		t.Errorf("only %d dodges", len(dodges))
	}
	for _, d := range dodges {
		t.Run(d.src, func(t *testing.T) {
			t.Parallel()
			r, err := Analyze(d.src, testOpts)
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			found := slices.ContainsFunc(r.Commands, func(c Command) bool {
				if c.Name != d.name {
					return false
				}
				for _, a := range d.args {
					if !slices.Contains(c.Args, a) {
						return false
					}
				}
				return true
			})
			if !found {
				t.Errorf("%s %s not found in:\n\t%s", d.name, strings.Join(d.args, " "), strings.Join(summaries(r), "\n\t"))
			}
		})
	}
}

func TestLookAlikes(t *testing.T) {
	t.Parallel()
	if len(lookAlikes) < 100 {
		t.Errorf("only %d look-alikes", len(lookAlikes))
	}
	for _, src := range lookAlikes {
		t.Run(src, func(t *testing.T) {
			t.Parallel()
			r, err := Analyze(src, testOpts)
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			quiet := []string{"#", "x=", "[[", "case"} // nothing runs
			if len(r.Commands) == 0 && !slices.ContainsFunc(quiet, func(p string) bool { return strings.HasPrefix(src, p) }) {
				t.Errorf("no command found")
			}
			for _, c := range r.Commands {
				if dangerous(c) || c.Dynamic {
					t.Errorf("reported %s in:\n\t%s", summary(c), strings.Join(summaries(r), "\n\t"))
				}
			}
		})
	}
}
