package shellparse

import (
	"slices"
	"strings"
)

// Option tables: one per program whose options more than one stage reads
// (its path extraction, its classification as a source, the commands
// hidden in its options, the cluster reading of unwrapHidden). Each is
// static data: package-level composite literals of constants, laid out by
// the linker, with no cost at process start. When a stage needs to know
// whether an option takes a value it asks the table, never a copy.
// TestOptionTables checks each table against itself, the TestReadOnly…
// tests against the read-only proof's, and the Test…Prefixes and
// TestOptionDrift rows against the programs' real option lists.

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

// More programs the path rules read (paths.go). The read-only proof
// (readonly_table.go) lists the options it allows of these and of the GNU
// programs below; each must take a value here exactly when it takes one
// there (TestReadOnlyAgreesWithPaths, TestReadOnlyAgreesWithReaders).
var (
	rgOpts = optSpec{short: "ABCdEefgjMmrTt", long: []string{"--regexp", "--file", "--glob", "--type", "--type-not",
		"--max-count", "--after-context", "--before-context", "--context", "--threads", "--max-columns", "--replace",
		"--max-depth", "--encoding", "--sort", "--sortr", "--color", "--colors", "--engine", "--iglob",
		"--max-filesize", "--pre", "--pre-glob", "--ignore-file", "--type-add", "--type-clear", "--path-separator",
		"--context-separator", "--field-match-separator", "--field-context-separator", "--dfa-size-limit",
		"--regex-size-limit", "--hostname-bin", "--hyperlink-format", "--generate"}}
	stringsOpts = optSpec{short: "ntTe", long: []string{"--bytes", "--radix", "--target", "--encoding"}}
	awkOpts     = optSpec{short: "Fvfi", long: []string{"--field-separator", "--assign", "--file", "--include", "--load"}}
)

// The GNU programs whose path rules read long options (paths.go): each
// takes a unique prefix of a long option (cp --t DIR is cp
// --target-directory DIR, sort --outp F is sort --output F, tar --cre is
// tar --create). The lists are each program's --help (coreutils 9.1, GNU
// tar 1.34, grep 3.8, sed 4.9), an option that takes only =VALUE being a
// flag; older names the tables listed are kept.
var (
	cpOpts = optSpec{short: "St", abbrev: true,
		long: []string{"--no-preserve", "--sparse", "--suffix", "--target-directory"},
		flags: []string{"--archive", "--attributes-only", "--backup", "--context", "--copy-contents", "--dereference",
			"--force", "--help", "--interactive", "--link", "--no-clobber", "--no-dereference",
			"--no-target-directory", "--one-file-system", "--parents", "--preserve", "--recursive",
			"--reflink", "--remove-destination", "--strip-trailing-slashes", "--symbolic-link", "--update",
			"--verbose", "--version"}}
	mvOpts = optSpec{short: "St", abbrev: true,
		long: []string{"--suffix", "--target-directory"},
		flags: []string{"--backup", "--context", "--force", "--help", "--interactive", "--no-clobber",
			"--no-target-directory", "--strip-trailing-slashes", "--update", "--verbose", "--version"}}
	lnOpts = optSpec{short: "St", abbrev: true,
		long: []string{"--suffix", "--target-directory"},
		flags: []string{"--backup", "--directory", "--force", "--help", "--interactive", "--logical", "--no-dereference",
			"--no-target-directory", "--physical", "--relative", "--symbolic", "--verbose", "--version"}}
	installOpts = optSpec{short: "mogSt", abbrev: true,
		long: []string{"--group", "--mode", "--owner", "--strip-program", "--suffix", "--target-directory"},
		flags: []string{"--backup", "--compare", "--context", "--directory", "--help", "--no-target-directory",
			"--preserve-context", "--preserve-timestamps", "--strip", "--verbose", "--version"}}
	sortOpts = optSpec{short: "kotST", abbrev: true,
		long: []string{"--batch-size", "--buffer-size", "--compress-program", "--field-separator", "--files0-from",
			"--key", "--output", "--parallel", "--random-source", "--sort", "--temporary-directory"},
		flags: []string{"--check", "--debug", "--dictionary-order", "--general-numeric-sort", "--help",
			"--human-numeric-sort", "--ignore-case", "--ignore-leading-blanks", "--ignore-nonprinting",
			"--merge", "--month-sort", "--numeric-sort", "--random-sort", "--reverse", "--stable", "--unique",
			"--version", "--version-sort", "--zero-terminated"}}
	tarOpts = optSpec{short: "bCfFgHIKLNTVX", abbrev: true,
		long: []string{"--add-file", "--after-date", "--blocking-factor", "--checkpoint-action", "--directory",
			"--exclude", "--exclude-from", "--exclude-ignore", "--exclude-ignore-recursive", "--exclude-tag",
			"--exclude-tag-all", "--exclude-tag-under", "--file", "--files-from", "--format", "--group",
			"--group-map", "--hole-detection", "--index-file", "--info-script", "--label", "--level",
			"--listed-incremental", "--mode", "--mtime", "--new-volume-script", "--newer", "--newer-mtime",
			"--no-quote-chars", "--owner", "--owner-map", "--pax-option", "--quote-chars", "--quoting-style",
			"--record-size", "--rmt-command", "--rsh-command", "--sort", "--sparse-version", "--starting-file",
			"--strip-components", "--suffix", "--tape-length", "--to-command", "--transform",
			"--use-compress-program", "--volno-file", "--warning", "--xattrs-exclude", "--xattrs-include",
			"--xform"},
		flags: []string{"--absolute-names", "--acls", "--anchored", "--append", "--atime-preserve", "--auto-compress",
			"--backup", "--block-number", "--bzip2", "--catenate", "--check-device", "--check-links",
			"--checkpoint", "--clamp-mtime", "--compress", "--create", "--delay-directory-restore", "--delete",
			"--dereference", "--diff", "--exclude-backups", "--exclude-caches", "--exclude-caches-all",
			"--exclude-caches-under", "--exclude-vcs", "--exclude-vcs-ignores", "--extract", "--force-local",
			"--full-time", "--gzip", "--hard-dereference", "--help", "--ignore-case", "--ignore-command-error",
			"--ignore-failed-read", "--ignore-zeros", "--incremental", "--interactive",
			"--keep-directory-symlink", "--keep-newer-files", "--keep-old-files", "--list", "--lzip", "--lzma",
			"--lzop", "--multi-volume", "--no-acls", "--no-anchored", "--no-auto-compress",
			"--no-check-device", "--no-delay-directory-restore", "--no-ignore-case",
			"--no-ignore-command-error", "--no-null", "--no-overwrite-dir", "--no-recursion",
			"--no-same-owner", "--no-same-permissions", "--no-seek", "--no-selinux", "--no-unquote",
			"--no-verbatim-files-from", "--no-wildcards", "--no-wildcards-match-slash", "--no-xattrs",
			"--null", "--numeric-owner", "--occurrence", "--old-archive", "--one-file-system",
			"--one-top-level", "--overwrite", "--overwrite-dir", "--posix", "--preserve-order",
			"--preserve-permissions", "--read-full-records", "--recursion", "--recursive-unlink",
			"--remove-files", "--restrict", "--same-owner", "--seek", "--selinux", "--show-defaults",
			"--show-omitted-dirs", "--show-snapshot-field-ranges", "--show-transformed-names",
			"--skip-old-files", "--sparse", "--test-label", "--to-stdout", "--totals", "--touch",
			"--unlink-first", "--unquote", "--update", "--usage", "--utc", "--verbatim-files-from",
			"--verbose", "--verify", "--version", "--wildcards", "--wildcards-match-slash", "--xattrs", "--xz",
			"--zstd"}}
	grepOpts = optSpec{short: "efmABCdD", abbrev: true,
		long: []string{"--after-context", "--before-context", "--binary-files", "--context", "--devices", "--directories",
			"--exclude", "--exclude-dir", "--exclude-from", "--file", "--group-separator", "--include",
			"--label", "--max-count", "--regexp"},
		flags: []string{"--basic-regexp", "--binary", "--byte-offset", "--color", "--colour", "--count",
			"--dereference-recursive", "--extended-regexp", "--files-with-matches", "--files-without-match",
			"--fixed-strings", "--help", "--ignore-case", "--initial-tab", "--invert-match", "--line-buffered",
			"--line-number", "--line-regexp", "--no-filename", "--no-group-separator", "--no-ignore-case",
			"--no-messages", "--null", "--null-data", "--only-matching", "--perl-regexp", "--quiet",
			"--recursive", "--text", "--version", "--with-filename", "--word-regexp"}}
	wcOpts = optSpec{short: "", abbrev: true,
		long:  []string{"--files0-from"},
		flags: []string{"--bytes", "--chars", "--help", "--lines", "--max-line-length", "--version", "--words"}}
	touchOpts = optSpec{short: "rdt", abbrev: true,
		long:  []string{"--date", "--reference", "--time"},
		flags: []string{"--help", "--no-create", "--no-dereference", "--version"}}
	// patch 2.7: the options that take a value (patch --help).
	patchOpts = optSpec{short: "BdDFgioprVYz", abbrev: true,
		long: []string{"--basename-prefix", "--directory", "--fuzz", "--get", "--ifdef", "--input", "--output",
			"--prefix", "--quoting-style", "--read-only", "--reject-file", "--reject-format", "--strip", "--suffix",
			"--version-control"},
		flags: []string{"--backup", "--backup-if-mismatch", "--batch", "--binary", "--context", "--dry-run", "--ed",
			"--force", "--forward", "--help", "--ignore-whitespace", "--merge", "--no-backup-if-mismatch", "--normal",
			"--posix", "--quiet", "--remove-empty-files", "--reverse", "--set-time", "--set-utc", "--silent",
			"--unified", "--verbose", "--version"}}
	truncateOpts = optSpec{short: "sr", abbrev: true,
		long:  []string{"--reference", "--size"},
		flags: []string{"--help", "--io-blocks", "--no-create", "--version"}}
	shredOpts = optSpec{short: "ns", abbrev: true,
		long:  []string{"--iterations", "--random-source", "--size"},
		flags: []string{"--exact", "--force", "--help", "--remove", "--verbose", "--version", "--zero"}}
	mkdirOpts = optSpec{short: "m", abbrev: true,
		long:  []string{"--mode"},
		flags: []string{"--context", "--help", "--parents", "--verbose", "--version"}}
	headTailOpts = optSpec{short: "ncs", abbrev: true,
		long:  []string{"--bytes", "--lines", "--max-unchanged-stats", "--pid", "--sleep-interval"},
		flags: []string{"--follow", "--help", "--quiet", "--retry", "--verbose", "--version", "--zero-terminated"}}
	dateOpts = optSpec{short: "fdrs", optional: "I", abbrev: true,
		long:  []string{"--date", "--file", "--reference", "--rfc-3339", "--set"},
		flags: []string{"--debug", "--help", "--resolution", "--rfc-email", "--utc", "--version"}}
	nlOpts = optSpec{short: "bdfhilnsvw", abbrev: true,
		long: []string{"--body-numbering", "--footer-numbering", "--header-numbering", "--join-blank-lines",
			"--line-increment", "--number-format", "--number-separator", "--number-width",
			"--section-delimiter", "--starting-line-number"},
		flags: []string{"--help", "--no-renumber", "--version"}}
	odOpts = optSpec{short: "AjNtS", optional: "w", abbrev: true,
		long:  []string{"--address-radix", "--endian", "--format", "--read-bytes", "--skip-bytes"},
		flags: []string{"--help", "--output-duplicates", "--strings", "--traditional", "--version"}}
	base64Opts = optSpec{short: "w", abbrev: true,
		long:  []string{"--wrap"},
		flags: []string{"--decode", "--help", "--ignore-garbage", "--version"}}
	sedOpts = optSpec{short: "efl", abbrev: true,
		long: []string{"--expression", "--file", "--line-length"},
		flags: []string{"--binary", "--debug", "--follow-symlinks", "--help", "--in-place", "--null-data", "--posix",
			"--quiet", "--regexp-extended", "--sandbox", "--separate", "--silent", "--unbuffered", "--version",
			"--zero-terminated"}}
)

// gitDiffOpts are git diff's options that take the next word (diff.c):
// -U, -M, -C, -B, -X and --unified, --color, --word-diff, --relative,
// --stat … take only an attached or =VALUE.
var gitDiffOpts = optSpec{short: "GIlOS", optional: "BCMUX", long: []string{"--anchored", "--color-moved-ws",
	"--diff-algorithm", "--diff-filter", "--dst-prefix", "--find-object", "--ignore-matching-lines",
	"--inter-hunk-context", "--line-prefix", "--output", "--output-indicator-context", "--output-indicator-new",
	"--output-indicator-old", "--rotate-to", "--skip-to", "--src-prefix", "--stat-count", "--stat-graph-width",
	"--stat-name-width", "--stat-width", "--word-diff-regex", "--ws-error-highlight"}}

// git's subcommands parse with parse-options, which takes a unique prefix
// of a long option (git stash --incl is --include-untracked, git clean
// --forc is --force). The lists are each command's options (git 2.39).
var (
	gitCleanOpts = optSpec{short: "e", abbrev: true, long: []string{"--exclude"},
		flags: []string{"--dry-run", "--force", "--interactive", "--quiet"}}
	gitStashOpts = optSpec{short: "m", abbrev: true, long: []string{"--message", "--pathspec-from-file"},
		flags: []string{"--all", "--include-untracked", "--keep-index", "--no-all", "--no-include-untracked",
			"--no-keep-index", "--patch", "--pathspec-file-nul", "--quiet", "--staged"}}
	gitResetOpts = optSpec{abbrev: true, long: []string{"--pathspec-from-file"},
		flags: []string{"--hard", "--intent-to-add", "--keep", "--merge", "--mixed", "--no-quiet",
			"--no-recurse-submodules", "--no-refresh", "--patch", "--pathspec-file-nul", "--quiet",
			"--recurse-submodules", "--refresh", "--soft"}}
	gitRmOpts = optSpec{abbrev: true, long: []string{"--pathspec-from-file"},
		flags: []string{"--cached", "--dry-run", "--force", "--ignore-unmatch", "--pathspec-file-nul", "--quiet",
			"--sparse"}}
	gitAddOpts = optSpec{abbrev: true, long: []string{"--chmod", "--pathspec-from-file"},
		flags: []string{"--all", "--dry-run", "--edit", "--force", "--ignore-errors", "--ignore-missing",
			"--ignore-removal", "--intent-to-add", "--interactive", "--no-all", "--no-ignore-removal",
			"--no-warn-embedded-repo", "--patch", "--pathspec-file-nul", "--refresh", "--renormalize",
			"--sparse", "--update", "--verbose"}}
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
