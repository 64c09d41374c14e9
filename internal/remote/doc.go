// Package remote is the hook's client of a toolguard serve approval
// server (settings.approval_url; docs/approvals.md, "Remote approvals"):
// a sandboxed hook records its ask there and asks for a grant there,
// because the store and the approver key live outside the sandbox. It is
// also the approver's client of `toolguard approvals --server`
// (NewApprover: list, show, approve, reject; docs/approvals.md, "Deciding
// through the server"), which signs nothing: the server does. An
// approver client sends its token over a Unix socket or loopback http
// only, and reads answers of up to 64 MiB with 30 s per request.
//
// It speaks just enough HTTP/1.1 over a net.Conn, so that the hook binary
// links neither net/http nor crypto/tls: one request per connection
// (Connection: close), a JSON body with Content-Length, and a response
// with a status line, headers and a Content-Length body of at most
// MaxBody bytes. A chunked or otherwise delimited response, a response
// without Content-Length, a truncated or oversized one, a status line or
// header that is not HTTP/1.x, or a body that is not one JSON value is an
// error. Addresses are unix:///path/to/socket and http://host:port; there
// is no TLS (https://), no proxy and no redirect.
//
// Every request has a deadline: the caller's context, and at most
// Client.Timeout (DefaultTimeout) from its start, dial included.
//
// The package trusts the server for nothing but transport: a grant it
// returns is checked by the caller (approval.Keyring.VerifyGrant).
package remote
