package shellparse

import (
	"sort"
	"strings"
)

// roSpec is what one program (or git/go subcommand) may be given and
// still only read. Options not listed are not read-only.
type roSpec struct {
	flags    string          // short flags taking no value ("lahR")
	valFlags string          // short flags taking a value (-n 5, -n5)
	optFlags string          // short flags whose value is only the rest of the word (od -w16, date -Iseconds)
	pathVals string          // … of which the value is a file read (grep -f F)
	long     map[string]int  // long options: the number of values they take (--lines=N counts as given)
	pathLong map[string]bool // long options whose value is a file read
	numeric  bool            // -NUM is accepted (head -20)
	noPaths  bool            // operands are not files (tr, which, date)
	maxPos   int             // at most this many operands; 0 for no limit
	gitPaths bool            // operands may be REV:PATH; the path is read too
	echo     bool            // any words, dynamic ones included: prints them, reads nothing
	single   bool            // Go-style options: -name and --name are both long (go list -json)
	sub      map[string]*roSpec
	subReq   bool // a subcommand must be given
	// check replaces the generic option parsing: it judges the whole
	// argument list (a sed script, an awk program, a find expression),
	// records reads with p.read and returns why not ("" when read-only).
	check func(p *roProver, name string, args []string) string
	// post judges the parsed options and operands further (git branch
	// lists only with --list).
	post func(opts map[string]bool, ops []string) string
}

func longs(spec string) map[string]int {
	m := map[string]int{}
	for _, f := range strings.Fields(spec) {
		n, v := f, 0
		switch {
		case strings.HasSuffix(f, "=="):
			n, v = strings.TrimSuffix(f, "=="), 2
		case strings.HasSuffix(f, "="):
			n, v = strings.TrimSuffix(f, "="), 1
		}
		if old, ok := m[n]; ok && old != v {
			v = -1 // both forms listed: the value is optional and only given as --name=value
		}
		m[n] = v
	}
	return m
}

// ReadOnlyPrograms lists the programs of the read-only table, sorted (for
// docs and tests).
func ReadOnlyPrograms() []string {
	out := make([]string, 0, len(readOnlyTable.get()))
	for n := range readOnlyTable.get() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ReadOnlySystemPaths are the locations outside the workspace a read-only
// command may read and still be auto-allowed: system descriptions and
// headers anyone on the machine can read, with nothing of the user's.
var ReadOnlySystemPaths = []string{
	"/etc/os-release", "/etc/lsb-release", "/etc/debian_version", "/etc/alpine-release",
	"/usr/lib/os-release", "/usr/include", "/usr/share", "/usr/local/include",
	"/proc/cpuinfo", "/proc/meminfo", "/proc/version", "/proc/loadavg", "/proc/uptime",
	"/dev/null",
}

func grepLongOpts() map[string]int {
	return longs("recursive line-number ignore-case no-ignore-case files-with-matches files-without-match count invert-match word-regexp line-regexp extended-regexp fixed-strings basic-regexp perl-regexp only-matching no-messages quiet silent no-filename with-filename null null-data text binary-files= include= exclude= exclude-dir= color= colour= color colour max-count= after-context= before-context= context= regexp= file= label= byte-offset initial-tab line-buffered directories=")
}

var gitLogDiff = "oneline graph decorate decorate= all stat stat= shortstat numstat name-only name-status patch no-patch raw format= pretty= author= committer= since= until= after= before= grep= follow reverse no-merges merges first-parent abbrev-commit abbrev= date= max-count= skip= no-ext-diff no-textconv no-color color color= word-diff word-diff= ignore-all-space ignore-space-change cached staged unified= minimal patience histogram exit-code quiet diff-filter= relative relative= find-renames find-copies no-renames check summary full-index binary left-right cherry-pick topo-order date-order source walk-reflogs"

// readOnlyTable is built on first use (an analysis with auto_allow on): the
// hook pays nothing for it at start-up otherwise.
var readOnlyTable = lazy[map[string]*roSpec]{build: func() map[string]*roSpec {
	grepLong := grepLongOpts()
	return map[string]*roSpec{
		"ls":    {flags: "aAlhRrtSdFG1icsunmgopqQxXUvLHBk", valFlags: "Iw", long: longs("all almost-all human-readable recursive reverse sort= time= full-time classify color color= group-directories-first ignore= hide= directory inode size numeric-uid-gid literal quoting-style= format= width= si dereference indicator-style= time-style=")},
		"cat":   {flags: "nbAeEstTvu", long: longs("number number-nonblank show-all show-ends squeeze-blank show-tabs show-nonprinting")},
		"tac":   {flags: "brs", long: longs("before regex separator=")},
		"nl":    {flags: "p", valFlags: "bdfhilnsvw", long: longs("body-numbering= number-width= number-separator= number-format=")},
		"head":  {flags: "qvz", valFlags: "nc", numeric: true, long: longs("lines= bytes= quiet silent verbose zero-terminated")},
		"tail":  {flags: "qvz", valFlags: "nc", numeric: true, long: longs("lines= bytes= quiet silent verbose zero-terminated")}, // not -f: it never ends
		"wc":    {flags: "lwcmL", long: longs("lines words bytes chars max-line-length")},
		"grep":  {flags: "rniylLcvwxEFGPosqhHIaUzZb", valFlags: "efmABCdD", pathVals: "f", long: grepLong, pathLong: set("file")},
		"egrep": {flags: "rniylLcvwxosqhHIaZb", valFlags: "efmABC", pathVals: "f", long: grepLong, pathLong: set("file")},
		"fgrep": {flags: "rniylLcvwxosqhHIaZb", valFlags: "efmABC", pathVals: "f", long: grepLong, pathLong: set("file")},
		// rg: not --pre (runs a program), -z/--search-zip (runs decompressors),
		// -L/--follow (symlinks out of the workspace), -u/-./--hidden/--no-ignore
		// (hidden and ignored files such as .env); ag likewise (-f, -u, -U,
		// --hidden); grep not -R (follows symlinks).
		"rg":        {flags: "nNilcvwxFSsoqHIaP0", valFlags: "egtTmABCrdM", long: longs("line-number no-line-number ignore-case smart-case case-sensitive files-with-matches files-without-match count count-matches invert-match word-regexp line-regexp fixed-strings no-heading heading files type-list json vimgrep only-matching quiet with-filename no-filename glob= iglob= type= type-not= max-count= after-context= before-context= context= replace= max-depth= sort= sortr= color= colors= regexp= multiline multiline-dotall no-messages trim column byte-offset stats pcre2 crlf null text binary max-columns= max-filesize= threads= engine=")},
		"ag":        {flags: "ilLcvwQsSa0", valFlags: "gGmABC", long: longs("ignore= literal nocolor color depth= ignore-case smart-case case-sensitive files-with-matches files-without-matches count invert-match word-regexp max-count= after after= before before= context context= filename nofilename column noheading heading vimgrep")},
		"find":      {check: checkFind},
		"sed":       {flags: "nErsuz", valFlags: "el", long: longs("quiet silent regexp-extended separate unbuffered null-data posix debug expression= line-length= sandbox"), check: checkSed},
		"awk":       {valFlags: "Fv", check: checkAwk},
		"gawk":      {valFlags: "Fv", check: checkAwk},
		"mawk":      {valFlags: "Fv", check: checkAwk},
		"nawk":      {valFlags: "Fv", check: checkAwk},
		"sort":      {flags: "nrufbhVsMRgdiczCm", valFlags: "ktS", long: longs("numeric-sort reverse unique ignore-case ignore-leading-blanks human-numeric-sort version-sort stable month-sort random-sort general-numeric-sort dictionary-order ignore-nonprinting check check= merge key= field-separator= zero-terminated buffer-size= parallel=")}, // not -o, -T, --compress-program
		"uniq":      {flags: "cdDuiz", valFlags: "fsw", maxPos: 1, long: longs("count repeated unique ignore-case skip-fields= skip-chars= check-chars= zero-terminated")},                                                                                                                                                                              // a second operand is written
		"cut":       {flags: "snz", valFlags: "bcdf", long: longs("bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated")},
		"tr":        {flags: "cCdst", noPaths: true, long: longs("complement delete squeeze-repeats truncate-set1")},
		"diff":      {flags: "uqrNawbBiEtTsyp", valFlags: "UCWxX", pathVals: "X", long: longs("unified unified= brief recursive new-file text ignore-all-space ignore-space-change ignore-blank-lines ignore-case side-by-side width= exclude= color color= report-identical-files strip-trailing-cr minimal normal no-dereference suppress-common-lines")},
		"cmp":       {flags: "bls", valFlags: "in", long: longs("verbose quiet silent print-bytes bytes= ignore-initial=")},
		"comm":      {flags: "123z", long: longs("check-order nocheck-order output-delimiter= total zero-terminated")},
		"column":    {flags: "tnxe", valFlags: "sco", long: longs("table separator= output-separator=")},
		"fold":      {flags: "bs", valFlags: "w", long: longs("bytes spaces width=")},
		"rev":       {},
		"strings":   {flags: "afw", valFlags: "nte", numeric: true, long: longs("all bytes= radix= encoding=")},
		"od":        {flags: "bcdfiloxsv", valFlags: "AjNt", optFlags: "w", long: longs("address-radix= skip-bytes= read-bytes= format= output-duplicates width width=")},
		"hexdump":   {flags: "bcCdovx", valFlags: "nse"},
		"xxd":       {flags: "pui", valFlags: "clsg", maxPos: 1}, // not -r; a second operand is written
		"md5sum":    {flags: "bctwz", long: longs("binary check tag text quiet status strict warn zero")},
		"sha1sum":   {flags: "bctwz", long: longs("binary check tag text quiet status strict warn zero")},
		"sha256sum": {flags: "bctwz", long: longs("binary check tag text quiet status strict warn zero")},
		"sha512sum": {flags: "bctwz", long: longs("binary check tag text quiet status strict warn zero")},
		"file":      {flags: "bihLkNnrszp0E", long: longs("brief mime mime-type mime-encoding dereference keep-going no-pad print0 special-files uncompress")}, // not -C/-m (magic files)
		"stat":      {flags: "Lft", valFlags: "c", long: longs("dereference file-system terse format= printf=")},
		"du":        {flags: "sahckmxbL0", valFlags: "dBt", long: longs("summarize all human-readable total max-depth= apparent-size bytes one-file-system dereference null block-size= threshold= si time")},
		"df":        {flags: "hHTiaklP", valFlags: "tx", long: longs("human-readable si print-type inodes all local portability type= exclude-type= output output= total")},
		"tree":      {flags: "adfilsghDFpuJrtCnqQNAS", valFlags: "LPI", long: longs("dirsfirst noreport charset= du prune gitignore")}, // not -o
		"basename":  {flags: "az", valFlags: "s", noPaths: true, long: longs("multiple suffix= zero")},
		"dirname":   {flags: "z", noPaths: true},
		"realpath":  {flags: "eLmPqsz", long: longs("canonicalize-existing canonicalize-missing logical physical quiet strip no-symlinks zero relative-to= relative-base=")},
		"readlink":  {flags: "efmnqsvz", long: longs("canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero")},
		"pwd":       {flags: "LP", maxPos: -1},
		"echo":      {echo: true},
		"printf":    {check: checkPrintf},
		"date":      {flags: "uR", valFlags: "d", optFlags: "I", noPaths: true, long: longs("utc universal rfc-email iso-8601 iso-8601= rfc-3339= date= reference="), check: checkDate},
		"uname":     {flags: "asnrvmpio", maxPos: -1, long: longs("all kernel-name nodename kernel-release kernel-version machine processor hardware-platform operating-system")},
		"id":        {flags: "ugGnrz", noPaths: true, maxPos: 1, long: longs("user group groups name real zero")},
		"whoami":    {maxPos: -1},
		"hostname":  {flags: "fsdiIA", maxPos: -1, long: longs("fqdn short domain ip-address all-ip-addresses")}, // an operand sets the name
		"which":     {flags: "as", noPaths: true, long: longs("all")},
		"true":      {maxPos: -1},
		"false":     {maxPos: -1},
		":":         {echo: true},
		"test":      {check: checkTest}, // compares and tests metadata; literal words only, not -v/-R
		"[":         {check: checkTest},
		"cd":        {check: checkCd},
		"jq":        {check: checkJq},
		"yq":        {check: checkYq}, // not -i
		"git":       gitSpecTable(),
		"go": {subReq: true, sub: map[string]*roSpec{
			"version": {single: true, long: longs("m v")},
			"env":     {single: true, noPaths: true, long: longs("json changed")}, // not -w/-u
			// not -u (asks the network), -export/-compiled (build), -toolexec
			"list": {single: true, long: longs("e f= json json= m deps test find tags= mod=")},
		}},
		// Only a version query: with no option an interpreter runs the
		// program on its standard input (a here-document, a pipe), which
		// the proof does not read (issue 33: node <<'EOF' … rmSync … EOF).
		"node":    {flags: "v", maxPos: -1, long: longs("version"), post: versionOnly},
		"python":  {flags: "V", maxPos: -1, long: longs("version"), post: versionOnly},
		"python3": {flags: "V", maxPos: -1, long: longs("version"), post: versionOnly},
	}
}}

// jqOpts and yqOpts are the options of jq and yq (checkJq, checkYq);
// not jq -f (a filter file the proof cannot read for env).
var (
	jqOpts = lazy[*roSpec]{build: func() *roSpec {
		return &roSpec{flags: "rcnesSjaMCRz", long: longs("raw-output compact-output null-input exit-status slurp sort-keys join-output ascii-output monochrome-output color-output raw-input tab indent= arg== argjson== seq stream raw-output0")}
	}}
	yqOpts = lazy[*roSpec]{build: func() *roSpec {
		return &roSpec{flags: "rePjNMCv", valFlags: "opI", long: longs("output-format= input-format= prettyPrint unwrapScalar exit-status no-colors colors indent= no-doc null-input")}
	}}
)

// versionOnly accepts an interpreter only when an option (its version
// flag) is given: bare, it reads and runs a program from standard input.
func versionOnly(opts map[string]bool, _ []string) string {
	if len(opts) == 0 {
		return "an interpreter with no option runs the program on its standard input"
	}
	return ""
}
