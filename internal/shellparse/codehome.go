package shellparse

import "strings"

// homeExprs are the ways interpreter code names the home directory without
// a literal path, as one argument of an argv-style exec
// (subprocess.run(["rm", "-rf", os.environ["HOME"]]), system("rm", "-rf",
// $ENV{HOME}), spawnSync("rm", ["-rf", process.env.HOME])). Quotes inside
// are compared with ' and " alike.
var homeExprs = []string{
	`os.environ["HOME"]`, `os.environ.get("HOME")`, `os.getenv("HOME")`, `getenv("HOME")`,
	`os.path.expanduser("~")`, `os.path.expanduser("~/")`, `Path.home()`, `pathlib.Path.home()`,
	`str(Path.home())`, `str(pathlib.Path.home())`, `os.homedir()`, `require("os").homedir()`,
	`process.env.HOME`, `process.env["HOME"]`, `Deno.env.get("HOME")`, `Bun.env.HOME`,
	`ENV["HOME"]`, `ENV.fetch("HOME")`, `Dir.home`, `Dir.home()`, `$ENV{HOME}`, `$ENV{"HOME"}`,
	`File.expand_path("~")`, `$_SERVER["HOME"]`,
}

// codeHomeArg returns the path an argv element names when it is the home
// directory reached through the environment (above), alone or joined to a
// literal rest (os.environ["HOME"] + "/.ssh", $ENV{HOME} . "/.ssh"), or a
// Perl or Ruby string that interpolates it ("$ENV{HOME}/.ssh",
// "#{Dir.home}/.ssh"). home is Options.Home, "~" when unknown.
func codeHomeArg(s string, lit bool, home string) (string, bool) {
	if home == "" {
		home = "~"
	}
	s = strings.TrimSpace(s)
	if lit {
		for _, p := range []string{"$ENV{HOME}", "${ENV{HOME}}", "#{ENV['HOME']}", `#{ENV["HOME"]}`, "#{Dir.home}"} {
			if rest, ok := strings.CutPrefix(s, p); ok && (rest == "" || rest[0] == '/') && !strings.ContainsAny(rest, "$#{") {
				return home + rest, true
			}
		}
		return "", false
	}
	norm := strings.ReplaceAll(s, "'", `"`)
	for _, e := range homeExprs {
		rest, ok := strings.CutPrefix(norm, e)
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		if rest == "" {
			return home, true
		}
		// + "/sub" (Python, JS, Ruby) or . "/sub" (Perl): a literal rest.
		if rest[0] != '+' && rest[0] != '.' {
			return "", false
		}
		rest = strings.TrimSpace(rest[1:])
		if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
			return "", false
		}
		sub := rest[1 : len(rest)-1]
		if strings.ContainsAny(sub, `"\$#{`) || !strings.HasPrefix(sub, "/") {
			return "", false
		}
		return home + sub, true
	}
	return "", false
}
