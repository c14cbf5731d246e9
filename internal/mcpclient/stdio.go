package mcpclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// commandTransport runs a stdio server like mcp.CommandTransport, but with a
// frame limit of our choosing: the SDK's CommandTransport always reads with
// mcp.DefaultMaxLineLength (16 MiB) and drops the whole connection on a
// longer reply, which a tool that returns a large file easily sends.
type commandTransport struct {
	cmd *exec.Cmd
	// maxFrame is the most bytes one JSON-RPC message may have; negative:
	// no limit (see mcp.IOTransport.MaxLineLength).
	maxFrame int
	// frames is the reader of the server's stdout, once connected.
	frames *frameLimit
}

// frameLimit fails the read of a line (one JSON-RPC message) longer than
// max bytes; max < 0 means no limit.
type frameLimit struct {
	r    io.Reader
	max  int
	line int // bytes of the current line so far
	hit  atomic.Bool
}

func (f *frameLimit) Read(p []byte) (int, error) {
	if f.hit.Load() {
		return 0, f.err()
	}
	if f.max >= 0 && len(p) > f.max-f.line+1 {
		// Never read past the limit, so that the line is cut exactly.
		p = p[:f.max-f.line+1]
	}
	n, err := f.r.Read(p)
	// Only the last line of the chunk can be too long: p never reaches
	// past the limit of the line it starts in.
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		f.line = n - i - 1
	} else {
		f.line += n
	}
	if f.max >= 0 && f.line > f.max {
		f.hit.Store(true)
		return n, f.err()
	}
	return n, err
}

func (f *frameLimit) err() error {
	return fmt.Errorf("the server sent a message longer than the frame limit of %d bytes", f.max)
}

// exceeded reports whether the server sent a message over the limit.
func (f *frameLimit) exceeded() bool { return f != nil && f.hit.Load() }

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	t.frames = &frameLimit{r: stdout, max: t.maxFrame}
	it := &mcp.IOTransport{
		// Closing the connection closes stdin and waits; stdout is closed by
		// Wait once the process is gone.
		Reader: io.NopCloser(t.frames),
		// The SDK's own cap is off: ours counts whole lines and says which
		// limit was hit.
		MaxLineLength: -1,
		Writer:        &childStdin{cmd: t.cmd, stdin: stdin, stdout: stdout},
	}
	return it.Connect(ctx)
}

// childStdin is the server's stdin; closing it ends the server as the MCP
// spec asks: close stdin, wait, SIGTERM, wait, SIGKILL.
type childStdin struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
}

func (c *childStdin) Write(p []byte) (int, error) { return c.stdin.Write(p) }

func (c *childStdin) Close() error {
	if err := c.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	// A server blocked writing a reply nobody reads (one too large for the
	// frame limit) would never see its stdin close; drain its stdout so
	// it can. The copy ends when Wait closes the pipe.
	go func() { _, _ = io.Copy(io.Discard, c.stdout) }()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(terminateDuration)
		defer t.Stop()
		select {
		case err := <-done:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := c.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return fmt.Errorf("unresponsive subprocess")
}
