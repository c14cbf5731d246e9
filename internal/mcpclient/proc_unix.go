//go:build unix

package mcpclient

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the server in a process group of its own, so that
// closing it can also end the processes it spawned (npx, uv and friends run
// the real server as a grandchild).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills whatever is left of the server's process group
// after the session has been closed (the server itself has been waited for
// by then).
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
