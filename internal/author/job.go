package author

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolgrade/toolgrade/internal/draft"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// LogSuffix is added to the draft's path to name its generation log.
const LogSuffix = ".gen.jsonl"

// Job is one `cases generate`: the Spec, and the files it writes.
type Job struct {
	Spec
	// Out is the draft's path; "" writes the draft to Stdout and keeps no
	// log. Servers is the draft's servers: value, as the suite should say
	// it.
	Out, Servers string
	// Command is how the draft's header names what made it.
	Command        string
	Stdout, Stderr io.Writer
}

// RequestError is a request to the author model that failed (not a reply
// that could not be read): an infrastructure error.
type RequestError struct{ Err error }

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// Run generates the draft and writes it and its log, neither replacing a
// file (a file that appeared since draft.InTheWay was checked is an error).
func (j *Job) Run(ctx context.Context) (*draft.Draft, error) {
	j.Log = io.Discard
	if j.Out != "" {
		logPath := j.Out + LogSuffix
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		j.Log, j.LogName = f, filepath.Base(logPath)
	}
	res, err := Generate(ctx, &j.Spec)
	for _, u := range res.Unread {
		fmt.Fprintf(j.Stderr, "toolgrade: warning: %s: skipped\n", u)
	}
	if err != nil {
		return nil, &RequestError{err}
	}
	if res.Dropped > 0 {
		where := "the generation log (" + j.LogName + ") says why"
		if j.Out == "" {
			where = "give -o FILE to keep a generation log that says why"
		}
		fmt.Fprintf(j.Stderr, "toolgrade: %d of %s dropped: their tool does not exist or their arguments do not validate against its schema; %s\n",
			res.Dropped, termtext.Count(res.Questions, "drafted question"), where)
	}
	if len(res.Cases) == 0 {
		return nil, fmt.Errorf("no case to write: %s asked, %s read, %d dropped, %d replies unread",
			termtext.Count(res.Requests, "request"), termtext.Count(res.Questions, "question"), res.Dropped, len(res.Unread))
	}
	d := draft.Compose(res.Cases, &draft.Options{Servers: j.Servers})
	d.Header = j.header(res, d)
	var b bytes.Buffer
	if err := d.WriteYAML(&b, nil); err != nil {
		return nil, err
	}
	if j.Out == "" {
		_, err = j.Stdout.Write(b.Bytes())
		return d, err
	}
	return d, draft.WriteNew(j.Out, b.Bytes())
}

// header is the draft's opening comment: who wrote it, how, where the log
// is, what a reviewer does, and how to run it.
func (j *Job) header(res *Result, d *draft.Draft) []string {
	log := "no generation log was kept (it goes beside -o FILE)"
	if j.LogName != "" {
		log = "each request and reply is in " + j.LogName
	}
	return []string{
		fmt.Sprintf("A draft suite: %s asked the author model %s%s (temperature 0, seed %d)", j.Command, j.Model.Name, digestNote(j.Model.Digest), j.Seed),
		fmt.Sprintf("for %d questions a tool, %d no_tool questions and questions telling %s apart: %s;",
			j.PerTool, j.Irrelevant, termtext.Count(len(res.Pairs), "confusable pair"), d.Summary()),
		log + ". Nothing was executed while drafting.",
		"Each case is marked review: true. Check that each question needs the tool it",
		"expects and no other, that its arguments are what the question means (loosen",
		"literal arguments into matchers where other wordings are as right: {contains: ...},",
		"{regex: ...}, {any: true}), add an answer: matcher where the answer matters, then",
		"delete review: true. Run it: toolgrade run " + orFile(j.Out) + " --models MODEL",
	}
}

func orFile(out string) string {
	if out == "" {
		return "FILE"
	}
	return out
}
