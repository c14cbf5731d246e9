package rig

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PeakRSSMB is the process's peak resident set (VmHWM) in MB since the last
// ResetPeakRSS, for benchmarks that report memory; 0 where /proc is missing.
func PeakRSSMB() float64 {
	s, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(s), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// ResetPeakRSS restarts VmHWM from the current RSS (Linux: clear_refs 5), so
// what earlier benchmarks of the process used does not count.
func ResetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// CPUSeconds is the CPU time (user and system) the process has used so far:
// on a machine shared with other work, a benchmark's CPU time per
// operation says more than its wall time, which the others' load inflates.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
