package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/proxy"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// soakRig is what `toolgrade serve` runs, wired as serve.go wires it, on
// loopback: the proxy in front of the restartable fake Ollama, with a
// catalog of one stdio server (this test binary, see serveSoakTool) behind
// a tool policy that allows every tool.
type soakRig struct {
	ollama  *soakOllama
	cat     *mcpclient.Catalog
	tools   *dispatchLog
	logPath string
	url     string
	// client is the soak clients' transport; upstream the proxy's to Ollama.
	client, upstream *http.Transport
	stop             context.CancelFunc
	served           chan error
}

func startSoakRig(b *testing.B, script *fakeollama.Script) *soakRig {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	r := &soakRig{logPath: filepath.Join(b.TempDir(), "tool.log"), client: http.DefaultTransport.(*http.Transport).Clone()}
	r.client.MaxIdleConnsPerHost = soakParallel
	if r.ollama, err = startSoakOllama(script); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.ollama.close)
	cfg := &serversfile.Config{Path: "soak.json", Dir: b.TempDir(), Servers: []serversfile.Server{
		{Name: "soak", Command: exe, Env: map[string]string{soakToolEnv: r.logPath}},
	}}
	if r.cat, err = mcpclient.Connect(context.Background(), cfg, &mcpclient.Options{RequireAll: true}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.cat.Close() })
	r.tools = &dispatchLog{next: &bridge.Policy{Tools: r.cat, Info: r.cat, Allow: []string{"*"}}, calls: map[[2]int]dispatch{}}

	base := &url.URL{Scheme: "http", Host: r.ollama.addr}
	r.upstream = llm.HTTPClient().Transport.(*http.Transport)
	p, err := proxy.New(proxy.Options{
		Upstream: base,
		Chat:     &llm.IdleChatter{Next: &llm.StreamChatter{Base: base, HTTP: &http.Client{Transport: r.upstream}}, Idle: time.Minute},
		Tools:    r.tools,
	})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	r.url = "http://" + ln.Addr().String() + "/api/chat"
	ctx, stop := context.WithCancel(context.Background())
	r.stop, r.served = stop, make(chan error, 1)
	go func() { r.served <- proxy.Serve(ctx, ln, p, proxy.ServeOptions{Grace: 5 * time.Second}) }()
	b.Cleanup(r.shutdown)
	return r
}

// shutdown drops the clients' idle connections, stops the proxy, the
// tool server and the fake, and drops the proxy's idle connections, so that
// nothing the soak started is left. It is safe to call more than once.
func (r *soakRig) shutdown() {
	// The clients go first: a connection their transport opened and never
	// sent a request on would hold the proxy's Shutdown for its 5 s grace
	// (net/http counts such a connection as active for its first 5 s).
	r.client.CloseIdleConnections()
	if r.stop != nil {
		r.stop()
		<-r.served
		r.stop = nil
	}
	r.cat.Close()
	r.ollama.close()
	r.upstream.CloseIdleConnections()
}

// killTool kills the tool server in use, as a crash would; the catalog
// restarts it on the next call.
func (r *soakRig) killTool() (pid int, err error) {
	l, err := readToolLog(r.logPath)
	if err != nil {
		return 0, err
	}
	if pid = l.lastPID(); pid == 0 {
		return 0, fmt.Errorf("no tool server has started")
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return pid, err
	}
	return pid, p.Kill()
}

// dispatchLog is the Toolbox in front of the policy that notes, for each
// call the loop hands it, when and whether its chat's request was already
// over, and what became of it, by the chat and step its arguments name.
type dispatchLog struct {
	next bridge.Toolbox

	mu    sync.Mutex
	calls map[[2]int]dispatch
}

// dispatch is one call as the proxy made it.
type dispatch struct {
	at time.Time
	// ctxDone: the request's context had ended when the loop made the call.
	ctxDone bool
	ex      record.Execution
}

func (d *dispatchLog) OllamaTools() api.Tools { return d.next.OllamaTools() }

func (d *dispatchLog) Call(ctx context.Context, name string, args json.RawMessage, callID string) record.Execution {
	var a recordArgs
	_ = json.Unmarshal(args, &a)
	at, done := time.Now(), ctx.Err() != nil
	ex := d.next.Call(ctx, name, args, callID)
	d.mu.Lock()
	d.calls[[2]int{a.ID, a.Step}] = dispatch{at: at, ctxDone: done, ex: ex}
	d.mu.Unlock()
	return ex
}

func (d *dispatchLog) get(id, step int) (dispatch, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.calls[[2]int{id, step}]
	return c, ok
}
