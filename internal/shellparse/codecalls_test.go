package shellparse

import "testing"

// TestCodeCallsDynamic: argv-style execs give their command (os.execvp,
// os.execl); a system/exec whose command is not a literal, or a literal
// joined to more, is Dynamic; look-alikes (asyncio.run, a literal
// command) are not.
func TestCodeCallsDynamic(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"python3 -c 'import os; os.execvp(\"rm\", [\"rm\", \"-rf\", \"/\"])'", []string{"python3 -c \"import os; os.execvp(\\\"rm\\\", [\\\"rm\\\", \\\"-rf\\\", \\\"/\\\"])\" inline=\"import os; os.execvp(\\\"rm\\\", [\\\"rm\\\", \\\"-rf\\\", \\\"/\\\"])\"", "rm -rf / <- python3 -c paths=delete:/"}},
		{"python3 -c 'import os; os.execl(\"/bin/rm\", \"rm\", \"-rf\", \"/\")'", []string{"python3 -c \"import os; os.execl(\\\"/bin/rm\\\", \\\"rm\\\", \\\"-rf\\\", \\\"/\\\")\" inline=\"import os; os.execl(\\\"/bin/rm\\\", \\\"rm\\\", \\\"-rf\\\", \\\"/\\\")\"", "rm -rf / <- python3 -c paths=delete:/"}},
		{"python3 -c 'import os; os.system(cmd)'", []string{"python3 -c \"import os; os.system(cmd)\" inline=\"import os; os.system(cmd)\"", "$(DYN system(cmd)) <- python3 -c"}},
		{"python3 -c 'import os; os.system(\"rm -rf \" + d)'", []string{"python3 -c \"import os; os.system(\\\"rm -rf \\\" + d)\" inline=\"import os; os.system(\\\"rm -rf \\\" + d)\"", "$(DYN system(\"rm -rf \" + d)) <- python3 -c"}},
		{"python3 -c 'import subprocess; subprocess.run(cmd, shell=True)'", []string{"python3 -c \"import subprocess; subprocess.run(cmd, shell=True)\" inline=\"import subprocess; subprocess.run(cmd, shell=True)\"", "$(DYN run(cmd, shell=True)) <- python3 -c"}},
		{"python3 -c 'import asyncio; asyncio.run(main())'", []string{"python3 -c \"import asyncio; asyncio.run(main())\" inline=\"import asyncio; asyncio.run(main())\""}},
		{"python3 -c 'import os; os.system(\"ls -la\")'", []string{"python3 -c \"import os; os.system(\\\"ls -la\\\")\" inline=\"import os; os.system(\\\"ls -la\\\")\"", "ls -la <- python3 -c"}},
		{"perl -e 'system $cmd'", []string{"perl -e \"system $cmd\" inline=\"system $cmd\"", "$(DYN system $cmd) <- perl -e"}},
		{"perl -e 'system(\"make\") == 0 or die'", []string{"perl -e \"system(\\\"make\\\") == 0 or die\" inline=\"system(\\\"make\\\") == 0 or die\"", "make <- perl -e"}},
		{"ruby -e 'system(ARGV[0])'", []string{"ruby -e system(ARGV[0]) inline=\"system(ARGV[0])\"", "$(DYN system(ARGV[0])) <- ruby -e"}},
		{"node -e 'require(\"child_process\").execSync(c)'", []string{"node -e \"require(\\\"child_process\\\").execSync(c)\" inline=\"require(\\\"child_process\\\").execSync(c)\"", "$(DYN execSync(c)) <- node -e"}},
	})
}
