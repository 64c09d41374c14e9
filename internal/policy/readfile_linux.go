package policy

import "syscall"

// releasePages drops a mapping's pages from the process's resident set
// (the page cache keeps them; a later read faults them back in).
func releasePages(b []byte) { _ = syscall.Madvise(b, syscall.MADV_DONTNEED) }
