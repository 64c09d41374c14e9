//go:build unix

package workspace

import "syscall"

// oNoFollow refuses a symlink at the last path element (ReadSmall).
const oNoFollow = syscall.O_NOFOLLOW
