//go:build !unix

package workspace

// oNoFollow: no such open flag here, so a symlink in the place is followed.
const oNoFollow = 0
