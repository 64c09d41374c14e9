package serve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/user"
	"slices"
	"strconv"
)

// Peer credentials (system mode; docs/install.md, "System mode"): on a
// Unix socket the server knows which account the caller runs as
// (SO_PEERCRED, read when the connection is accepted), so a caller
// without a bearer token still gets a role: an approver when it is root,
// the server's own account or a member of the approver group, the hook
// role otherwise. The agent's user can therefore record a request, use a
// grant, append audit lines and read its session's holds over the socket,
// and never approve. Only Linux reads peer credentials (peer_linux.go);
// elsewhere PeerSupported is false and the command refuses the mode.

// Peer is the account of the process at the other end of a Unix socket.
type Peer struct {
	UID, GID uint32
	PID      int32
}

type peerKey struct{}

// peerResult is what ConnContext found: the credentials, or why not.
type peerResult struct {
	peer Peer
	err  error
}

// PeerConnContext is an http.Server's ConnContext for a Unix socket
// listener: it reads the peer's credentials once per connection.
func PeerConnContext(ctx context.Context, c net.Conn) context.Context {
	p, err := peerCred(c)
	return context.WithValue(ctx, peerKey{}, peerResult{p, err})
}

// PeerOf returns the credentials PeerConnContext read for r's connection.
func PeerOf(r *http.Request) (Peer, error, bool) {
	v, ok := r.Context().Value(peerKey{}).(peerResult)
	if !ok {
		return Peer{}, nil, false
	}
	return v.peer, v.err, true
}

// PeerRoles returns Config.PeerRole for an approver group: root, the
// account the server runs as (self) and members of the group (by the
// peer's primary gid or the group database) approve; anyone else is a
// hook. group "" leaves only root and self as approvers.
func PeerRoles(group string, self uint32) (func(Peer) Role, error) {
	gid := ""
	if group != "" {
		g, err := user.LookupGroup(group)
		if err != nil {
			return nil, fmt.Errorf("--approver-group %s: %v", group, err)
		}
		gid = g.Gid
	}
	return func(p Peer) Role {
		if p.UID == 0 || p.UID == self {
			return RoleApprover
		}
		if gid != "" {
			if strconv.FormatUint(uint64(p.GID), 10) == gid {
				return RoleApprover
			}
			if u, err := user.LookupId(strconv.FormatUint(uint64(p.UID), 10)); err == nil {
				if ids, err := u.GroupIds(); err == nil && slices.Contains(ids, gid) {
					return RoleApprover
				}
			}
		}
		return RoleHook
	}, nil
}

// peerRole is the role of a request with no token or cookie on a
// connection with peer credentials, when the server has PeerRole.
func (s *Server) peerRole(r *http.Request) (Role, error) {
	if s.cfg.PeerRole == nil {
		return RoleNone, nil
	}
	p, err, ok := PeerOf(r)
	if !ok {
		return RoleNone, nil
	}
	if err != nil {
		return RoleNone, Errorf(http.StatusUnauthorized, "the caller's credentials could not be read: %v", err)
	}
	return s.cfg.PeerRole(p), nil
}
