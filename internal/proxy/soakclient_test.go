package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// abortMode is when a soak client leaves its chat.
type abortMode int

const (
	// noAbort reads the chat to its end.
	noAbort abortMode = iota
	// abortFirstLine leaves at the first line, some thinking: the tool has
	// not run yet.
	abortFirstLine
	// abortInTool leaves soakInToolAbort after the first line, while the
	// first (long) tool call runs.
	abortInTool
	// abortMidAnswer leaves at the first line of the answer, after every
	// tool call.
	abortMidAnswer
)

// soakInToolAbort is when an abortInTool client leaves after its first
// line: after the rest of the first round (five lines, 20 ms) and well
// inside the tool call of soakLongToolMS.
const soakInToolAbort = 80 * time.Millisecond

// chatResult is what one soak client saw of its chat.
type chatResult struct {
	id         int
	mode       abortMode
	start, end time.Time
	// abortAt is when the client canceled the request; zero: it did not.
	abortAt time.Time
	// doneLines counts the lines with done:true; afterDone the lines after
	// the first of them.
	doneLines, afterDone int
	content              string
	// status is the HTTP status; errMsg the error the proxy gave (an HTTP
	// error's body or an {"error": ...} line); err a failure of the
	// connection itself, which a client cannot make sense of.
	status int
	errMsg string
	err    error
}

func (r *chatResult) aborted() bool { return !r.abortAt.IsZero() }

func (r *chatResult) completed() bool {
	return !r.aborted() && r.err == nil && r.errMsg == "" && r.doneLines > 0
}

// soakChat runs chat id through the proxy at url, streaming, and leaves as
// mode says; firstLine, when set, is called at the first line.
func soakChat(hc *http.Client, url string, id int, mode abortMode, firstLine func()) (res chatResult) {
	res = chatResult{id: id, mode: mode, start: time.Now()}
	defer func() { res.end = time.Now() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, _ := json.Marshal(map[string]any{
		"model":    soakModel,
		"messages": []map[string]string{{"role": "user", "content": soakQuestion(id)}},
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	resp, err := hc.Do(req)
	if err != nil {
		res.err = err
		return res
	}
	defer resp.Body.Close()
	res.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		var e struct{ Error string }
		if json.Unmarshal(data, &e) == nil {
			res.errMsg = e.Error
		}
		return res
	}
	// The in-tool abort fires from a timer; fired hands its time over.
	var timer *time.Timer
	fired := make(chan time.Time, 1)
	defer func() {
		if timer != nil && !timer.Stop() {
			res.abortAt = <-fired
		}
	}()
	leave := func() {
		res.abortAt = time.Now()
		cancel()
	}
	readErr := readChat(resp.Body, &res, func(first bool, content string) bool {
		switch {
		case first && mode == abortFirstLine, content != "" && mode == abortMidAnswer:
			leave()
			return false
		case first && mode == abortInTool:
			timer = time.AfterFunc(soakInToolAbort, func() {
				fired <- time.Now()
				cancel()
			})
		}
		if first && firstLine != nil {
			firstLine()
		}
		return true
	})
	if readErr != nil && ctx.Err() == nil {
		res.err = readErr
	}
	return res
}

// readChat reads the NDJSON lines of a chat into res; line is told of each
// line that is not a done line (first: it is the first) and says whether
// to read on.
func readChat(body io.Reader, res *chatResult, line func(first bool, content string) bool) error {
	br := bufio.NewReader(body)
	first := true
	for {
		data, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(data)) > 0 {
			var l struct {
				Done    bool   `json:"done"`
				Error   string `json:"error"`
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			}
			if jerr := json.Unmarshal(data, &l); jerr != nil {
				return jerr
			}
			if res.doneLines > 0 {
				res.afterDone++
			}
			switch {
			case l.Error != "":
				res.errMsg = l.Error
			case l.Done:
				res.doneLines++
			default:
				res.content += l.Message.Content
				if !line(first, l.Message.Content) {
					return nil
				}
				first = false
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
