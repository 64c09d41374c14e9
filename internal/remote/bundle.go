package remote

import (
	"context"
	"fmt"
	"strings"
)

// BundlePath is where a toolguard serve publishes its signed policy
// bundle (docs/bundles.md).
const BundlePath = "/v1/policy/bundle"

// Bundle asks for the server's policy bundle. etag is the entity tag of
// the bundle the caller has (`"<hash>"`, or ""): when it is still the
// server's, the answer is notModified and no body. The bundle's bytes
// are returned as they came: the caller verifies them.
func (c *Client) Bundle(ctx context.Context, etag string) (data []byte, notModified bool, err error) {
	if strings.ContainsAny(etag, "\r\n") {
		return nil, false, fmt.Errorf("bad entity tag %q", etag)
	}
	hdr := ""
	if etag != "" {
		hdr = "If-None-Match: " + etag + "\r\n"
	}
	status, _, body, err := c.roundTrip(ctx, "GET", BundlePath, hdr, nil)
	if err != nil {
		return nil, false, fmt.Errorf("approval server %s: %w", c.addr, err)
	}
	switch {
	case status == 304:
		return nil, true, nil
	case status/100 != 2:
		return nil, false, &StatusError{Code: status, Msg: errorOf(body)}
	}
	return body, false, nil
}
