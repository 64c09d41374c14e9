// Package knowledge is what toolguard knows about programs and places, as
// reviewed data: programs.toml (the effects of known program and
// subcommand shapes: gh auth token reads a secret, rclone purge destroys
// data) and places.toml (where credentials live, and the home dotfiles
// that are harmless to read). `go generate ./internal/knowledge` turns the
// two files into static tables (tables_gen.go, one entry a line) and the
// reference pages docs/programs.md and docs/secrets.md; TestGenerated
// fails while they are stale.
//
// The package holds data only. The policy gives the data its meaning
// (internal/policy/effects.go): a program entry is matched like a rule's
// command fields (command prefixes, args, args_none, regex), a place like
// a rule's path patterns, and a rule names effects with `effect = [...]`.
// Every entry's match/not_match examples are run through shellparse and
// the policy (internal/policy/effects_test.go).
//
// It is its own package, not a file of shellparse or policy, because both
// sides use it (the policy matches it; the docs generator and a reviewer
// read it) and because a reviewer should be able to audit one directory:
// what toolguard thinks `rclone purge` does is one hunk of programs.toml.
package knowledge

//go:generate go run ./kgen/run

// The effects a program entry, a place or the interpreter analysis can
// name. Rules match them with `effect = [...]`.
const (
	ReadsSecret      = "reads-secret"       // a credential store: a password manager, a cloud CLI's token, an agent's auth file
	ReadsHomeDotfile = "reads-home-dotfile" // a dotfile or dot-directory of the home directory not known as harmless
	DumpsEnv         = "dumps-env"          // another process's environment (ps e, /proc/PID/environ, gdb -p)
	NetworkSend      = "network-send"       // sends data to the network
	SendsSecret      = "sends-secret"       // a request whose URL or body carries an environment variable or key-shaped value
	RunsRemoteCode   = "runs-remote-code"   // runs code fetched from the network or a package source the project does not declare
	DestroysData     = "destroys-data"      // destroys a data store or a deployed resource
	SignalsAll       = "signals-all"        // signals every process of the user (kill -9 -1)
)

// Effect is one effect name and what it means (docs, validation).
type Effect struct {
	Name, Means string
}

// Effects lists every effect a rule may name.
var Effects = []Effect{
	{ReadsSecret, "reads a credential store: a password manager, a cloud or package CLI's token, an agent's own auth file, a browser's cookies or saved logins, a private key"},
	{ReadsHomeDotfile, "reads a dotfile or dot-directory of the home directory, outside the workspace, that is not on the harmless list (places.toml)"},
	{DumpsEnv, "prints another process's environment (ps e, /proc/PID/environ, gdb -p)"},
	{NetworkSend, "sends data to the network"},
	{SendsSecret, "sends an environment variable or a key-shaped value in a request's URL or body"},
	{RunsRemoteCode, "runs code fetched from the network, a git remote, a non-default registry or index, or a package the project does not declare"},
	{DestroysData, "destroys a data store or a deployed resource (a database, an app, a bucket)"},
	{SignalsAll, "signals every process of the user (kill -9 -1, pkill -u)"},
}

// KnownEffect reports whether name is an effect.
func KnownEffect(name string) bool {
	for _, e := range Effects {
		if e.Name == name {
			return true
		}
	}
	return false
}

// Program is one program or subcommand shape and its effects. Its fields
// mean what a rule's fields of the same names mean (docs/policy.md).
type Program struct {
	Command  []string // command prefixes: the program and leading positional words (globs)
	Args     []string // any of these argument globs must appear (none: no condition)
	ArgsNone []string // none of these may appear
	Regex    string   // the normalized command line must match (RE2)
	Declared string   // "npm", "python", "go": the effect holds only when the project does not declare or install the package the runner fetches
	Effects  []string
	Why      string // one line: what the program does that has the effect
	Match    []string
	NotMatch []string
	Line     int // the entry's line in programs.toml
}

// Place is a class of files with an effect when read: credential stores.
type Place struct {
	Name     string   // what lives there ("Gemini CLI OAuth tokens")
	Paths    []string // path patterns, as a rule's path field (~ is the home directory)
	PathNone []string // … exempt
	Effect   string
	Match    []string // paths that are this place
	NotMatch []string // paths that are not
	Line     int
}

// KeyHome says where a credential held in an environment variable belongs:
// the hosts its provider serves. A request that names one of Vars and
// goes to a host that is not one of Hosts sends the key away
// (sends-secret), however it is spelled (a header, a URL, a body, -u).
type KeyHome struct {
	Name     string   // the provider ("OpenAI")
	Vars     []string // environment variable name globs (OPENAI_API_KEY, OPENAI_*KEY)
	Hosts    []string // host globs: api.openai.com, *.openai.com (the name itself and any subdomain)
	Match    []string // commands that send the key away
	NotMatch []string // commands that send it home
	Line     int
}

// The tables themselves (Programs, Places, Harmless, KeyHomes) are in tables_gen.go.
