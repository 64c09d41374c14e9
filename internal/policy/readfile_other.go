//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package policy

import (
	"errors"
	"os"
)

func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) {}
