package proxy_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// soakToolEnv makes the test binary the soak's stdio MCP server (see
// serveSoakTool); its value is the file the server logs to.
const soakToolEnv = "TOOLGRADE_PROXY_SOAK_TOOL"

func TestMain(m *testing.M) {
	if p := os.Getenv(soakToolEnv); p != "" {
		if err := serveSoakTool(p); err != nil {
			fmt.Fprintln(os.Stderr, "soak tool:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// soakToolStart is how long the tool server takes to start.
const soakToolStart = 100 * time.Millisecond

// recordArgs are the arguments of the soak's one tool: which chat called
// it, which of the chat's calls it is, and how long the call takes.
type recordArgs struct {
	ID      int `json:"id"`
	Step    int `json:"step"`
	SleepMS int `json:"sleep_ms"`
}

// serveSoakTool serves the tool "record" over stdio. It appends a line to
// the file at path when it starts and for every call as it starts and
// ends, so the benchmark can tell, after the fact, which process ran which
// call when, even for a process it killed. Each line is one write to a
// file opened for appending, so the lines of a killed server and of its
// successor never interleave.
func serveSoakTool(path string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	pid := os.Getpid()
	logf := func(format string, args ...any) {
		fmt.Fprintf(f, format+"\n", args...)
	}
	logf("pid %d %d", pid, time.Now().UnixNano())
	// As a server that takes a while to start (npx, a JVM): a restart
	// outlasts the call that asked for it when its client leaves soon.
	time.Sleep(soakToolStart)
	s := mcp.NewServer(&mcp.Implementation{Name: "soak", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "record", Description: "Records that a chat called it."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a recordArgs) (*mcp.CallToolResult, any, error) {
			logf("start %d %d %d %d", a.ID, a.Step, time.Now().UnixNano(), pid)
			t := time.NewTimer(time.Duration(a.SleepMS) * time.Millisecond)
			defer t.Stop()
			canceled := 0
			select {
			case <-t.C:
			case <-ctx.Done():
				canceled = 1 // the client sent notifications/cancelled
			}
			logf("end %d %d %d %d", a.ID, a.Step, time.Now().UnixNano(), canceled)
			text := fmt.Sprintf("recorded %d/%d", a.ID, a.Step)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

// toolRun is one call as the tool server logged it.
type toolRun struct {
	id, step   int
	pid        int
	start, end time.Time // end is zero when the process died first
	canceled   bool      // the server saw the call canceled
}

// toolLog is what the soak's tool servers logged.
type toolLog struct {
	pids []int // in start order
	runs []*toolRun
}

// readToolLog reads the file the tool servers logged to.
func readToolLog(path string) (*toolLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l := &toolLog{}
	open := map[[2]int]*toolRun{} // by id and step
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		n := make([]int64, len(fields))
		for i := 1; i < len(fields); i++ {
			if n[i], err = strconv.ParseInt(fields[i], 10, 64); err != nil {
				return nil, fmt.Errorf("tool log line %q: %v", sc.Text(), err)
			}
		}
		switch {
		case fields[0] == "pid" && len(n) == 3:
			l.pids = append(l.pids, int(n[1]))
		case fields[0] == "start" && len(n) == 5:
			r := &toolRun{id: int(n[1]), step: int(n[2]), start: time.Unix(0, n[3]), pid: int(n[4])}
			l.runs = append(l.runs, r)
			open[[2]int{r.id, r.step}] = r
		case fields[0] == "end" && len(n) == 5:
			if r := open[[2]int{int(n[1]), int(n[2])}]; r != nil {
				r.end, r.canceled = time.Unix(0, n[3]), n[4] == 1
			}
		default:
			return nil, fmt.Errorf("tool log line %q: unknown", sc.Text())
		}
	}
	return l, sc.Err()
}

// lastPID is the process that started last: the server in use.
func (l *toolLog) lastPID() int {
	if len(l.pids) == 0 {
		return 0
	}
	return l.pids[len(l.pids)-1]
}
