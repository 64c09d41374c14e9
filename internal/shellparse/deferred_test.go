package shellparse

import "testing"

// TestDeferred: at, batch and crontab run the commands they read from a
// known standard input (a crontab's command column); screen, tmux,
// expect, nsenter, run0, daemonize and start-stop-daemon run theirs; the
// delete programs package runners fetch (rimraf, del-cli, trash) are
// rm -rf of their operands. Typed keys and an unknown input are Dynamic.
func TestDeferred(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"echo 'rm -rf /' | at now", []string{"echo \"rm -rf /\"", "at now src=echo:other:pipe", "rm -rf / <- at src=echo:other:pipe paths=delete:/"}},
		{"at now <<< 'ls'", []string{"at now", "ls <- at"}},
		{"at -f job.sh now", []string{"at -f job.sh now"}},
		{"at -l", []string{"at -l"}},
		{"echo '* * * * * rm -rf / # x' | crontab -", []string{"echo \"* * * * * rm -rf / # x\"", "crontab - src=echo:other:pipe", "rm -rf / <- crontab src=echo:other:pipe paths=delete:/"}},
		{"printf '%s\\n' 'SHELL=/bin/sh' '@reboot make' | crontab -", []string{"printf %s\\n SHELL=/bin/sh \"@reboot make\"", "crontab - src=printf:other:pipe", "make <- crontab src=printf:other:pipe"}},
		{"crontab -l", []string{"crontab -l"}},
		{"crontab file", []string{"crontab file"}},
		{"screen -dmS x rm -rf /", []string{"screen -dmS x rm -rf /", "rm -rf / <- screen paths=delete:/"}},
		{"screen -ls", []string{"screen -ls"}},
		{"screen -S x -X stuff 'rm -rf /'", []string{"screen -S x -X stuff \"rm -rf /\"", "$(DYN screen -X stuff) <- screen -X"}},
		{"tmux new -d -s x 'rm -rf /'", []string{"tmux new -d -s x \"rm -rf /\"", "rm -rf / <- tmux new paths=delete:/"}},
		{"tmux send-keys -t x 'ls' Enter", []string{"tmux send-keys -t x ls Enter", "$(DYN tmux send-keys) <- tmux send-keys"}},
		{"tmux ls", []string{"tmux ls"}},
		{"nsenter -t 1 -m -u rm -rf /", []string{"nsenter -t 1 -m -u rm -rf /", "rm -rf / <- nsenter paths=delete:/"}},
		{"run0 -u root rm -rf /", []string{"run0 -u root rm -rf /", "rm -rf / <- run0 paths=delete:/"}},
		{"systemd-run --on-active=30 rm -rf /", []string{"systemd-run --on-active=30 rm -rf /", "rm -rf / <- systemd-run paths=delete:/"}},
		{"expect -c 'spawn rm -rf /; expect eof'", []string{"expect -c \"spawn rm -rf /; expect eof\"", "rm -rf / <- expect spawn paths=delete:/"}},
		{"expect -c 'spawn ssh host'", []string{"expect -c \"spawn ssh host\"", "ssh host <- expect spawn"}},
		{"daemonize /usr/bin/rm -rf /", []string{"daemonize /usr/bin/rm -rf /", "rm -rf / <- daemonize paths=delete:/"}},
		{"start-stop-daemon --start --exec /bin/rm -- -rf /", []string{"start-stop-daemon --start --exec /bin/rm -- -rf /", "rm -rf / <- start-stop-daemon paths=delete:/"}},
		{"npx -y rimraf /", []string{"npx -y rimraf /", "rimraf / <- npx", "rm -rf -- / <- npx/rimraf paths=delete:/"}},
		{"npx rimraf@5 dist", []string{"npx rimraf@5 dist", "rimraf dist <- npx", "rm -rf -- dist <- npx/rimraf paths=delete:/w/dist"}},
		{"npx @scope/tool@1.2 x", []string{"npx @scope/tool@1.2 x", "tool x <- npx"}},
		{"pnpm dlx rimraf /", []string{"pnpm dlx rimraf /", "rimraf / <- pnpm dlx", "rm -rf -- / <- pnpm dlx/rimraf paths=delete:/"}},
		{"yarn dlx del-cli /", []string{"yarn dlx del-cli /", "del-cli / <- yarn dlx", "rm -rf -- / <- yarn dlx/del-cli paths=delete:/"}},
		{"bunx trash ~", []string{"bunx trash /home/u", "trash /home/u <- bunx", "rm -rf -- /home/u <- bunx/trash paths=delete:/home/u"}},
		{"npm exec --yes -- rimraf /", []string{"npm exec --yes -- rimraf /", "rimraf / <- npx", "rm -rf -- / <- npx/rimraf paths=delete:/"}},
		{"rimraf --dry-run /", []string{"rimraf --dry-run /"}},
		{"del /s /q build", []string{"del /s /q build", "rm -rf -- build <- del paths=delete:/w/build"}},
		{"shx rm -rf /", []string{"shx rm -rf /", "rm -rf / <- shx paths=delete:/"}},
	})
}
