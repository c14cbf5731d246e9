package termtext

import (
	"strings"
	"time"
)

// Duration writes d as people read a duration, not as Go's
// time.Duration.String does: rounded to what a reader can use (whole
// seconds from a minute up, tenths of a second from a second, whole
// milliseconds below), without the zero units Go writes (5m for 5m0s, 1h
// for 1h0m0s, 2h5m for 2h5m0s), 0s for zero (a bare 0 names no unit). Every message that shows a
// duration to a user writes it so; a measured 1.234567891s reads 1.2s.
func Duration(d time.Duration) string {
	switch a := d.Abs(); {
	case d == 0:
		return "0s"
	case a >= time.Minute:
		d = d.Round(time.Second)
	case a >= time.Second:
		d = d.Round(100 * time.Millisecond)
	case a >= time.Millisecond:
		d = d.Round(time.Millisecond)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
