// Package fakemcp provides small, deterministic MCP servers for exercising
// toolgrade end to end: "docs", a restaurant assistant's document store,
// "faulty", a set of tools that fail, hang, crash or flood on purpose, and
// "notes", a notes store kept in a file, whose state scenarios check.
//
// Servers are plain [*mcp.Server] values from the go-sdk. Serve them in-process
// with [InMemory] or over standard input and output with [ServeStdio].
package fakemcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// version is reported as the implementation version of every fake server.
const version = "1.0.0"

// CrashExitCode is the status a process serving "faulty" through [ServeStdio]
// exits with when the crash tool is called.
const CrashExitCode = 3

// Names returns the names accepted by [New] and [ServeStdio], sorted.
func Names() []string { return []string{"docs", "faulty", "notes"} }

// About says in one line what the named server serves, ending with its
// tools, for `toolgrade fake-mcp -h`; "" for a name that is none.
func About(name string) string {
	switch name {
	case "docs":
		return "a restaurant's FAQ, menu and opening hours; tools: search, list_documents, get_document"
	case "faulty":
		return "tools that misbehave on purpose, for testing clients; tools: fail, hang, huge, crash (exits 3), slow, echo"
	case "notes":
		return "notes kept in " + NotesFile + " in its working directory, or in --dir DIR; tools: add_note, list_notes, read_note, delete_note"
	}
	return ""
}

// New returns a fresh instance of the named server: "docs" is [Docs],
// "faulty" is [Faulty] and "notes" is [Notes], with nil options.
func New(name string) (*mcp.Server, error) {
	switch name {
	case "docs":
		return Docs(), nil
	case "faulty":
		return Faulty(nil), nil
	case "notes":
		return Notes(nil), nil
	}
	return nil, fmt.Errorf("fakemcp: unknown server %q (known: %s)", name, strings.Join(Names(), ", "))
}

// ServeStdio serves the named server as newline-delimited JSON-RPC on in and
// out until in ends or ctx is cancelled (both return nil; cancellation also
// cancels calls in flight). It owns the process: faulty's crash tool exits it
// with [CrashExitCode].
func ServeStdio(ctx context.Context, name string, in io.Reader, out io.Writer) error {
	s, err := New(name)
	if err != nil {
		return err
	}
	return Serve(ctx, s, in, out)
}

// Serve serves s as [ServeStdio] serves a named server, for a server built
// with options of its own (a [Notes] with its directory).
func Serve(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	// Read through a pipe so that closing it unblocks the server's reader
	// even when in (typically os.Stdin) cannot be interrupted; the copying
	// goroutine then lingers until in returns.
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, in)
		pw.CloseWithError(err) // nil means EOF
	}()
	sctx := withCrash(ctx, func() { os.Exit(CrashExitCode) })
	ss, err := s.Connect(sctx, &mcp.IOTransport{Reader: pr, Writer: nopWriteCloser{out}}, nil)
	if err != nil {
		pr.Close()
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		pr.CloseWithError(ctx.Err())
		<-done
		return nil
	}
}

// InMemory serves s on one end of an in-memory pipe and returns a transport
// for the other end, for [mcp.Client.Connect], with an idempotent stop func
// that drops the connection (cancelling calls in flight, as cancelling ctx
// does) and waits for the server to finish.
func InMemory(ctx context.Context, s *mcp.Server) (mcp.Transport, func(), error) {
	// A net.Pipe is what mcp.NewInMemoryTransports uses; holding the server's
	// end lets stop (and the faulty crash tool) close it abruptly.
	serverEnd, clientEnd := net.Pipe()
	abort := func() { serverEnd.Close() }
	ss, err := s.Connect(withCrash(ctx, abort), &mcp.IOTransport{Reader: serverEnd, Writer: serverEnd}, nil)
	if err != nil {
		serverEnd.Close()
		clientEnd.Close()
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		ss.Wait()
		close(done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			abort()
		case <-done:
		}
	}()
	stop := sync.OnceFunc(func() {
		abort()
		<-done
	})
	return &mcp.IOTransport{Reader: clientEnd, Writer: clientEnd}, stop, nil
}

// crashKey is the context key under which InMemory and ServeStdio store the
// func the faulty crash tool calls when FaultyOptions.Crash is nil.
type crashKey struct{}

func withCrash(ctx context.Context, crash func()) context.Context {
	return context.WithValue(ctx, crashKey{}, crash)
}

func crashFrom(ctx context.Context) func() {
	f, _ := ctx.Value(crashKey{}).(func())
	return f
}

// newServer returns an empty server that tolerates "arguments": null, which
// go-sdk v1.8.0 would otherwise turn into a panic when applying defaults.
func newServer(impl *mcp.Implementation, opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(impl, opts)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if a := bytes.TrimSpace(r.Params.Arguments); len(a) == 0 || string(a) == "null" {
					r.Params.Arguments = json.RawMessage("{}")
				}
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// nopWriteCloser leaves closing the output to ServeStdio's caller.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
