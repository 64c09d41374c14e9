package audit

import (
	"os"
	"runtime"

	"github.com/toolguard/toolguard/internal/filelock"
)

// lockAppend takes an exclusive lock for one append to the log at path:
// on the log file itself, or on Windows — where a handle opened for
// append-only access cannot be locked — on the sidecar file path+".lock".
func lockAppend(f *os.File, path string) (unlock func() error, err error) {
	lf := f
	if runtime.GOOS == "windows" {
		if lf, err = os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600); err != nil {
			return nil, err
		}
	}
	if err := filelock.Lock(lf); err != nil {
		if lf != f {
			lf.Close()
		}
		return nil, err
	}
	return func() error {
		err := filelock.Unlock(lf)
		if lf != f {
			if cerr := lf.Close(); err == nil {
				err = cerr
			}
		}
		return err
	}, nil
}
