package shellparse

import (
	"path"
	"regexp"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// Files programs write by their own rules rather than by a plain operand
// (docs/surfaces.md, "Writers by mechanism"): the output options of
// compilers, linkers and binary tools; compressors and archivers that
// replace or remove their inputs; renamers; sqlite3's file functions;
// git's clone and worktree destinations. outputRuleOf is asked last by
// writeRuleOf.

// outputRuleOf is the path rule of a program of this file, nil when it
// has none.
func outputRuleOf(name string) pathRule {
	switch {
	case isCCompiler(name):
		return ccPaths
	case isCompressor(name):
		return func(args []field, add pathAdder) { compressPaths(name, args, add) }
	}
	switch name {
	case "ld", "ld.lld", "ld.gold", "ld.bfd", "lld", "ld64.lld", "mold", "as", "nasm", "yasm", "tinygo":
		return func(args []field, add pathAdder) { outputOpt(args, add, "-o", "--output") }
	case "strip", "objcopy", "llvm-strip", "llvm-objcopy", "eu-strip", "upx", "patchelf":
		return func(args []field, add pathAdder) { binToolPaths(name, args, add) }
	case "ar", "llvm-ar", "ranlib":
		return arPaths
	case "rustc":
		return rustcPaths
	case "zig":
		return zigPaths
	case "go":
		return goPaths
	case "cargo":
		return func(args []field, add pathAdder) { outputOpt(args, add, "--target-dir", "--out-dir", "--artifact-dir") }
	case "rename", "prename", "file-rename", "perl-rename", "rename.ul":
		return func(args []field, add pathAdder) { renamePaths(name, args, add) }
	case "mmv":
		return mmvPaths
	case "sqlite3", "sqlite":
		return sqlitePaths
	case "zip":
		return zipMovePaths
	case "7z", "7za", "7zz", "7zr":
		return sevenZipPaths
	}
	return nil
}

// isCCompiler reports the C-family compiler drivers, with a target
// prefix (x86_64-linux-gnu-gcc) or a version suffix (gcc-13, clang++-17):
// -o FILE names their output.
func isCCompiler(name string) bool {
	if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789.") == "" {
		name = name[:i] // gcc-13
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		name = name[i+1:] // x86_64-linux-gnu-gcc
	}
	switch name {
	case "cc", "c++", "gcc", "g++", "clang", "clang++", "tcc", "icc", "icx", "icpx", "gfortran", "clang-cl", "cpp", "c89", "c99", "emcc", "em++":
		return true
	}
	return false
}

// ccPaths: -o FILE and -oFILE are the output; -MF FILE the dependency
// file; -Xlinker -o -Xlinker FILE the linker's output.
func ccPaths(args []field, add pathAdder) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit || !strings.HasPrefix(f.s, "-") {
			continue
		}
		switch {
		case f.s == "-o" || f.s == "-MF" || f.s == "-MT" || f.s == "-MQ":
			if i+1 < len(args) && f.s != "-MT" && f.s != "-MQ" {
				add(args[i+1], call.OpWrite)
			}
			i++
		case f.s == "-Xlinker" || f.s == "-Xassembler" || f.s == "-Xclang":
			if i+3 < len(args) && args[i+1].lit && args[i+1].s == "-o" && args[i+2].s == f.s {
				add(args[i+3], call.OpWrite)
				i += 3
			} else {
				i++
			}
		case strings.HasPrefix(f.s, "-o") && !strings.HasPrefix(f.s, "-objc"):
			add(litField(f.s[2:], f.pos), call.OpWrite)
		case strings.HasPrefix(f.s, "-Wl,"):
			// -Wl,-o,FILE
			parts := strings.Split(f.s[4:], ",")
			for j := 0; j+1 < len(parts); j++ {
				if parts[j] == "-o" || parts[j] == "--output" {
					add(litField(parts[j+1], f.pos), call.OpWrite)
				}
			}
		case f.s == "-x" || f.s == "-I" || f.s == "-L" || f.s == "-D" || f.s == "-U" || f.s == "-include" ||
			f.s == "-isystem" || f.s == "-target" || f.s == "-arch" || f.s == "-T":
			i++
		}
	}
}

// outputOpt writes the values of the named options (-o FILE, -oFILE,
// --output=FILE).
func outputOpt(args []field, add pathAdder, names ...string) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit || !strings.HasPrefix(f.s, "-") {
			continue
		}
		if f.s == "--" {
			return
		}
		for _, n := range names {
			switch {
			case f.s == n && i+1 < len(args):
				i++
				add(args[i], call.OpWrite)
			case strings.HasPrefix(n, "--") && strings.HasPrefix(f.s, n+"="):
				add(litField(f.s[len(n)+1:], f.pos), call.OpWrite)
			case len(n) == 2 && strings.HasPrefix(f.s, n) && len(f.s) > 2 && f.s[2] != '-':
				add(litField(f.s[2:], f.pos), call.OpWrite)
			default:
				continue
			}
			break
		}
	}
}

// binToolPaths: strip, upx and patchelf rewrite their operands in place
// unless -o FILE (--output) names the output; objcopy IN [OUT] writes
// OUT, or IN in place.
func binToolPaths(name string, args []field, add pathAdder) {
	var outs []field
	var ops []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		switch {
		case !f.lit || !strings.HasPrefix(s, "-") || s == "-":
			ops = append(ops, f)
		case s == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case s == "-o" || s == "--output":
			if i+1 < len(args) {
				outs = append(outs, args[i+1])
			}
			i++
		case strings.HasPrefix(s, "--output="):
			outs = append(outs, litField(s[len("--output="):], f.pos))
		case strings.HasPrefix(s, "-o") && name != "objcopy" && name != "llvm-objcopy" && name != "patchelf":
			outs = append(outs, litField(s[2:], f.pos))
		case !strings.Contains(s, "=") && binToolValue(name, s):
			i++
		}
	}
	for _, o := range outs {
		add(o, call.OpWrite)
	}
	switch {
	case name == "objcopy" || name == "llvm-objcopy":
		if len(ops) >= 2 {
			add(ops[1], call.OpWrite)
		} else if len(ops) == 1 {
			add(ops[0], call.OpWrite)
		}
	case len(outs) == 0:
		for _, f := range ops {
			add(f, call.OpWrite)
		}
	}
}

// binToolValue reports the options of strip, objcopy, upx and patchelf
// whose value is the next word.
func binToolValue(name, s string) bool {
	switch name {
	case "patchelf":
		switch s {
		case "--set-interpreter", "--set-rpath", "--add-rpath", "--set-soname", "--add-needed", "--remove-needed",
			"--replace-needed", "--page-size", "--set-os-abi", "--no-default-lib", "--add-debug-tag", "--clear-symbol-version", "--rename-dynamic-symbols":
			return true
		}
		return false
	case "upx":
		return false
	}
	switch s {
	case "-F", "-I", "-O", "-B", "-j", "-R", "-K", "-N", "-L", "-G", "-W", "-b", "-i",
		"--target", "--input-target", "--output-target", "--only-section", "--remove-section", "--keep-symbol",
		"--strip-symbol", "--add-section", "--update-section", "--set-section-flags", "--rename-section",
		"--redefine-sym", "--add-symbol", "--pad-to", "--gap-fill", "--set-start", "--adjust-start",
		"--change-addresses", "--add-gnu-debuglink", "--binary-architecture":
		return true
	}
	return false
}

// arPaths: ar KEY ARCHIVE MEMBER… writes ARCHIVE when KEY changes it (d,
// m, q, r, s); ranlib ARCHIVE… rewrites each.
func arPaths(args []field, add pathAdder) {
	_, ops := optSpec{}.parse(args)
	if len(args) > 0 && args[0].lit && strings.HasPrefix(args[0].s, "-") && len(ops) > 0 && ops[0].s != args[0].s {
		ops = append([]field{args[0]}, ops...) // ar -rcs lib.a
	}
	if len(ops) == 0 {
		return
	}
	if !strings.ContainsAny(ops[0].s, "dmqrs") || strings.HasPrefix(ops[0].s, "/") || strings.Contains(ops[0].s, ".") {
		for _, f := range ops {
			add(f, call.OpWrite) // ranlib lib.a
		}
		return
	}
	if len(ops) > 1 {
		add(ops[1], call.OpWrite)
	}
}

// rustcPaths: -o FILE, --out-dir DIR and --emit KIND=PATH name rustc's
// outputs.
func rustcPaths(args []field, add pathAdder) {
	outputOpt(args, add, "-o")
	var dirs []field
	outputOpt(args, func(f field, _ call.Op) { dirs = append(dirs, f) }, "--out-dir")
	for _, d := range dirs {
		add(d, call.OpWrite)
		for _, f := range args {
			if f.lit && strings.HasSuffix(f.s, ".rs") {
				add(into(d, litField(strings.TrimSuffix(path.Base(f.s), ".rs"), f.pos)), call.OpWrite)
			}
		}
	}
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := ""
		switch {
		case f.lit && f.s == "--emit" && i+1 < len(args):
			i++
			v = args[i].s
		case f.lit && strings.HasPrefix(f.s, "--emit="):
			v = f.s[len("--emit="):]
		default:
			continue
		}
		for _, kind := range strings.Split(v, ",") {
			if _, p, ok := strings.Cut(kind, "="); ok && p != "" && p != "-" {
				add(litField(p, f.pos), call.OpWrite)
			}
		}
	}
}

// zigPaths: zig build-exe/build-lib/build-obj -femit-bin=PATH (and the
// other -femit-*=PATH), zig cc/c++ -o FILE, zig build --prefix DIR.
func zigPaths(args []field, add pathAdder) {
	if len(args) == 0 {
		return
	}
	switch args[0].s {
	case "cc", "c++":
		ccPaths(args[1:], add)
		return
	case "build":
		outputOpt(args[1:], add, "--prefix", "-p", "--prefix-exe-dir", "--prefix-lib-dir", "--cache-dir")
		return
	}
	for _, f := range args[1:] {
		if f.lit && strings.HasPrefix(f.s, "-femit-") {
			if _, p, ok := strings.Cut(f.s, "="); ok && p != "" {
				add(litField(p, f.pos), call.OpWrite)
			}
		}
	}
}

// goPaths: go build -o and go test -c -o write their output (a directory
// -o gets the package's base name in it); go install writes into $GOBIN
// (installPaths in run.go, which sees the environment).
func goPaths(args []field, add pathAdder) {
	if len(args) == 0 || !args[0].lit {
		return
	}
	switch args[0].s {
	case "build", "test":
		spec := optSpec{short: "opC", long: []string{"-o", "-p", "-C", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile",
			"-overlay", "-pkgdir", "-toolexec", "-exec", "-run", "-bench", "-count", "-timeout", "-coverprofile", "-cpuprofile",
			"-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir", "-covermode", "-coverpkg", "-buildmode", "-compiler",
			"-gccgoflags", "-installsuffix", "-pgo", "-cover", "-json", "-skip", "-list", "-parallel", "-shuffle", "-benchtime", "-fuzz", "-fuzztime"}}
		var outs []field
		var pkgs []field
		for i := 1; i < len(args); i++ {
			f := args[i]
			s := f.s
			if !f.lit || !strings.HasPrefix(s, "-") {
				pkgs = append(pkgs, f)
				continue
			}
			name, val, eq := strings.Cut(strings.TrimPrefix(s, "-"), "=")
			name = "-" + name // go takes -o and --o alike
			if name == "-o" || name == "-coverprofile" || name == "-cpuprofile" || name == "-memprofile" ||
				name == "-blockprofile" || name == "-mutexprofile" || name == "-trace" || name == "-outputdir" {
				var v field
				if eq {
					v = litField(val, f.pos)
				} else if i+1 < len(args) {
					i++
					v = args[i]
				} else {
					continue
				}
				if name == "-o" {
					outs = append(outs, v)
				} else if args[0].s == "test" {
					add(v, call.OpWrite)
				}
				continue
			}
			if !eq && (spec.takesValue(name) || strings.IndexByte(spec.short, name[1]) >= 0 && len(name) == 2) {
				i++
			}
		}
		for _, o := range outs {
			destWrites(o, pkgNames(pkgs), false, add)
		}
	}
}

// pkgNames are the base names a package path builds to (./cmd/x → x,
// golang.org/x/tools/cmd/stringer@v1 → stringer).
func pkgNames(pkgs []field) []field {
	var out []field
	for _, p := range pkgs {
		if !p.lit || strings.HasSuffix(p.s, ".go") {
			continue
		}
		s, _, _ := strings.Cut(p.s, "@")
		s = strings.TrimSuffix(strings.TrimRight(s, "/"), "/...")
		if b := path.Base(s); b != "." && b != ".." && b != "/" && b != "" {
			out = append(out, litField(b, p.pos))
		}
	}
	return out
}

// goInstallPaths: go install PKG writes $GOBIN/NAME (or $GOPATH/bin/NAME,
// ~/go/bin/NAME — there only for a local package); env holds the NAME=value assignments the command runs
// with. Installing into $GOBIN is how a hook binary found on PATH is
// replaced (GOBIN=~/.local/bin go install ./stub).
func goInstallPaths(args []field, env []string) []field {
	if len(args) == 0 || !args[0].lit || args[0].s != "install" {
		return nil
	}
	dir := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOBIN="); ok && v != "" {
			dir = v
		}
	}
	if dir == "" {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "GOPATH="); ok && v != "" {
				dir = strings.SplitN(v, ":", 2)[0] + "/bin"
			}
		}
	}
	var pkgs []field
	for _, f := range args[1:] {
		if !f.lit || !strings.HasPrefix(f.s, "-") {
			pkgs = append(pkgs, f)
		}
	}
	if dir == "" {
		// The default ~/go/bin: a package of the module proxy (pkg@v)
		// installs under its own name, which is everyday work (and the
		// supply-chain rules' matter); a local one (./cmd/x, a path)
		// installs what the agent may have written, under any name.
		local := false
		for _, p := range pkgs {
			local = local || !p.lit || strings.HasPrefix(p.s, ".") || strings.HasPrefix(p.s, "/")
		}
		if !local && len(pkgs) > 0 {
			return nil
		}
		dir = "~/go/bin"
	}
	d := litField(dir, args[0].pos)
	out := []field{d}
	for _, n := range pkgNames(pkgs) {
		out = append(out, into(d, n))
	}
	return out
}

// Compressors. Each kind: the suffix it adds, the names it answers to,
// and whether it removes its input by default (gzip, bzip2, xz do; zstd,
// lz4, brotli, lzop keep it unless told).
type compressor struct {
	suffix  string
	removes bool
	rmFlag  []string // options that make a keeping compressor remove its input
}

func compressorOf(name string) (c compressor, decompress, toStdout, ok bool) {
	switch name {
	case "gzip", "pigz":
		return compressor{suffix: ".gz", removes: true}, false, false, true
	case "gunzip", "unpigz":
		return compressor{suffix: ".gz", removes: true}, true, false, true
	case "zcat", "gzcat":
		return compressor{suffix: ".gz"}, true, true, true
	case "bzip2", "pbzip2", "lbzip2":
		return compressor{suffix: ".bz2", removes: true}, false, false, true
	case "bunzip2":
		return compressor{suffix: ".bz2", removes: true}, true, false, true
	case "bzcat":
		return compressor{suffix: ".bz2"}, true, true, true
	case "xz", "pixz":
		return compressor{suffix: ".xz", removes: true}, false, false, true
	case "unxz":
		return compressor{suffix: ".xz", removes: true}, true, false, true
	case "xzcat":
		return compressor{suffix: ".xz"}, true, true, true
	case "lzma":
		return compressor{suffix: ".lzma", removes: true}, false, false, true
	case "unlzma":
		return compressor{suffix: ".lzma", removes: true}, true, false, true
	case "lzcat":
		return compressor{suffix: ".lzma"}, true, true, true
	case "lzip", "plzip":
		return compressor{suffix: ".lz", removes: true}, false, false, true
	case "compress":
		return compressor{suffix: ".Z", removes: true}, false, false, true
	case "uncompress":
		return compressor{suffix: ".Z", removes: true}, true, false, true
	case "zstd", "pzstd", "zstdmt":
		return compressor{suffix: ".zst", rmFlag: []string{"--rm"}}, false, false, true
	case "unzstd":
		return compressor{suffix: ".zst", rmFlag: []string{"--rm"}}, true, false, true
	case "zstdcat":
		return compressor{suffix: ".zst"}, true, true, true
	case "lz4":
		return compressor{suffix: ".lz4", rmFlag: []string{"--rm"}}, false, false, true
	case "unlz4":
		return compressor{suffix: ".lz4", rmFlag: []string{"--rm"}}, true, false, true
	case "lz4cat":
		return compressor{suffix: ".lz4"}, true, true, true
	case "brotli":
		return compressor{suffix: ".br", rmFlag: []string{"-j", "--rm"}}, false, false, true
	case "lzop":
		return compressor{suffix: ".lzo", rmFlag: []string{"-U", "--delete", "--unlink"}}, false, false, true
	}
	return compressor{}, false, false, false
}

func isCompressor(name string) bool {
	_, _, _, ok := compressorOf(name)
	return ok
}

// tarSuffixes: compressed tarballs decompress to .tar.
var tarSuffixes = map[string]string{".tgz": ".tar", ".taz": ".tar", ".tbz": ".tar", ".tbz2": ".tar", ".txz": ".tar",
	".tlz": ".tar", ".tzst": ".tar", ".tlz4": ".tar"}

// compressPaths: a compressor reads its operands and, unless it writes to
// standard output (-c, --stdout), lists or tests (-l, -t), writes
// OPERAND+SUFFIX (or OPERAND minus its suffix when decompressing, -d)
// and removes OPERAND (gzip, bzip2, xz, lzma by default; zstd, lz4 with
// --rm; -k/--keep keeps it). -o FILE (zstd, brotli, lzop) names the
// output; lz4 IN OUT takes its output as the second operand. gzip of the
// audit log removes the log: a delete of a guard surface.
func compressPaths(name string, args []field, add pathAdder) {
	kind, decompress, toStdout, _ := compressorOf(name)
	removes := kind.removes
	suffix := kind.suffix
	var outs, ops []field
	recursive, keep := false, false
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		if !f.lit || len(s) < 2 || s[0] != '-' {
			ops = append(ops, f)
			continue
		}
		if s == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if strings.HasPrefix(s, "--") {
			n, v, eq := strings.Cut(s, "=")
			switch n {
			case "--decompress", "--uncompress":
				decompress = true
			case "--stdout", "--to-stdout", "--list", "--test":
				toStdout = true
			case "--keep":
				keep = true
			case "--recursive":
				recursive = true
			case "--force", "--fast", "--best", "--verbose", "--quiet", "--no-name", "--name":
			case "--suffix", "--output", "--threads", "--memlimit", "--memory", "--format", "--patch-from", "--level", "--quality", "--window", "--lgwin":
				if !eq && i+1 < len(args) {
					i++
					v = args[i].s
					f = args[i]
				} else {
					f = litField(v, f.pos)
				}
				switch n {
				case "--suffix":
					suffix = v
				case "--output":
					outs = append(outs, f)
				}
			}
			if contains(kind.rmFlag, n) {
				removes = true
			}
			continue
		}
		if contains(kind.rmFlag, s) {
			removes = true
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			switch c {
			case 'd':
				decompress = true
			case 'c', 'l', 't':
				toStdout = true
			case 'k':
				keep = true
			case 'r':
				recursive = true
			case 'S', 'o':
				v := litField(s[j+1:], f.pos)
				if j+1 == len(s) && i+1 < len(args) {
					i++
					v = args[i]
				}
				if c == 'S' {
					suffix = v.s
				} else {
					outs = append(outs, v)
				}
				j = len(s)
			case 'T', 'M', 'D', 'b', 'p', 'q':
				if name == "lz4" || name == "zstd" || name == "brotli" || c == 'T' || c == 'M' || c == 'D' {
					if j+1 == len(s) && i+1 < len(args) && c != 'b' && c != 'p' && c != 'q' {
						i++
					}
					j = len(s)
				}
			}
		}
	}
	for _, f := range ops {
		if !(f.lit && f.s == "-") {
			add(f, call.OpRead)
		}
	}
	if toStdout {
		return
	}
	for _, o := range outs {
		if !(o.lit && o.s == "-") {
			add(o, call.OpWrite)
		}
	}
	if (name == "lz4" || name == "unlz4") && len(ops) == 2 && len(outs) == 0 {
		add(ops[1], call.OpWrite) // lz4 IN OUT
		ops = ops[:1]
	}
	for _, f := range ops {
		if f.lit && f.s == "-" {
			continue
		}
		if recursive {
			add(f, call.OpWrite) // the files below it are replaced
		} else if len(outs) == 0 {
			add(compressedName(f, suffix, decompress), call.OpWrite)
		}
		if removes && !keep {
			add(f, call.OpDelete)
		}
	}
}

// compressedName is the file a compressor makes of f: f+suffix, or f
// minus its suffix when decompressing (x.tgz → x.tar).
func compressedName(f field, suffix string, decompress bool) field {
	out := f
	if !decompress {
		out.s = f.s + suffix
		return out
	}
	ext := path.Ext(f.s)
	switch {
	case tarSuffixes[ext] != "":
		out.s = strings.TrimSuffix(f.s, ext) + tarSuffixes[ext]
	case suffix != "" && strings.HasSuffix(f.s, suffix):
		out.s = strings.TrimSuffix(f.s, suffix)
	case ext != "":
		out.s = strings.TrimSuffix(f.s, ext)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// zipMovePaths: zip -m (--move, and -mm) deletes the files it adds
// (what it reads is readers.go's); -d/--delete and -u rewrite the archive
// only. The archive, the first operand, is written.
func zipMovePaths(args []field, add pathAdder) {
	spec, _ := lookup(readerTable, "zip")
	opts, ops := spec.opts.parse(dropValueOpt(args, "-TT"))
	if len(ops) == 0 {
		return
	}
	add(ops[0], call.OpWrite)
	move := false
	for _, o := range opts {
		if o.name == "--move" || o.name == "-m" {
			move = true
		}
	}
	if move {
		for _, f := range ops[1:] {
			add(f, call.OpDelete)
		}
	}
}

// sevenZipPaths: 7z a|u ARCHIVE FILE… writes ARCHIVE; -sdel deletes the
// files after adding them. 7z x|e extracts into -oDIR (or .).
func sevenZipPaths(args []field, add pathAdder) {
	var ops []field
	sdel := false
	out := field{}
	hasOut := false
	for _, f := range args {
		switch {
		case f.lit && f.s == "-sdel":
			sdel = true
		case f.lit && strings.HasPrefix(f.s, "-o") && len(f.s) > 2:
			out, hasOut = litField(f.s[2:], f.pos), true
		case f.lit && strings.HasPrefix(f.s, "-") && len(f.s) > 1:
		default:
			ops = append(ops, f)
		}
	}
	if len(ops) < 2 || !ops[0].lit {
		return
	}
	switch ops[0].s {
	case "a", "u", "d", "rn":
		add(ops[1], call.OpWrite)
		if sdel && ops[0].s != "d" {
			for _, f := range ops[2:] {
				add(f, call.OpDelete)
			}
		}
	case "x", "e":
		if !hasOut {
			out = litField(".", ops[1].pos)
		}
		add(out, call.OpWrite)
	}
}

// renamePaths: rename (perl's: rename [-opts] PERLEXPR FILE…; util-linux:
// rename [-opts] FROM TO FILE…) renames every file operand: each is
// deleted, and its new name written — computed for util-linux's form and
// for a plain s/A/B/ expression, else the operand's directory stands for
// it (where a perl expression can put it is not known).
func renamePaths(name string, args []field, add pathAdder) {
	opts, ops := optSpec{short: "eE", long: []string{"--expr", "--filename"}}.parse(args)
	if has(opts, "-n", "--nono", "--no-act", "--dry-run", "-h", "--help", "-V", "--version") || len(ops) == 0 {
		return
	}
	exprs := values(opts, "-e", "-E", "--expr")
	var files []field
	perl := name != "rename.ul"
	var from, to string
	switch {
	case len(exprs) > 0:
		files = ops
	case name == "rename" && len(ops) >= 3 && !perlExpr(ops[0].s):
		perl = false
		from, to = ops[0].s, ops[1].s
		files = ops[2:]
	case !perl && len(ops) >= 3:
		from, to = ops[0].s, ops[1].s
		files = ops[2:]
	default:
		exprs = ops[:1]
		files = ops[1:]
	}
	for _, f := range files {
		add(f, call.OpDelete)
		n := f
		switch {
		case !perl && f.lit:
			n.s = strings.Replace(f.s, from, to, 1)
		case len(exprs) == 1 && exprs[0].lit && f.lit:
			if s, ok := perlSubst(exprs[0].s, f.s); ok {
				n.s = s
				break
			}
			fallthrough
		default:
			n.s = path.Dir(f.s)
		}
		add(n, call.OpWrite)
	}
}

// perlExpr reports a word that reads as a perl rename expression: s/…/…/,
// y/…/…/, tr/…/…/ or code with a $_.
func perlExpr(s string) bool {
	return strings.HasPrefix(s, "s/") || strings.HasPrefix(s, "s#") || strings.HasPrefix(s, "s|") || strings.Contains(s, "$_") || strings.HasPrefix(s, "y/") || strings.HasPrefix(s, "tr/")
}

var perlSubstRe = lazy[*regexp.Regexp]{build: func() *regexp.Regexp { return regexp.MustCompile(`^s/((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([gi]*)$`) }}

// perlSubst applies a literal s/A/B/[gi] to name, when A is a regular
// expression Go reads the same way and B has no $ or \ references.
func perlSubst(expr, name string) (string, bool) {
	m := perlSubstRe.get().FindStringSubmatch(expr)
	if m == nil || strings.ContainsAny(m[2], `$\@`) {
		return "", false
	}
	pat := m[1]
	if strings.Contains(m[3], "i") {
		pat = "(?i)" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return "", false
	}
	if strings.Contains(m[3], "g") {
		return re.ReplaceAllLiteralString(name, m[2]), true
	}
	loc := re.FindStringIndex(name)
	if loc == nil {
		return name, true
	}
	return name[:loc[0]] + m[2] + name[loc[1]:], true
}

// mmvPaths: mmv [-m|-x|-r|-c|-o|-a|-l|-s] FROM TO moves (default), copies,
// appends or links the files FROM matches to TO, whose #N stand for
// FROM's wildcards: FROM is deleted (moved) or read, TO written, with
// each #N as *.
func mmvPaths(args []field, add pathAdder) {
	srcOp := call.OpDelete
	var ops []field
	for _, f := range args {
		if f.lit && strings.HasPrefix(f.s, "-") && len(f.s) > 1 {
			if strings.ContainsAny(f.s[1:], "cal") {
				srcOp = call.OpRead
			}
			if strings.ContainsAny(f.s[1:], "nh") {
				return // -n: show only
			}
			continue
		}
		ops = append(ops, f)
	}
	for i := 0; i+1 < len(ops); i += 2 {
		add(ops[i], srcOp)
		if from := ops[i]; from.lit && srcOp == call.OpDelete {
			// What the pattern matches leaves the directory its literal
			// part names: a write of that directory (mmv '.claude/*' …
			// empties .claude, whatever is there).
			if j := strings.IndexAny(from.s, "*?[;"); j >= 0 {
				if d := path.Dir(from.s[:j] + "x"); d != "." {
					add(litField(d, from.pos), call.OpWrite)
				}
			}
		}
		to := ops[i+1]
		if to.lit && strings.Contains(to.s, "#") {
			to.s = mmvHash.get().ReplaceAllString(to.s, "*")
			to.glob = true
		}
		add(to, call.OpWrite)
	}
}

var mmvHash = lazy[*regexp.Regexp]{build: func() *regexp.Regexp { return regexp.MustCompile(`#[0-9]+|#[lu][0-9]+`) }}

// sqlitePaths: sqlite3 [OPTIONS] DB [SQL…] opens DB (created when absent,
// written unless -readonly) and runs SQL whose file functions name
// files: writefile('p', …) writes p, readfile('p') reads it; VACUUM INTO
// 'p', ATTACH 'p' and the dot commands .output/.once/.save/.backup write,
// .read/.import/.restore/.open read. Only literal SQL on the command
// line (and -cmd) is read; a script on standard input is not.
func sqlitePaths(args []field, add pathAdder) {
	var ops, sqls []field
	readonly := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		o := strings.TrimPrefix(strings.TrimPrefix(f.s, "-"), "-")
		switch {
		case !f.lit || !strings.HasPrefix(f.s, "-") || f.s == "-":
			ops = append(ops, f)
		case o == "cmd" && i+1 < len(args):
			i++
			sqls = append(sqls, args[i])
		case o == "init" && i+1 < len(args):
			i++
			add(args[i], call.OpRead)
		case o == "readonly" || o == "safe":
			readonly = true
		case sqliteValue(o) && i+1 < len(args):
			i++
		}
	}
	if len(ops) > 0 {
		db := ops[0]
		sqls = append(sqls, ops[1:]...)
		if !(db.lit && (db.s == ":memory:" || db.s == "" || strings.HasPrefix(db.s, "file:"))) {
			add(db, call.OpRead)
			if !readonly {
				add(db, call.OpWrite)
			}
		}
	}
	for _, q := range sqls {
		if !q.lit {
			continue
		}
		for _, m := range sqlFileCall.get().FindAllStringSubmatch(q.s, -1) {
			op := call.OpRead
			switch strings.ToLower(m[1]) {
			case "readfile":
			default:
				op = call.OpWrite // writefile, VACUUM INTO, ATTACH
			}
			add(litField(m[2], q.pos), op)
		}
		for _, line := range strings.Split(q.s, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, ".") {
				continue
			}
			words := strings.Fields(line)
			if len(words) < 2 {
				continue
			}
			last := strings.Trim(words[len(words)-1], `'"`)
			if strings.HasPrefix(last, "|") || strings.HasPrefix(strings.Trim(words[1], `'"`), "|") {
				continue // a pipe to a command: execopts.go's
			}
			switch words[0] {
			case ".output", ".once", ".save", ".backup", ".dump":
				if words[0] == ".dump" {
					continue
				}
				add(litField(last, q.pos), call.OpWrite)
			case ".read", ".restore", ".open":
				add(litField(last, q.pos), call.OpRead)
			case ".import":
				add(litField(strings.Trim(words[1], `'"`), q.pos), call.OpRead)
			}
		}
	}
}

// sqlFileCall finds the file names of SQLite's file functions and
// statements: readfile('p'), writefile('p', …), VACUUM INTO 'p',
// ATTACH [DATABASE] 'p'.
var sqlFileCall = lazy[*regexp.Regexp]{build: func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(readfile|writefile|vacuum\s+into|attach\s+database|attach)\s*\(?\s*'([^']+)'`)
}}
