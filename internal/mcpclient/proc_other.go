//go:build !unix

package mcpclient

import "os/exec"

// setProcessGroup is a no-op where process groups are not available.
func setProcessGroup(*exec.Cmd) {}

// killProcessGroup is a no-op where process groups are not available; the
// SDK's close still ends the server itself.
func killProcessGroup(*exec.Cmd) {}
