package shellparse

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Aliases defined earlier in the string (alias ll='rm -rf') are expanded
// where a command's first word names one: the body followed by the rest
// of the command's words is analyzed as a script run in the same shell.
// bash -c expands aliases only after shopt -s expand_aliases, zsh, dash
// and interactive shells always: the analysis expands them either way,
// and reports the command as written too (alias rm=echo; rm -rf / still
// gives rm -rf /, which bash without expand_aliases runs). An alias is not
// expanded inside its own expansion (alias ls='ls -la'); the expansions
// share the budget of nested scripts (maxScripts).

const maxAliases = 64

// defineAliases records the NAME=BODY words of an alias command, and
// forgets the names unalias gives (unalias -a: all).
func (a *analyzer) defineAliases(name string, args []field) {
	for _, f := range args {
		if !f.lit {
			continue
		}
		if name == "unalias" {
			if f.s == "-a" {
				clear(a.aliases)
			}
			delete(a.aliases, f.s)
			continue
		}
		n, body, ok := strings.Cut(f.s, "=")
		if !ok || n == "" || strings.ContainsAny(n, " \t\n/$`\"'\\") {
			continue
		}
		if a.aliases == nil {
			a.aliases = map[string]string{}
		}
		if _, ok := a.aliases[n]; ok || len(a.aliases) < maxAliases {
			a.aliases[n] = body
		}
	}
}

// expandAlias analyzes c with its first word replaced by the alias body,
// when it names an alias. It runs after c itself was analyzed.
func (a *analyzer) expandAlias(c *syntax.CallExpr, sc *scope, fr *frame) {
	if len(a.aliases) == 0 || len(c.Args) == 0 || len(c.Args[0].Parts) != 1 {
		return
	}
	l, ok := c.Args[0].Parts[0].(*syntax.Lit)
	if !ok {
		return // a quoted or escaped word is not an alias
	}
	body, ok := a.aliases[l.Value]
	if !ok || a.expanding[l.Value] {
		return
	}
	var b strings.Builder
	b.WriteString(body)
	for _, w := range c.Args[1:] {
		b.WriteByte(' ')
		b.WriteString(nodeText(fr.src, w))
	}
	if a.expanding == nil {
		a.expanding = map[string]bool{}
	}
	a.expanding[l.Value] = true
	defer delete(a.expanding, l.Value)
	wrappers := fr.wrappers
	if len(wrappers) == 0 || wrappers[len(wrappers)-1] != "alias" {
		wrappers = append(slices.Clip(wrappers), "alias")
	}
	x := runCtx{sc: sc, fr: fr, wrappers: wrappers, env: fr.env, depth: fr.depth, direct: true, pos: a.pos(c.Pos(), fr)}
	a.script(litField(b.String(), c.Pos()), x, true)
}
