package shellparse

import (
	"slices"
	"strings"
)

// Option tables: one per program whose options more than one stage reads
// (its path extraction, its classification as a source, the commands
// hidden in its options, the cluster reading of unwrapHidden). Each is
// static data: package-level composite literals of constants, laid out by
// the linker, with no cost at process start. A program's table is checked
// against its real option list (TestOptionTables); when a stage needs to
// know whether an option takes a value it asks the table, never a copy.

// curlOpts are curl's options that take a value (long: curl 7.88's `curl
// --help all`; exact: those of curl 8, which takes no prefixes). curl
// 7.x takes a unique prefix of a long option (--upl is --upload-file);
// flags are 7.88's options without a value, so that a prefix of one is
// not read as a value option. curl 8's flags (--ca-native, --follow,
// --mptcp, --out-null, --proxy-http2, --show-headers, --skip-existing,
// --tls-earlydata, --trace-ids …) need no entry: an option not listed is a
// flag. --expand-NAME is NAME with {{variables}} expanded (curlArgs).
var curlOpts = optSpec{short: "AbcCdDeEFHKmoPQrtTuUwxXyYz", abbrev: true, long: []string{
	"--abstract-unix-socket", "--alt-svc", "--aws-sigv4", "--cacert", "--capath", "--cert", "--cert-type",
	"--ciphers", "--config", "--connect-timeout", "--connect-to", "--continue-at", "--cookie", "--cookie-jar",
	"--create-file-mode", "--crlfile", "--curves", "--data", "--data-ascii", "--data-binary", "--data-raw",
	"--data-urlencode", "--delegation", "--dns-interface", "--dns-ipv4-addr", "--dns-ipv6-addr",
	"--dns-servers", "--doh-url", "--dump-header", "--egd-file", "--engine", "--etag-compare",
	"--etag-save", "--expect100-timeout", "--form", "--form-string", "--ftp-account",
	"--ftp-alternative-to-user", "--ftp-method", "--ftp-port", "--ftp-ssl-ccc-mode", "--happy-eyeballs-timeout-ms", "--header", "--hostpubmd5", "--hostpubsha256", "--hsts", "--interface",
	"--json", "--keepalive-time", "--key", "--key-type", "--krb",
	"--libcurl", "--limit-rate", "--local-port", "--login-options", "--mail-auth", "--mail-from",
	"--mail-rcpt", "--max-filesize", "--max-redirs", "--max-time", "--netrc-file", "--noproxy",
	"--oauth2-bearer", "--output", "--output-dir", "--parallel-max", "--pass", "--pinnedpubkey",
	"--preproxy", "--proto", "--proto-default", "--proto-redir", "--proxy", "--proxy-cacert",
	"--proxy-capath", "--proxy-cert", "--proxy-cert-type", "--proxy-ciphers", "--proxy-crlfile",
	"--proxy-header", "--proxy-key", "--proxy-key-type", "--proxy-pass", "--proxy-pinnedpubkey",
	"--proxy-service-name", "--proxy-tls13-ciphers", "--proxy-tlsauthtype", "--proxy-tlspassword",
	"--proxy-tlsuser", "--proxy-user", "--proxy1.0", "--pubkey", "--quote", "--random-file", "--range",
	"--rate", "--referer", "--request", "--request-target", "--resolve", "--retry", "--retry-delay",
	"--retry-max-time", "--sasl-authzid", "--service-name", "--socks4", "--socks4a", "--socks5",
	"--socks5-gssapi-service", "--socks5-hostname", "--speed-limit", "--speed-time", "--stderr", "--telnet-option", "--tftp-blksize", "--time-cond", "--tls-max", "--tls13-ciphers",
	"--tlsauthtype", "--tlspassword", "--tlsuser", "--trace", "--trace-ascii", "--unix-socket", "--upload-file", "--url", "--url-query", "--user", "--user-agent",
	"--write-out"},
	flags: []string{
		"--anyauth", "--append", "--basic", "--cert-status", "--compressed", "--compressed-ssh",
		"--create-dirs", "--crlf", "--digest", "--disable", "--disable-eprt", "--disable-epsv",
		"--disallow-username-in-url", "--doh-cert-status", "--doh-insecure", "--fail",
		"--fail-early", "--fail-with-body", "--false-start", "--form-escape", "--ftp-create-dirs",
		"--ftp-pasv", "--ftp-pret", "--ftp-skip-pasv-ip", "--ftp-ssl-ccc", "--ftp-ssl-control", "--get",
		"--globoff", "--haproxy-protocol", "--head", "--help", "--http0.9", "--http1.0", "--http1.1", "--http2",
		"--http2-prior-knowledge", "--http3", "--http3-only", "--ignore-content-length", "--include",
		"--insecure", "--ipv4", "--ipv6", "--junk-session-cookies", "--list-only", "--location",
		"--location-trusted", "--mail-rcpt-allowfails", "--manual", "--metalink", "--negotiate",
		"--netrc", "--netrc-optional", "--next", "--no-alpn", "--no-buffer", "--no-clobber", "--no-keepalive",
		"--no-npn", "--no-progress-meter", "--no-sessionid", "--ntlm", "--ntlm-wb", "--parallel",
		"--parallel-immediate", "--path-as-is", "--post301", "--post302", "--post303", "--progress-bar",
		"--proxy-anyauth", "--proxy-basic", "--proxy-digest", "--proxy-insecure", "--proxy-negotiate", "--proxy-ntlm", "--proxy-ssl-allow-beast",
		"--proxy-ssl-auto-client-cert", "--proxy-tlsv1", "--proxytunnel", "--raw", "--remote-header-name",
		"--remote-name", "--remote-name-all", "--remote-time", "--remove-on-error", "--retry-all-errors",
		"--retry-connrefused", "--sasl-ir", "--show-error", "--silent", "--socks5-basic", "--socks5-gssapi", "--socks5-gssapi-nec", "--ssl", "--ssl-allow-beast",
		"--ssl-auto-client-cert", "--ssl-no-revoke", "--ssl-reqd", "--ssl-revoke-best-effort", "--sslv2",
		"--sslv3", "--styled-output", "--suppress-connect-headers", "--tcp-fastopen", "--tcp-nodelay",
		"--tftp-no-options", "--tlsv1", "--tlsv1.0", "--tlsv1.1", "--tlsv1.2", "--tlsv1.3",
		"--tr-encoding", "--trace-time", "--use-ascii", "--verbose", "--version", "--xattr"},
	exact: []string{"--ech", "--haproxy-clientip", "--ip-tos", "--keepalive-cnt", "--knownhosts", "--sigalgs",
		"--ssl-sessions", "--trace-config", "--upload-flags", "--variable", "--vlan-priority"}}

// wgetOpts are GNU wget's options that take a value (wget 1.21 `wget
// --help`); getopt_long takes a unique prefix of a long option.
var wgetOpts = optSpec{short: "aABDeiIlOoPQRtTUwX", abbrev: true, long: []string{
	"--accept", "--accept-regex", "--append-output", "--backups", "--base", "--bind-address", "--body-data",
	"--body-file", "--ca-certificate", "--ca-directory", "--certificate", "--certificate-type", "--ciphers",
	"--compression", "--config", "--connect-timeout", "--crl-file", "--cut-dirs", "--default-page",
	"--directory-prefix", "--dns-timeout", "--domains", "--exclude-directories", "--exclude-domains",
	"--execute", "--follow-tags", "--ftp-password", "--ftp-user", "--header", "--hsts-file", "--http-password",
	"--http-user", "--ignore-tags", "--include-directories", "--input-file", "--level", "--limit-rate",
	"--load-cookies", "--local-encoding", "--max-redirect", "--method", "--output-document", "--output-file",
	"--password", "--pinnedpubkey", "--post-data", "--post-file", "--prefer-family", "--private-key",
	"--private-key-type", "--progress", "--proxy-password", "--proxy-user", "--quota", "--read-timeout",
	"--referer", "--regex-type", "--reject", "--reject-regex", "--rejected-log", "--remote-encoding",
	"--report-speed", "--restrict-file-names", "--retry-on-http-error", "--save-cookies", "--secure-protocol",
	"--start-pos", "--timeout", "--tries", "--use-askpass", "--user", "--user-agent", "--wait", "--waitretry",
	"--warc-dedup", "--warc-file", "--warc-header", "--warc-max-size", "--warc-tempdir"},
	flags: []string{
		"--adjust-extension", "--ask-password", "--auth-no-challenge", "--background", "--backup-converted",
		"--content-disposition", "--content-on-error", "--continue", "--convert-file-only", "--convert-links",
		"--debug", "--delete-after", "--follow-ftp", "--force-directories", "--force-html",
		"--ftps-clear-data-connection", "--ftps-fallback-to-ftp", "--ftps-implicit", "--ftps-resume-ssl",
		"--help", "--https-only", "--ignore-case", "--ignore-length", "--inet4-only", "--inet6-only",
		"--keep-session-cookies", "--mirror", "--no-cache", "--no-check-certificate", "--no-clobber",
		"--no-config", "--no-cookies", "--no-directories", "--no-dns-cache", "--no-glob",
		"--no-host-directories", "--no-hsts", "--no-http-keep-alive", "--no-if-modified-since", "--no-iri",
		"--no-netrc", "--no-parent", "--no-passive-ftp", "--no-proxy", "--no-remove-listing",
		"--no-use-server-timestamps", "--no-verbose", "--no-warc-compression", "--no-warc-digests",
		"--no-warc-keep-log", "--page-requisites", "--preserve-permissions", "--protocol-directories",
		"--quiet", "--random-wait", "--recursive", "--relative", "--retr-symlinks", "--retry-connrefused",
		"--save-headers", "--server-response", "--show-progress", "--span-hosts", "--spider",
		"--strict-comments", "--timestamping", "--trust-server-names", "--unlink", "--verbose", "--version",
		"--warc-cdx", "--xattr"}}

// gitGlobalOpts are git's options before the command that take the next
// word (git.c handle_options): -C, -c, --git-dir, --work-tree,
// --namespace, --config-env, --super-prefix, --attr-source. --exec-path
// and --list-cmds take a value only as --exec-path=DIR, --list-cmds=X.
var gitGlobalOpts = optSpec{short: "Cc", long: []string{"--git-dir", "--work-tree", "--namespace",
	"--config-env", "--super-prefix", "--attr-source"}}

// tarOpts are GNU tar's options that take a value (-b -C -f -F -g -H -I -K
// -L -N -T -V -X and their long names, and the long-only ones).
var tarOpts = optSpec{short: "bCfFgHIKLNTVX", long: []string{"--file", "--directory", "--files-from",
	"--exclude-from", "--exclude", "--blocking-factor", "--format", "--transform", "--xform", "--owner",
	"--group", "--mode", "--mtime", "--newer", "--after-date", "--newer-mtime", "--label",
	"--use-compress-program", "--to-command", "--info-script", "--new-volume-script", "--rsh-command",
	"--volno-file", "--listed-incremental", "--strip-components", "--starting-file", "--tape-length",
	"--exclude-tag", "--exclude-tag-all", "--exclude-tag-under", "--index-file", "--pax-option",
	"--quoting-style", "--record-size", "--suffix", "--checkpoint-action", "--warning"}}

// rsyncOpts are rsync's options that take a value.
var rsyncOpts = optSpec{short: "BefMT", long: []string{"--rsh", "--filter", "--exclude",
	"--include", "--exclude-from", "--include-from", "--files-from", "--password-file", "--log-file",
	"--temp-dir", "--backup-dir", "--block-size", "--port", "--timeout", "--remote-option",
	"--partial-dir", "--compare-dest", "--link-dest", "--copy-dest", "--suffix", "--max-size",
	"--min-size", "--bwlimit", "--out-format", "--info", "--debug", "--chmod", "--chown",
	"--usermap", "--groupmap", "--rsync-path", "--sockopts", "--modify-window", "--contimeout",
	"--address", "--iconv", "--checksum-choice", "--compress-choice", "--max-delete"}}

// sshOpts, scpOpts and sftpOpts are the OpenSSH clients' options that take
// a value (their synopses, OpenSSH 9).
var (
	sshOpts  = optSpec{short: "BbcDEeFIiJLlmOoPpQRSWw"}
	scpOpts  = optSpec{short: "cDFiJloPSX"}
	sftpOpts = optSpec{short: "BbcDFiJloPRSsX"}
)

// manShort are man's short options that take a value.
const manShort = "CeHKLMmPpRS"

// Wrappers with their own parsing (wrappers.go) and xargs, whose table
// its unwrapping and its path rule share. The util-linux and GNU tools
// take a unique prefix of a long option (timeout --sig KILL, su --comm
// CMD); their lists come from each program's --help (util-linux 2.38,
// findutils 4.9), with the options that take only =VALUE as flags.
var (
	xargsOpts = optSpec{short: "IJRSaEdLnPs", optional: "eil", abbrev: true,
		long: []string{"--arg-file", "--delimiter", "--max-args", "--max-chars", "--max-procs", "--process-slot-var"},
		flags: []string{"--eof", "--exit", "--help", "--interactive", "--max-lines", "--no-run-if-empty", "--null",
			"--open-tty", "--replace", "--show-limits", "--verbose", "--version"}}
	suOpts = optSpec{short: "csgGw", abbrev: true,
		long:  []string{"--command", "--group", "--session-command", "--shell", "--supp-group", "--whitelist-environment"},
		flags: []string{"--fast", "--help", "--login", "--preserve-environment", "--pty", "--version"}}
	runuserOpts = optSpec{short: "ugGcsw", abbrev: true,
		long:  []string{"--command", "--group", "--session-command", "--shell", "--supp-group", "--user", "--whitelist-environment"},
		flags: []string{"--fast", "--help", "--login", "--preserve-environment", "--pty", "--version"}}
	flockOpts = optSpec{short: "wEc", abbrev: true,
		long: []string{"--command", "--conflict-exit-code", "--timeout", "--wait"},
		flags: []string{"--close", "--exclusive", "--help", "--no-fork", "--nonblock", "--shared", "--unlock",
			"--verbose", "--version"}}
	watchOpts = optSpec{short: "nq", optional: "d", abbrev: true,
		long: []string{"--equexit", "--interval"},
		flags: []string{"--beep", "--chgexit", "--color", "--differences", "--errexit", "--exec", "--help",
			"--no-title", "--no-wrap", "--precise", "--version"}}
	scriptOpts = optSpec{short: "cBIOTmEo", optional: "t", abbrev: true,
		long: []string{"--command", "--echo", "--log-in", "--log-io", "--log-out", "--log-timing", "--logging-format",
			"--output-limit"},
		flags: []string{"--append", "--flush", "--force", "--help", "--quiet", "--return", "--timing", "--version"}}
	envOpts = optSpec{short: "CSu", abbrev: true,
		long: []string{"--chdir", "--split-string", "--unset"},
		flags: []string{"--block-signal", "--debug", "--default-signal", "--help", "--ignore-environment",
			"--ignore-signal", "--list-signal-handling", "--null", "--version"}}
)

// Programs that both the path rules (paths.go) and the read-only proof
// (readonly_table.go) read. The proof lists the options it allows; each
// must take a value here exactly when it takes one there
// (TestReadOnlyAgreesWithPaths).
var (
	grepOpts = optSpec{short: "efmABCdD", long: []string{"--regexp", "--file", "--max-count",
		"--after-context", "--before-context", "--context", "--devices", "--directories", "--label",
		"--binary-files", "--exclude", "--include", "--exclude-dir", "--exclude-from"}}
	rgOpts = optSpec{short: "ABCdEefgjMmrTt", long: []string{"--regexp", "--file", "--glob", "--type", "--type-not",
		"--max-count", "--after-context", "--before-context", "--context", "--threads", "--max-columns", "--replace",
		"--max-depth", "--encoding", "--sort", "--sortr", "--color", "--colors", "--engine", "--iglob",
		"--max-filesize", "--pre", "--pre-glob", "--ignore-file", "--type-add", "--type-clear", "--path-separator",
		"--context-separator", "--field-match-separator", "--field-context-separator", "--dfa-size-limit",
		"--regex-size-limit", "--hostname-bin", "--hyperlink-format", "--generate"}}
	headTailOpts = optSpec{short: "ncs", long: []string{"--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"}}
	nlOpts       = optSpec{short: "bdfhilnsvw", long: []string{"--body-numbering", "--section-delimiter",
		"--footer-numbering", "--header-numbering", "--line-increment", "--join-blank-lines", "--number-format",
		"--number-separator", "--starting-line-number", "--number-width"}}
	stringsOpts = optSpec{short: "ntTe", long: []string{"--bytes", "--radix", "--target", "--encoding"}}
	odOpts      = optSpec{short: "AjNtS", optional: "w", long: []string{"--address-radix", "--skip-bytes", "--read-bytes", "--format", "--strings"}}
	dateOpts    = optSpec{short: "fdrs", optional: "I", long: []string{"--file", "--date", "--reference", "--rfc-3339", "--set"}}
	awkOpts     = optSpec{short: "Fvfi", long: []string{"--field-separator", "--assign", "--file", "--include", "--load"}}
)

// curlArgs parses curl's arguments with curlOpts: the options (--expand-X
// read as X, its value unknown when it holds a {{variable}}) and the URLs
// (operands and --url values).
func curlArgs(args []field) (opts []option, urls []field) {
	var fs []field
	for i, f := range args {
		if !f.lit || !strings.HasPrefix(f.s, "--expand-") {
			continue
		}
		if fs == nil {
			fs = slices.Clone(args)
		}
		name, val, eq := strings.Cut(f.s, "=")
		base := "--" + name[len("--expand-"):]
		switch {
		case eq:
			fs[i].s = base + "=" + val
			fs[i].lit = !strings.Contains(val, "{{")
		default:
			fs[i].s = base
			if i+1 < len(args) && curlOpts.takesValue(base) && strings.Contains(args[i+1].s, "{{") {
				fs[i+1].lit = false
			}
		}
	}
	if fs == nil {
		fs = args
	}
	opts, urls = curlOpts.parse(fs)
	return opts, append(urls, values(opts, "--url")...)
}

// argFields are a Command's arguments as fields, for the stages that
// read finished commands (classify, downloads): a word holding an
// expansion is not literal.
func argFields(args []string) []field {
	fs := make([]field, len(args))
	for i, a := range args {
		fs[i] = field{s: a, lit: !strings.ContainsAny(a, "$`")}
	}
	return fs
}

// toTerminal reports an output file that is not a plain file of its own:
// standard output ("-"), a device or /proc path (/dev/stdout, /dev/fd/1,
// /dev/stderr, /proc/self/fd/1 …; /dev/null aside) or a word not known.
func toTerminal(f field) bool {
	return !f.lit || f.s == "-" || f.s == "" || (strings.HasPrefix(f.s, "/dev/") && f.s != "/dev/null") || strings.HasPrefix(f.s, "/proc/")
}
