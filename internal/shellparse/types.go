package shellparse

import (
	"errors"
	"fmt"

	"github.com/toolguard/toolguard/internal/call"
)

// Options bound and direct an analysis. The zero value is usable: limits
// take their defaults and relative paths stay relative.
type Options struct {
	Cwd  string // directory relative path targets are resolved against; "" leaves them relative
	Home string // value of ~ and $HOME; "" leaves them unexpanded

	MaxBytes int // input size limit; 0 means DefaultMaxBytes
	MaxDepth int // nested shell depth limit (bash -c inside bash -c …); 0 means DefaultMaxDepth
	MaxNodes int // AST node limit over the whole analysis; 0 means DefaultMaxNodes

	// ReadScript, when set, returns the text of a local script file that
	// a command runs (bash FILE, sh FILE, source FILE, . FILE, ./FILE,
	// python3 FILE.py, node FILE.js, ruby FILE.rb, perl FILE.pl) and that
	// the string itself did not write: the text is analyzed as if it were
	// given inline. path is absolute and cleaned. The analysis itself
	// never touches the filesystem; the caller decides what may be read
	// (regular files, a size cap, nothing secret). It returns ErrNoScript
	// to leave the file out (none there, not the agent's to read, not a
	// script): the command is judged as written. Any other error — a file
	// that is there but cannot be judged (too large, not a regular file) —
	// makes the command Dynamic: padding a script past the cap must not
	// hide it. A file changed after the analysis is not seen again.
	ReadScript func(path string) (text string, err error)
}

// ErrNoScript is what Options.ReadScript returns for a file to leave out.
var ErrNoScript = errors.New("no script to read")

const (
	DefaultMaxBytes = 4 << 20
	DefaultMaxDepth = 16
	DefaultMaxNodes = 1 << 20
)

// Result is everything a shell string would run, as far as the parser can
// prove it without executing anything.
type Result struct {
	// Commands holds every simple command, in source order, wrappers and the
	// commands they wrap alike (`sudo rm -rf /` gives both `sudo …` and
	// `rm -rf /`).
	Commands []Command
}

// Command is one simple command the string would run.
type Command struct {
	// Name is the program's base name with quotes and a leading backslash
	// removed ("/usr/bin/git", "g''it" and "\git" are all "git"). Empty when
	// Dynamic.
	Name string
	// Args are the words after the program, quotes removed. A word that is
	// not fully literal is kept as its source text (e.g. "$DIR") after
	// constant propagation of earlier literal assignments.
	Args []string
	// Dynamic reports that the program (or, for eval / sh -c, the script) is
	// known only at run time: `$cmd`, `"$(…)"`, `eval "$x"`, `sh -c "$x"`.
	Dynamic bool
	// DynamicText is the source text of the dynamic part, for messages.
	DynamicText string

	// Wrappers lists the wrappers and shells this command was unwrapped
	// from, outermost first: ["sudo", "bash -c"].
	Wrappers []string

	// Sources lists commands whose output this command executes or reads
	// as code: earlier stages of its pipeline, process substitutions given
	// as its script, command substitutions in its arguments.
	Sources []Source

	// Env holds the NAME=value assignments in effect for this command
	// that the string itself makes: prefix assignments (`X=1 cmd`),
	// `env X=1 cmd`, and variables exported earlier in the same script
	// (`export X=1; cmd`). Values as far as literals allow.
	Env []string

	// Inline is the inline program text of an interpreter one-liner
	// (python -c, perl -e, ruby -e, node -e/-p, php -r …); empty otherwise.
	Inline string

	// Stdin is the text the command reads on standard input when the
	// string spells it out: a here-document, a here-string, or the output
	// of echo/printf (or cat of one of those) piped in. "" when unknown or
	// empty. Rules' regex also tries it (`echo 'DROP TABLE t' | psql`).
	Stdin string

	// Effects are effects the analysis found in the command's inline code
	// (knowledge's names: "destroys-data", "sends-secret", …; effects.go).
	Effects []string

	// Paths are the paths this command writes, deletes or reads, resolved
	// against Options.Cwd (and any literal `cd` before it), `~`/$HOME
	// expanded, cleaned.
	Paths []PathRef

	// Prog is the program word resolved to an absolute, cleaned path when
	// it names a path (./d/install.sh, /opt/x/bin/y); "" for a name PATH
	// finds, or when the directory it is relative to is not known.
	Prog string
	// Dir is the directory the command runs in (Options.Cwd and any
	// literal cd before it); "" when not known.
	Dir string

	Pos Pos // where the command starts in the outermost string
}

// Line is the normalized command line: the name and arguments joined by
// single spaces, quotes removed.
func (c *Command) Line() string {
	n := len(c.Name)
	for _, a := range c.Args {
		n += 1 + len(a)
	}
	b := make([]byte, 0, n)
	b = append(b, c.Name...)
	for _, a := range c.Args {
		b = append(b, ' ')
		b = append(b, a...)
	}
	return string(b)
}

// SourceClass says what kind of content a source produces.
type SourceClass int

const (
	SourceOther   SourceClass = iota
	SourceNetwork             // curl, wget, nc, …
	SourceDecoder             // base64 -d, xxd -r, openssl … -d, …
)

func (c SourceClass) String() string {
	switch c {
	case SourceNetwork:
		return "network"
	case SourceDecoder:
		return "decoder"
	case SourceDownload:
		return "download"
	}
	return "other"
}

// Source is a command whose output feeds another command.
type Source struct {
	Name  string      // program base name of the source
	Class SourceClass // network, decoder or other
	Via   string      // "pipe", "procsubst", "cmdsubst", "herestring", "heredoc"
}

// PathRef is one path a command names, with what it does to it.
type PathRef struct {
	Path    string  // resolved as far as literals allow
	Op      call.Op // write, delete or read
	Dynamic bool    // the path is not fully literal
	// Pattern marks a path that stands for what a program selects by name
	// below a directory (find . -name '*.orig' -delete deletes
	// ./**/*.orig), not a shell glob the shell expands: the wildcards
	// are find's, and ** is any depth.
	Pattern bool
}

// Pos is a 1-based line and column.
type Pos struct{ Line, Col int }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// ParseError is a shell string that does not parse.
type ParseError struct {
	Pos Pos
	Msg string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s: %s", e.Pos, e.Msg) }

// LimitError is an input that exceeds one of the Options limits.
type LimitError struct {
	Limit string // "size", "depth", "nodes" or "nesting"
	Max   int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("shell input exceeds the %s limit (%d)", e.Limit, e.Max)
}

// InternalError is a bug in the analysis (a recovered panic). It is never
// expected; callers should treat it like a failure to analyze.
type InternalError struct {
	Msg string
}

func (e *InternalError) Error() string { return "shell analysis failed: " + e.Msg }
