package shellparse

import (
	"path"
	"sort"
	"strings"
)

// Commands run by docker/podman/nerdctl run act in a new container: its
// file system is the image's, not the host's (docker run --rm alpine
// rm -rf /var/cache/apk/* deletes nothing of the user's). Only the host
// directories mounted into it (-v HOST:CONT, --volume, --mount
// type=bind,source=HOST,target=CONT) are the host's: a path under CONT is
// reported as the same path under HOST, any other path of the container
// is not reported. Where the analysis cannot tell what the container
// reaches — --privileged, --device, --volumes-from, --pid=host, a
// --mount or -v it cannot read, a host part that is not literal — the
// paths are taken as the host's, as before.

// mount is a host directory seen in a container.
type mount struct {
	host field  // the host side, as written
	cont string // the container side: absolute, clean
}

// containerMounts reads docker run's options (opts: the words before
// IMAGE). ok false: the container may reach more of the host than its
// mounts; nil mounts mean that.
func containerMounts(opts []field) (*[]mount, *field) {
	var ms []mount
	var workdir *field
	parsed, _ := dockerRun.parse(opts)
	for _, o := range parsed {
		v := o.val
		switch o.name {
		case "--privileged", "--device", "--volumes-from", "--cap-add":
			if o.name != "--cap-add" || v == nil || !v.lit || strings.EqualFold(v.s, "ALL") || strings.Contains(strings.ToUpper(v.s), "SYS_ADMIN") {
				return nil, nil
			}
		case "--pid", "--userns", "--ipc", "--uts", "--cgroupns":
			if o.name == "--pid" && (v == nil || !v.lit || v.s == "host") {
				return nil, nil
			}
		case "-w", "--workdir":
			workdir = v
		case "-v", "--volume":
			if v == nil || !v.lit {
				return nil, nil
			}
			parts := strings.Split(v.s, ":")
			if len(parts) < 2 || !path.IsAbs(parts[1]) {
				if len(parts) == 1 && path.IsAbs(parts[0]) {
					continue // -v /data: an anonymous volume
				}
				return nil, nil
			}
			h := parts[0]
			if !strings.ContainsAny(h, "/~.") {
				continue // a named volume: docker's, not a host path
			}
			ms = append(ms, mount{host: litField(h, v.pos), cont: path.Clean(parts[1])})
		case "--mount":
			if v == nil || !v.lit {
				return nil, nil
			}
			kind, src, dst := "volume", "", ""
			for _, kv := range strings.Split(v.s, ",") {
				k, val, _ := strings.Cut(kv, "=")
				switch k {
				case "type":
					kind = val
				case "source", "src":
					src = val
				case "target", "destination", "dst":
					dst = val
				}
			}
			switch {
			case kind == "volume" || kind == "tmpfs":
			case kind == "bind" && src != "" && path.IsAbs(dst):
				ms = append(ms, mount{host: litField(src, v.pos), cont: path.Clean(dst)})
			default:
				return nil, nil
			}
		}
	}
	if ms == nil {
		ms = []mount{}
	}
	return &ms, workdir
}

// containerFS maps a container's paths to the host's.
type containerFS struct {
	mounts  []mount // host sides resolved on the host; longest container path first
	workdir string
}

// newContainerFS resolves the mounts' host sides against the scope the
// docker command runs in.
func newContainerFS(ms []mount, workdir *field, host *scope) *containerFS {
	c := &containerFS{}
	for _, m := range ms {
		p, ok := resolveHere(m.host, 0, host)
		if !ok {
			continue
		}
		if p.Dynamic {
			return nil
		}
		m.host = litField(p.Path, m.host.pos)
		c.mounts = append(c.mounts, m)
	}
	sort.SliceStable(c.mounts, func(i, j int) bool { return len(c.mounts[i].cont) > len(c.mounts[j].cont) })
	if workdir != nil && workdir.lit && path.IsAbs(workdir.s) {
		c.workdir = path.Clean(workdir.s)
	}
	return c
}

// host is the host path a container path stands for: under a mount,
// the same path under its host side; anywhere else none.
func (c *containerFS) host(p PathRef) (PathRef, bool) {
	if c == nil {
		return p, true
	}
	q := p.Path
	if !path.IsAbs(q) && !strings.HasPrefix(q, "~") {
		if c.workdir == "" {
			return PathRef{}, false
		}
		q = path.Join(c.workdir, q)
	}
	for _, m := range c.mounts {
		if q == m.cont || m.cont == "/" || strings.HasPrefix(q, m.cont+"/") {
			rest := strings.TrimPrefix(q, m.cont)
			if m.cont == "/" {
				rest = q
			}
			p.Path = path.Clean(m.host.s + "/" + rest)
			if strings.HasPrefix(m.host.s, "~") {
				p.Path = m.host.s + strings.TrimSuffix("/"+strings.TrimPrefix(rest, "/"), "/")
			}
			return p, true
		}
	}
	return PathRef{}, false
}
