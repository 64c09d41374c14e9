package shellparse

import (
	"slices"
	"testing"
)

// TestCodeHomeArgs: an argv-style exec whose argument names the home
// directory through the environment gives that path (Options.Home);
// other expressions stay what they were.
func TestCodeHomeArgs(t *testing.T) {
	cases := []struct{ src, want string }{
		{`python3 -c 'import subprocess,os; subprocess.run(["rm","-rf",os.environ["HOME"]])'`, "rm -rf /home/u"},
		{`python3 -c 'import subprocess,os; subprocess.run(["rm","-rf",os.environ['"'"'HOME'"'"'] + "/.ssh"])'`, "rm -rf /home/u/.ssh"},
		{`python3 -c 'import os; os.execvp("rm", ["rm","-rf",os.path.expanduser("~")])'`, "rm -rf /home/u"},
		{`python3 -c 'import subprocess; from pathlib import Path; subprocess.call(["rm","-r",str(Path.home())])'`, "rm -r /home/u"},
		{`node -e 'require("child_process").spawnSync("rm",["-rf",process.env.HOME])'`, "rm -rf /home/u"},
		{`node -e 'require("child_process").execFileSync("rm",["-rf",require("os").homedir()])'`, "rm -rf /home/u"},
		{`perl -e 'system("rm","-rf",$ENV{HOME})'`, "rm -rf /home/u"},
		{`perl -e 'system "rm", "-rf", $ENV{HOME} . "/.aws"'`, "rm -rf /home/u/.aws"},
		{`perl -e 'system("rm","-rf","$ENV{HOME}/.ssh")'`, "rm -rf /home/u/.ssh"},
		{`ruby -e 'system("rm","-rf",Dir.home)'`, "rm -rf /home/u"},
		{`ruby -e 'system("rm","-rf",ENV["HOME"])'`, "rm -rf /home/u"},
		{`ruby -e 'system("rm","-rf","#{Dir.home}/.aws")'`, "rm -rf /home/u/.aws"},
		{`deno run -A npm:rimraf@5 ~`, "rimraf /home/u"},
		{`deno run --config x.json -A jsr:@scope/tool a`, "tool a"},

		// Look-alikes: a joined rest that is not a literal path, another
		// variable, the home of another variable.
		{`python3 -c 'import subprocess,os; subprocess.run(["rm","-rf",os.environ["HOME"] + d])'`, `rm -rf os.environ["HOME"] + d`},
		{`python3 -c 'import subprocess,os; subprocess.run(["rm","-rf",os.environ["HOMEDIR"]])'`, `rm -rf os.environ["HOMEDIR"]`},
		{`perl -e 'system("rm","-rf",$dir)'`, "rm -rf"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			r, err := Analyze(c.src, testOpts)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for i := range r.Commands {
				lines = append(lines, r.Commands[i].Line())
			}
			if !slices.Contains(lines, c.want) {
				t.Errorf("no command %q in %q", c.want, lines)
			}
		})
	}
}
