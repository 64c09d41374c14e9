package remote

import (
	"bufio"
	"strings"
	"testing"
)

// FuzzReadResponse: whatever a server sends, ReadResponse returns an
// error or a status of three digits and a body within MaxBody, and does
// not panic.
func FuzzReadResponse(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.0 403 Forbidden\r\nContent-Length: 14\r\n\r\n{\"error\":\"no\"}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Le",
		"HTTP/1.1 200 OK\r\n X: folded\r\nContent-Length: 0\r\n\r\n",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		status, body, err := ReadResponse(bufio.NewReader(strings.NewReader(in)))
		if err != nil {
			return
		}
		if status < 100 || status > 999 || len(body) > MaxBody || len(body) > len(in) {
			t.Fatalf("status %d, %d-byte body from %d bytes of input", status, len(body), len(in))
		}
	})
}
