package shellparse

import (
	"slices"
	"strings"
)

// network are the programs whose output comes from the network.
func network(name string) bool {
	switch name {
	case "curl", "wget", "wget2", "fetch", "http", "https",
		"xh", "xhs", "curlie", "aria2c", "nc", "ncat",
		"netcat", "socat", "lwp-request", "lwp-download", "GET",
		"POST", "HEAD", "ftp", "tftp", "sftp", "telnet",
		"ssh", "dig", "nslookup", "host", "gsutil", "s3cmd":
		return true
	}
	return false
}

// decoders are the programs that always decode or decompress their input.
func decoder(name string) bool {
	switch name {
	case "uudecode", "gunzip", "zcat", "gzcat", "bzcat", "bunzip2",
		"xzcat", "unxz", "lzcat", "unlzma", "zstdcat", "unzstd",
		"lz4cat", "unlz4", "rev", "tr":
		return true
	}
	return false
}

// classify says whether c's output comes from the network or a decoder.
// Decoders include decompressors and the text transformers used to hide a
// script (rev, tr); an interpreter one-liner decoding base64 counts too.
func classify(c *Command) SourceClass {
	name := c.Name
	switch {
	case network(name):
		if quietNetwork(name, c.Args) {
			return SourceOther
		}
		return SourceNetwork
	case name == "lynx" || name == "links" || name == "elinks" || name == "w3m" || name == "links2":
		if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "-dump") || strings.HasPrefix(a, "-source") }) {
			return SourceNetwork
		}
	case name == "aws" && len(c.Args) > 0 && c.Args[0] == "s3":
		return SourceNetwork
	case name == "openssl":
		if slices.Contains(c.Args, "s_client") {
			return SourceNetwork
		}
		if slices.Contains(c.Args, "-d") && (slices.Contains(c.Args, "base64") || slices.Contains(c.Args, "enc") ||
			slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "-aes") || strings.HasPrefix(a, "-des") })) {
			return SourceDecoder
		}
		if slices.Contains(c.Args, "smime") || slices.Contains(c.Args, "cms") {
			if slices.Contains(c.Args, "-decrypt") {
				return SourceDecoder
			}
		}
	case decoder(name):
		return SourceDecoder
	case name == "base64" || name == "base32" || name == "basenc":
		if hasFlag(c.Args, "d", "--decode") || (name == "base64" && hasFlag(c.Args, "D", "")) {
			return SourceDecoder
		}
	case name == "xxd":
		if hasFlag(c.Args, "r", "--revert") {
			return SourceDecoder
		}
	case name == "gpg" || name == "gpg2":
		if hasFlag(c.Args, "d", "--decrypt") {
			return SourceDecoder
		}
	case name == "gzip" || name == "bzip2" || name == "xz" || name == "zstd" || name == "lzma" ||
		name == "brotli" || name == "lz4" || name == "pigz":
		if hasFlag(c.Args, "d", "--decompress") {
			return SourceDecoder
		}
	case c.Inline != "":
		for _, k := range []string{"b64decode", "decode_base64", "decodebytes", "base64.decode", "atob(", "unpack(\"m", "unpack('m", "Base64.decode", "base64_decode", "fromhex", "unhexlify", "zlib.decompress"} {
			if strings.Contains(c.Inline, k) {
				return SourceDecoder
			}
		}
		for _, k := range []string{"urlopen", "requests.get", "urllib", "http.get", "https.get", "fetch(", "Net::HTTP", "LWP::", "open-uri", "file_get_contents(\"http", "file_get_contents('http"} {
			if strings.Contains(c.Inline, k) {
				return SourceNetwork
			}
		}
	}
	return SourceOther
}

// hasFlag reports whether args hold the short flag (alone or in a cluster)
// or the long one, also abbreviated: the GNU tools (getopt_long) and gpg
// take a unique prefix of a long option, so base64 --dec decodes. A
// prefix the program finds ambiguous makes it refuse to run; counting it
// costs nothing.
func hasFlag(args []string, short, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if long != "" && len(a) >= 3 && strings.HasPrefix(a, "--") && strings.HasPrefix(long, a) {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a[1:], short) {
			return true
		}
	}
	return false
}

// quietNetwork reports a network program whose standard output carries
// nothing from the network: --version and --help; curl saving its one URL
// to a file (-o FILE, -O) or reading only file:// URLs; wget without -O -
// (it writes a file); httpie --download or --offline; nc -z. The options
// are read with the program's table (curlOpts, wgetOpts), the one its
// path extraction uses. What the server controls and curl prints anyway
// (-w, -D -, --trace, -v) and a config file (-K, wget --config, -e
// output_document=-) make it not quiet.
func quietNetwork(name string, args []string) bool {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "--help") {
		return true // only first: `curl -H --help URL` gives -H the value --help
	}
	switch name {
	case "curl":
		if len(args) == 1 && (args[0] == "-V" || args[0] == "-h") {
			return true
		}
		opts, urls := curlArgs(argFields(args))
		if len(urls) == 0 || has(opts, "-K", "--config", "-w", "--write-out", "--trace", "--trace-ascii", "-v", "--verbose") {
			return false
		}
		for _, v := range values(opts, "-D", "--dump-header") {
			if toTerminal(v) {
				return false
			}
		}
		toFile, toStdout := has(opts, "-O", "--remote-name", "--remote-name-all"), false
		for _, v := range values(opts, "-o", "--output") {
			if toTerminal(v) {
				toStdout = true
			} else {
				toFile = true
			}
		}
		local := true
		for _, u := range urls {
			local = local && u.lit && strings.HasPrefix(strings.ToLower(u.s), "file://")
		}
		return local || (toFile && !toStdout && len(urls) == 1)
	case "wget", "wget2":
		opts, _ := wgetOpts.parse(argFields(args))
		if has(opts, "--config") {
			return false
		}
		for _, v := range values(opts, "-O", "--output-document") {
			if toTerminal(v) {
				return false
			}
		}
		for _, v := range values(opts, "-e", "--execute") {
			// A wgetrc command: output_document = - (any case, - or _).
			k, val, _ := strings.Cut(v.s, "=")
			k = strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(strings.TrimSpace(k)))
			if !v.lit || (k == "outputdocument" && toTerminal(litField(strings.TrimSpace(val), v.pos))) {
				return false
			}
		}
		return true
	case "http", "https", "xh", "xhs":
		return slices.ContainsFunc(args, func(a string) bool {
			return a == "--download" || a == "--offline" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, "d"))
		})
	case "nc", "ncat", "netcat":
		return slices.ContainsFunc(args, func(a string) bool { return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, "z") })
	}
	return false
}
