package draft

import (
	"errors"
	"os"
	"strings"
)

// InTheWay lists the files of paths that exist; nil when none does.
func InTheWay(paths ...string) []string {
	var in []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			in = append(in, p)
		}
	}
	return in
}

// ErrInTheWay is the error for files a command would write that exist: it
// lists them and says what to do.
func ErrInTheWay(cmd string, in []string) error {
	verb, them := "exist", "them"
	if len(in) == 1 {
		verb, them = "exists", "it"
	}
	return errors.New(cmd + ": " + strings.Join(in, ", ") + " already " + verb +
		"; nothing was written, and no file is ever replaced: choose another folder or name, or move " + them + " away first")
}

// WriteNew writes data to a file that must not exist yet.
func WriteNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
