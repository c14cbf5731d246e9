package cli

import (
	"fmt"

	"github.com/dustin/go-humanize"
)

// ParseSize reads a size flag (--max-body, --max-suite-size): bytes, or
// a size with a unit (64MiB, 100MB, 1GiB).
func ParseSize(s string) (int64, error) {
	n, err := humanize.ParseBytes(s)
	if err != nil || n == 0 || n > 1<<40 {
		return 0, fmt.Errorf("%q: want a size such as 64MiB, 100MB or 1048576 (bytes), between 1 byte and 1 TiB", s)
	}
	return int64(n), nil
}
