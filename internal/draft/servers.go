package draft

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ServersRef is a servers file as a draft's servers: key says it: a relative
// path made relative to the folder the draft is written in, since a suite's
// paths resolve against its own folder; an absolute path, or any path when
// the draft goes to stdout, as given.
func ServersRef(servers, out string) (string, error) {
	if _, err := os.Stat(servers); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("--servers %s: %w", servers, err)
	}
	if out == "" || filepath.IsAbs(servers) {
		return servers, nil
	}
	abs, err := filepath.Abs(servers)
	if err != nil {
		return servers, nil
	}
	dir, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return abs, nil
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return abs, nil
	}
	return filepath.ToSlash(rel), nil
}
