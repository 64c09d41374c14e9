//go:build !linux

package serve

import (
	"errors"
	"net"
)

// PeerSupported reports whether this system reads peer credentials.
const PeerSupported = false

func peerCred(net.Conn) (Peer, error) {
	return Peer{}, errors.New("peer credentials are read on Linux only")
}
