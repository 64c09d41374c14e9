package shellparse

import (
	"path"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// SourceDownload marks a file the same string downloaded earlier and a
// command then executes: `curl -o x.sh URL && bash x.sh`, `wget URL && ./x`.
const SourceDownload SourceClass = 3

// maxDownloads bounds the downloaded files followed in one analysis.
const maxDownloads = 64

// downloads finds commands that execute a file an earlier command of the
// same analysis fetched from the network (directly, through tee, or
// copied, moved or linked on): the program itself, or the script a shell,
// an interpreter or source reads. Files are matched by base name, which
// survives cd and relative spellings. Each such command gets a Source of
// class SourceDownload (Via "file") naming the program that fetched it.
func (a *analyzer) downloads() {
	var got map[string]string // base name → fetching program
	for i := range a.cmds {
		c := &a.cmds[i]
		if len(got) > 0 && !c.Dynamic {
			if src, ok := a.executesDownload(c, got); ok {
				c.Sources = appendSources(c.Sources, Source{Name: src, Class: SourceDownload, Via: "file"})
			}
		}
		src := fetcher(c)
		if src == "" && len(got) > 0 && (c.Name == "rm" || c.Name == "unlink" || c.Name == "shred") {
			// Deleted: whatever runs under that name later is not it.
			for _, p := range c.Paths {
				if !p.Dynamic && p.Op == call.OpDelete {
					delete(got, path.Base(p.Path))
				}
			}
			continue
		}
		if src == "" && len(got) > 0 && c.Name == "ln" {
			for _, arg := range c.Args {
				if s, ok := got[path.Base(arg)]; ok && !strings.HasPrefix(arg, "-") {
					src = s
					break
				}
			}
		}
		if src == "" && len(got) > 0 {
			// A copy, move or link of a downloaded file is one too.
			for _, p := range c.Paths {
				if !p.Dynamic && (p.Op == call.OpRead || p.Op == call.OpDelete) {
					if s, ok := got[path.Base(p.Path)]; ok {
						src = s
						break
					}
				}
			}
		}
		if src == "" {
			continue
		}
		if got == nil {
			got = map[string]string{}
		}
		for _, p := range c.Paths {
			if !p.Dynamic && p.Op.Writes() && len(got) < maxDownloads {
				got[path.Base(p.Path)] = src
			}
		}
		if n := remoteName(c); n != "" && len(got) < maxDownloads {
			got[n] = src
		}
	}
}

// fetcher names the program whose network or decoded content c writes to
// files: a network client, a decoder (base64 -d > x.sh), a command fed by
// one (tee), rsync/scp from a remote.
func fetcher(c *Command) string {
	if c.Dynamic {
		return ""
	}
	if classify(c) == SourceDecoder {
		return c.Name
	}
	if network(c.Name) {
		if c.Name == "curl" && slices.ContainsFunc(c.Args, func(s string) bool { return strings.HasPrefix(s, "file://") }) &&
			!slices.ContainsFunc(c.Args, func(s string) bool { return strings.Contains(s, "://") && !strings.HasPrefix(s, "file://") }) {
			return "" // a local copy
		}
		return c.Name
	}
	if (c.Name == "rsync" || c.Name == "scp") && slices.ContainsFunc(c.Args, func(s string) bool {
		return !strings.HasPrefix(s, "-") && isRemotePath(s)
	}) {
		return c.Name
	}
	for _, s := range c.Sources {
		if s.Class == SourceNetwork || s.Class == SourceDecoder {
			return s.Name
		}
	}
	return ""
}

// remoteName is the file curl -O or wget (without -O) saves: the last
// segment of the URL.
func remoteName(c *Command) string {
	var url string
	switch c.Name {
	case "curl":
		if slices.ContainsFunc(c.Args, func(s string) bool {
			return s == "--remote-header-name" || (len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.Contains(s, "J"))
		}) {
			return "" // -J: the server names the file
		}
		if !slices.ContainsFunc(c.Args, func(s string) bool {
			return s == "--remote-name" || s == "--remote-name-all" || (len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.Contains(s, "O"))
		}) {
			return ""
		}
	case "wget":
		if slices.ContainsFunc(c.Args, func(s string) bool {
			return s == "-O" || strings.HasPrefix(s, "--output-document") || (len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.Contains(s, "O"))
		}) {
			return ""
		}
	default:
		return ""
	}
	for _, s := range c.Args {
		if strings.Contains(s, "://") {
			url = s
		}
	}
	if url == "" {
		return ""
	}
	url = url[strings.Index(url, "://")+3:]
	url, _, _ = strings.Cut(url, "?")
	url, _, _ = strings.Cut(url, "#")
	i := strings.LastIndexByte(url, '/')
	if i < 0 || i == len(url)-1 {
		return ""
	}
	return url[i+1:]
}

// executesDownload reports whether c runs a downloaded file.
func (a *analyzer) executesDownload(c *Command, got map[string]string) (string, bool) {
	if s, ok := got[c.Name]; ok {
		return s, true
	}
	if !isShell(c.Name) && interpreter(c.Name) == "" && c.Name != "source" && c.Name != "." &&
		c.Name != "pwsh" && c.Name != "powershell" && c.Name != "exec" {
		return "", false
	}
	for _, p := range c.Paths {
		if p.Op == call.OpRead && !p.Dynamic {
			if s, ok := got[path.Base(p.Path)]; ok {
				return s, true
			}
		}
	}
	if c.Name == "pwsh" || c.Name == "powershell" {
		for i, s := range c.Args {
			if strings.EqualFold(s, "-File") && i+1 < len(c.Args) {
				if src, ok := got[path.Base(c.Args[i+1])]; ok {
					return src, true
				}
			}
		}
	}
	return "", false
}
