package shellparse

import (
	"slices"
	"strings"
)

// optSpec describes which options of a program take a value. Options not
// listed are flags.
type optSpec struct {
	short    string   // -x VAL or -xVAL
	optional string   // -xVAL only: the rest of the cluster, if any
	long     []string // --name VAL or --name=VAL
	// abbrev: the program takes a unique prefix of a long option for the
	// option (getopt_long, curl): --upl FILE is --upload-file FILE. flags
	// lists its long options without a value, so that a prefix of one
	// of them is not taken for a valued option (curl --ssl is not
	// --ssl-sessions). A prefix of several options is left as written
	// (the program refuses it).
	abbrev bool
	flags  []string
	// exact are value options taken only when spelled in full: those a
	// program added after it stopped taking prefixes (curl 8's), which
	// must not make an older prefix ambiguous.
	exact []string
}

// longName is the long option the word name ("--upl") stands for.
func (o optSpec) longName(name string) string {
	if !o.abbrev || len(name) < 3 || slices.Contains(o.long, name) || slices.Contains(o.flags, name) || slices.Contains(o.exact, name) {
		return name
	}
	found := ""
	for _, list := range [2][]string{o.long, o.flags} {
		for _, l := range list {
			if strings.HasPrefix(l, name) {
				if found != "" {
					return name
				}
				found = l
			}
		}
	}
	if found == "" {
		return name
	}
	return found
}

// takesValue reports whether the long option name takes a value.
func (o optSpec) takesValue(name string) bool {
	return slices.Contains(o.exact, name) || slices.Contains(o.long, o.longName(name))
}

// first returns the index of the first operand, options ending there (the
// POSIX order wrappers use: `sudo -u root git -C x` stops at git). A "--"
// ending the options is skipped. A word that is not literal counts as an
// operand: it may be the command itself.
func (o optSpec) first(args []field) int {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit {
			return i
		}
		s := f.s
		switch {
		case s == "--":
			return i + 1
		case len(s) < 2 || s[0] != '-':
			return i
		case s[1] == '-':
			if !strings.Contains(s, "=") && o.takesValue(s) {
				i++
			}
		default:
			if o.shortTakesNext(s) {
				i++
			}
		}
	}
	return len(args)
}

// firstAlt is first when every long option the table cannot place takes
// the next word: a table without the program's flags (abbrev unset) does
// not know whether --foo is a flag or a value option it left out, or a
// prefix of one (Getopt::Long and getopt_long take prefixes: parallel
// --jo 4, strace --out F). ok is false when no option is in doubt, or
// when the result is first's.
func (o optSpec) firstAlt(args []field) (int, bool) {
	doubt := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit {
			return i, doubt && i != o.first(args)
		}
		s := f.s
		switch {
		case s == "--":
			return i + 1, doubt && i+1 != o.first(args)
		case len(s) < 2 || s[0] != '-':
			return i, doubt && i != o.first(args)
		case s[1] == '-':
			if !strings.Contains(s, "=") {
				if o.takesValue(s) {
					i++
				} else if !o.abbrev && !slices.Contains(o.flags, s) {
					doubt = true
					i++
				}
			}
		default:
			if o.shortTakesNext(s) {
				i++
			}
		}
	}
	n := len(args)
	return n, doubt && n != o.first(args)
}

// shortTakesNext reports whether the cluster s ("-abc") ends in an option
// whose value is the next word.
func (o optSpec) shortTakesNext(s string) bool {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if strings.IndexByte(o.optional, c) >= 0 {
			return false
		}
		if strings.IndexByte(o.short, c) >= 0 {
			return j == len(s)-1
		}
	}
	return false
}

// option is one option found by parse: its name ("-t", "--target-directory")
// and its value, when it takes one.
type option struct {
	name string
	val  *field
}

// parse walks args the GNU way: options may follow operands until "--". It
// returns the options and the operands.
func (o optSpec) parse(args []field) (opts []option, operands []field) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		if !f.lit && strings.HasPrefix(s, "--") {
			// --name=$VALUE: a known option with an unknown value.
			if name, val, ok := strings.Cut(s, "="); ok && !strings.ContainsAny(name, "$`") {
				v := f
				v.s = val
				opts = append(opts, option{o.longName(name), &v})
				continue
			}
		}
		if !f.lit || len(s) < 2 || s[0] != '-' {
			operands = append(operands, f)
			continue
		}
		if s == "--" {
			operands = append(operands, args[i+1:]...)
			return opts, operands
		}
		if s[1] == '-' {
			name, val, ok := strings.Cut(s, "=")
			name = o.longName(name)
			switch {
			case ok:
				v := litField(val, f.pos)
				opts = append(opts, option{name, &v})
			case (slices.Contains(o.long, name) || slices.Contains(o.exact, name)) && i+1 < len(args):
				i++
				opts = append(opts, option{name, &args[i]})
			default:
				opts = append(opts, option{name: name})
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			name := "-" + string(c)
			if strings.IndexByte(o.optional, c) >= 0 {
				var v *field
				if j+1 < len(s) {
					r := litField(s[j+1:], f.pos)
					v = &r
				}
				opts = append(opts, option{name, v})
				break
			}
			if strings.IndexByte(o.short, c) >= 0 {
				switch {
				case j+1 < len(s):
					r := litField(s[j+1:], f.pos)
					opts = append(opts, option{name, &r})
				case i+1 < len(args):
					i++
					opts = append(opts, option{name, &args[i]})
				default:
					opts = append(opts, option{name: name})
				}
				break
			}
			opts = append(opts, option{name: name})
		}
	}
	return opts, operands
}

// has reports whether any of names was given.
func has(opts []option, names ...string) bool {
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			return true
		}
	}
	return false
}

// values returns the values given to any of names, in order.
func values(opts []option, names ...string) []field {
	var out []field
	for _, o := range opts {
		if o.val != nil && slices.Contains(names, o.name) {
			out = append(out, *o.val)
		}
	}
	return out
}

// isAssignment reports whether s is a NAME=value word.
func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && isName(name)
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// joinFields joins words with spaces into one field, as ssh and watch do
// before handing them to a shell.
func joinFields(fs []field) field {
	if len(fs) == 0 {
		return field{lit: true}
	}
	out := field{lit: true, pos: fs[0].pos}
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.s)
		out.lit = out.lit && f.lit
		out.subst = out.subst || f.subst
		out.text = out.text || f.text
		out.srcs = appendSources(out.srcs, f.srcs...)
	}
	out.s = b.String()
	return out
}

func texts(fs []field) []string {
	if len(fs) == 0 {
		return nil
	}
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.s
	}
	return out
}
