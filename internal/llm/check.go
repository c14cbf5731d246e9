package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
)

// Model is what Ollama reports about one model.
type Model = record.Model

// Unreachable is the error for an Ollama that does not answer at all.
type Unreachable struct {
	URL    string
	Source string // "--ollama", "OLLAMA_HOST" or "the default"
	Err    error
}

func (e *Unreachable) Error() string {
	return fmt.Sprintf("cannot reach Ollama at %s (from %s): %v\n"+
		"  start it with `ollama serve`, or set OLLAMA_HOST (or --ollama) to where it listens", e.URL, e.Source, e.Err)
}

func (e *Unreachable) Unwrap() error { return e.Err }

// Ping checks that an Ollama server answers at base and returns its version.
func Ping(ctx context.Context, c *api.Client, base *url.URL, source string) (string, error) {
	if err := c.Heartbeat(ctx); err != nil {
		return "", &Unreachable{URL: redact.URL(base.String()), Source: source, Err: unwrapURL(err)}
	}
	v, err := c.Version(ctx)
	if err != nil {
		return "", &Unreachable{URL: redact.URL(base.String()), Source: source, Err: unwrapURL(err)}
	}
	return v, nil
}

// CheckModel confirms that model is pulled and can call tools, and returns
// what Ollama reports about it. The errors name the model and say what to do.
func CheckModel(ctx context.Context, c *api.Client, base *url.URL, model string) (*Model, error) {
	m, err := FindModel(ctx, c, base, model)
	if err != nil {
		return nil, err
	}
	if !m.Supports("tools") {
		return m, fmt.Errorf("model %q does not support tools (its capabilities: %s)\n"+
			"  choose a model whose `ollama show` lists tools, such as qwen3 or llama3.1", model, strings.Join(m.Capabilities, ", "))
	}
	return m, nil
}

// FindModel confirms that model is pulled, whatever it can do, and returns
// what Ollama reports about it: a judge model needs no tools.
func FindModel(ctx context.Context, c *api.Client, base *url.URL, model string) (*Model, error) {
	// OLLAMA_HOST may hold a password: messages show the URL masked.
	at := redact.URL(base.String())
	list, err := c.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing models on Ollama at %s: %w", at, unwrapURL(err))
	}
	var found *api.ListModelResponse
	for i, m := range list.Models {
		if SameModel(m.Name, model) || SameModel(m.Model, model) {
			found = &list.Models[i]
			break
		}
	}
	if found == nil {
		names := make([]string, len(list.Models))
		for i, m := range list.Models {
			names[i] = m.Name
		}
		e := &NotPulledError{Model: model, At: at}
		e.Near, e.OtherTags = nearModels(model, names)
		return nil, e
	}
	show, err := c.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return nil, fmt.Errorf("asking Ollama at %s about %q: %w", at, model, unwrapURL(err))
	}
	// Every model Ollama can run lists at least "completion"; an empty list
	// means a server that is not Ollama, or one too old to say.
	if len(show.Capabilities) == 0 {
		return nil, fmt.Errorf("Ollama at %s reported no capabilities for %q (is it a model Ollama can run?)", at, model)
	}
	m := &Model{
		Name:          model,
		Digest:        found.Digest,
		Family:        show.Details.Family,
		ParameterSize: show.Details.ParameterSize,
		Quantization:  show.Details.QuantizationLevel,
		NumCtx:        numCtx(show.Parameters),
	}
	for _, cap := range show.Capabilities {
		m.Capabilities = append(m.Capabilities, string(cap))
	}
	return m, nil
}

// SameModel reports whether two model names refer to the same model, treating
// a missing tag as ":latest" as Ollama does.
func SameModel(a, b string) bool {
	return withTag(a) == withTag(b)
}

func withTag(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}

// numCtx reads num_ctx from the parameters text of /api/show
// ("num_ctx                        8192").
func numCtx(params string) int {
	for _, line := range strings.Split(params, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// unwrapURL strips the *url.Error wrapper so messages read
// "connection refused" rather than repeating the URL.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// NotPulledError says a model is not on the Ollama asked, so callers (tgtest
// skips) can tell it from a model that exists and cannot call tools.
type NotPulledError struct {
	Model string
	At    string // the Ollama's URL, masked
	// Near are the pulled models Model likely means, nearest first: a
	// misspelling's, or with OtherTags the other tags of its name (qwen3
	// means qwen3:latest; qwen3:8b is pulled), when pulling Model is as
	// likely what is wanted.
	Near      []string
	OtherTags bool
}

// Error says what to do on the first line: the name meant, when one is
// near; the tags there are and how to pull the one named; or how to pull it.
func (e *NotPulledError) Error() string {
	msg := fmt.Sprintf("model %q is not pulled on Ollama at %s", e.Model, e.At)
	switch {
	case len(e.Near) == 0:
		return msg + "\n  run: ollama pull " + e.Model
	case e.OtherTags:
		one := "that one"
		if len(e.Near) > 1 {
			one = "one of those"
		}
		return fmt.Sprintf("%s; it has %s\n  name %s, or run: ollama pull %s", msg, orList(e.Near, "and", false), one, e.Model)
	}
	return fmt.Sprintf("%s; did you mean %s?", msg, orList(e.Near, "or", true))
}

// orList joins names as a sentence does: a, b or c; quoted when quote.
func orList(names []string, and string, quote bool) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = n
		if quote {
			q[i] = strconv.Quote(n)
		}
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + and + " " + q[len(q)-1]
}
