package fakemcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FaultyOptions configures [Faulty]; a nil *FaultyOptions means all zero values.
type FaultyOptions struct {
	// Crash, if non-nil, is what the crash tool does: it is called in its own
	// goroutine, and the call then waits for its context to be cancelled, so
	// Crash should bring the connection down (for example, InMemory's stop).
	// If nil, crash drops the connection when served by [InMemory], exits the
	// process with [CrashExitCode] when served by [ServeStdio], and otherwise
	// fails with a JSON-RPC internal error.
	Crash func()
}

const (
	failDescription = "Fail on purpose: always returns a tool error (isError) whose message contains the given reason. " +
		"For testing how errors reported by a tool are handled."
	hangDescription = "Never answer: blocks until the caller cancels the call or the connection closes. " +
		"For testing client timeouts and cancellation."
	hugeDescription = "Return one text block of exactly the requested number of bytes of ASCII text. " +
		"For testing how oversized tool output is handled."
	crashDescription = "Kill the server in the middle of the call, so that no answer ever arrives: " +
		"a server process exits with status 3, an in-process server drops its connection. " +
		"For testing recovery from server crashes."
	slowDescription = "Answer \"ok\" after a delay, or stop early if the caller cancels the call. " +
		"For testing latency handling and timeouts."
	echoDescription = "Return the given text unchanged. " +
		"For checking that the connection works and that arguments arrive intact."
)

const (
	defaultHugeBytes = 1_000_000
	maxHugeBytes     = 64 << 20
	defaultSlowMS    = 1000
	maxSlowMS        = 600_000
)

type failArgs struct {
	Reason string `json:"reason,omitempty" jsonschema:"Why the call fails; included in the error message. Optional."`
}

type hugeArgs struct {
	Bytes int `json:"bytes,omitempty" jsonschema:"Size of the text in bytes, from 0 to 67108864. Defaults to 1000000."`
}

type slowArgs struct {
	MS int `json:"ms,omitempty" jsonschema:"Delay in milliseconds before answering, from 0 to 600000. Defaults to 1000."`
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"The text to return."`
}

// Faulty returns the fault-injection server with the tools fail, hang, huge,
// crash, slow and echo.
func Faulty(opts *FaultyOptions) *mcp.Server {
	var o FaultyOptions
	if opts != nil {
		o = *opts
	}
	s := newServer(&mcp.Implementation{Name: "faulty", Title: "Fault injection (toolgrade fake)", Version: version}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "fail",
		Description: failDescription,
		InputSchema: inputSchema[failArgs](nil),
	}, failTool)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "hang",
		Description: hangDescription,
		InputSchema: inputSchema[noArgs](nil),
	}, hangTool)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "huge",
		Description: hugeDescription,
		InputSchema: inputSchema[hugeArgs](func(p map[string]*jsonschema.Schema) {
			p["bytes"].Default = []byte(fmt.Sprint(defaultHugeBytes))
			p["bytes"].Minimum = new(0.0)
			p["bytes"].Maximum = new(float64(maxHugeBytes))
		}),
	}, hugeTool)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "crash",
		Description: crashDescription,
		InputSchema: inputSchema[noArgs](nil),
	}, crashTool(o.Crash))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "slow",
		Description: slowDescription,
		InputSchema: inputSchema[slowArgs](func(p map[string]*jsonschema.Schema) {
			p["ms"].Default = []byte(fmt.Sprint(defaultSlowMS))
			p["ms"].Minimum = new(0.0)
			p["ms"].Maximum = new(float64(maxSlowMS))
		}),
	}, slowTool)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "echo",
		Description: echoDescription,
		InputSchema: inputSchema[echoArgs](nil),
	}, echoTool)
	return s
}

func failTool(_ context.Context, _ *mcp.CallToolRequest, in failArgs) (*mcp.CallToolResult, any, error) {
	if in.Reason == "" {
		return nil, nil, fmt.Errorf("injected failure")
	}
	return nil, nil, fmt.Errorf("injected failure: %s", in.Reason)
}

func hangTool(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	<-ctx.Done()
	return nil, nil, ctx.Err()
}

func hugeTool(_ context.Context, _ *mcp.CallToolRequest, in hugeArgs) (*mcp.CallToolResult, any, error) {
	if in.Bytes < 0 || in.Bytes > maxHugeBytes {
		return nil, nil, fmt.Errorf("bytes must be between 0 and %d, got %d", maxHugeBytes, in.Bytes)
	}
	return textResult(hugeText(in.Bytes)), nil, nil
}

// crashTool is the crash tool with FaultyOptions.Crash as its hook; nil:
// the hook of the transport serving the call, if any.
func crashTool(hook func()) mcp.ToolHandlerFor[noArgs, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
		crash := hook
		if crash == nil {
			crash = crashFrom(ctx)
		}
		if crash == nil {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: "crash: no crash hook (set FaultyOptions.Crash, or serve with InMemory or ServeStdio)"}
		}
		go crash()
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}
}

func slowTool(ctx context.Context, _ *mcp.CallToolRequest, in slowArgs) (*mcp.CallToolResult, any, error) {
	if in.MS < 0 || in.MS > maxSlowMS {
		return nil, nil, fmt.Errorf("ms must be between 0 and %d, got %d", maxSlowMS, in.MS)
	}
	t := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return textResult("ok"), nil, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

func echoTool(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
	return textResult(in.Text), nil, nil
}

// hugeLine is repeated (and cut) to build huge's output: 64 bytes per line.
const hugeLine = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.\n"

func hugeText(n int) string {
	var b strings.Builder
	b.Grow(n)
	for b.Len() < n {
		b.WriteString(hugeLine[:min(len(hugeLine), n-b.Len())])
	}
	return b.String()
}
