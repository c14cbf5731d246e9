package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"time"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// newFlags returns the flag set of command name (as typed after toolgrade:
// run, cases from) taking the arguments args; its -h writes the usage to
// stderr.
func newFlags(name, args string, stderr io.Writer) *flag.FlagSet {
	return newFlagsHelp(cli.Help{Command: name, Args: args}, stderr)
}

// newFlagsHelp is newFlags with more to say under -h than the command's
// summary and flags (h.More).
func newFlagsHelp(h cli.Help, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(h.Command, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if h.Summary == "" {
		h.Summary = commandSummary(h.Command)
	}
	fs.Usage = func() { h.Write(stderr, fs) }
	return fs
}

// parse parses flags that may come before, between or after the positional
// arguments (`toolgrade run suite.yaml --repeat 3`), and returns the
// positional ones. "--" ends the flags. A mistake is one line (cli.Parse).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := cli.Parse(fs, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, cli.AsUsage(err)
	}
	return pos, err
}

// serverFlags are the flags of every command that connects to MCP servers.
type serverFlags struct {
	file           string
	toolNames      string
	propertyOrder  string
	requireAll     bool
	connectTimeout time.Duration
	toolTimeout    time.Duration
	serverLogs     bool
	maxResultBytes int
}

func (s *serverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.file, "servers", "", "mcpServers `FILE` (the JSON Claude Desktop and ollama-mcp-bridge use)")
	fs.StringVar(&s.toolNames, "tool-names", "auto", "tool names the model sees, `auto|prefixed`: auto (server__tool only on collisions) or prefixed (always)")
	fs.StringVar(&s.propertyOrder, "property-order", toolschema.PropertyOrderServer, "order of each tool's parameters as the model sees them, `server|required-first`: server (the server's own) or required-first (required ones first, then by name)")
	fs.BoolVar(&s.requireAll, "require-all-servers", false, "fail when any server fails to connect, instead of skipping it")
	fs.DurationVar(&s.connectTimeout, "connect-timeout", 30*time.Second, "time for all servers to connect and list their tools")
	fs.DurationVar(&s.toolTimeout, "tool-timeout", 60*time.Second, "time one tool call may take before it fails as timed out")
	fs.BoolVar(&s.serverLogs, "server-logs", false, "pass the stdio servers' stderr through to stderr")
	fs.IntVar(&s.maxResultBytes, "max-result-bytes", mcpclient.DefaultMaxResultBytes, "bytes of a tool result the model is given; longer results are cut with a note saying how much (-1: no limit)")
}

func (s *serverFlags) options(stderr io.Writer) (*mcpclient.Options, error) {
	if s.toolNames != "auto" && s.toolNames != "prefixed" {
		return nil, cli.Usagef("--tool-names %q: must be auto or prefixed", s.toolNames)
	}
	if s.propertyOrder != toolschema.PropertyOrderServer && s.propertyOrder != toolschema.PropertyOrderRequiredFirst {
		return nil, cli.Usagef("--property-order %q: must be %s or %s", s.propertyOrder, toolschema.PropertyOrderServer, toolschema.PropertyOrderRequiredFirst)
	}
	if s.maxResultBytes == 0 || s.maxResultBytes < -1 {
		return nil, cli.Usagef("--max-result-bytes %d: must be positive, or -1 for no limit", s.maxResultBytes)
	}
	o := &mcpclient.Options{
		ConnectTimeout: s.connectTimeout,
		CallTimeout:    s.toolTimeout,
		Naming:         s.toolNames,
		PropertyOrder:  s.propertyOrder,
		RequireAll:     s.requireAll,
		MaxResultBytes: s.maxResultBytes,
	}
	if s.serverLogs {
		o.Stderr = stderr
	}
	return o, nil
}

// ollamaTimeouts are the flags that bound how long a command waits on Ollama.
type ollamaTimeouts struct{ runs.Timeouts }

func (o *ollamaTimeouts) register(fs *flag.FlagSet) {
	fs.DurationVar(&o.Startup, "ollama-timeout", 30*time.Second, "time each start-up request to Ollama (version, model list and details) may take; 0: no limit")
	fs.DurationVar(&o.Idle, "ollama-idle-timeout", 5*time.Minute, "time without a chunk from Ollama before a request fails as an infrastructure error (retried); 0: no limit")
}

// dialOllama finds Ollama (--ollama, else OLLAMA_HOST) and checks, before
// any work, that it answers.
func dialOllama(ctx context.Context, flagURL string, ot *ollamaTimeouts) (*runs.Conn, error) {
	return runs.DialOllama(ctx, flagURL, ot.Timeouts)
}

// connectServers connects every server of cfg under the server flags (see
// runs.ConnectServers).
func connectServers(ctx context.Context, cfg *serversfile.Config, sf *serverFlags, stderr io.Writer) (*mcpclient.Catalog, error) {
	opts, err := sf.options(stderr)
	if err != nil {
		return nil, err
	}
	return runs.ConnectServers(ctx, cfg, opts, stderr)
}

// modelFlags are the flags that shape each /api/chat request.
type modelFlags struct {
	ollama    string
	system    string
	maxRounds int
	think     string
	keepAlive string
	options   optionList
}

func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.ollama, "ollama", "", "Ollama `URL` (default: OLLAMA_HOST, else http://127.0.0.1:11434)")
	fs.StringVar(&m.system, "system", "", "system prompt `TEXT`")
	fs.IntVar(&m.maxRounds, "max-rounds", 5, "`N` requests that may offer tools before one last request without tools")
	fs.StringVar(&m.think, "think", "", "Ollama's think, `true|false|low|medium|high` (default: unset, the model's default)")
	fs.StringVar(&m.keepAlive, "keep-alive", "", "how long Ollama keeps the model loaded, a duration `D` such as 10m (default: Ollama's)")
	fs.Var(&m.options, "o", "model option `key=value` (temperature, seed, num_ctx, top_k, top_p, num_predict); repeatable")
}

// optionList collects -o key=value model options; values that read as JSON
// (numbers, booleans) keep that type.
type optionList map[string]any

func (o *optionList) String() string {
	b, _ := json.Marshal(map[string]any(*o))
	return string(b)
}

func (o *optionList) Set(kv string) error {
	k, v, err := runs.ParseOption(kv)
	if err != nil {
		return err
	}
	if *o == nil {
		*o = optionList{}
	}
	(*o)[k] = v
	return nil
}

// given is the flags of fs set on the command line, by name.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// ifGiven is v when flag name was given, else nil: the library's "not
// given".
func ifGiven[T any](given map[string]bool, name string, v T) *T {
	if !given[name] {
		return nil
	}
	return &v
}
