package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// checkChats counts the chats' outcomes into st and checks each: a
// completed chat has the model's whole answer and exactly one done line,
// last; a failed one got a clear error from the proxy (an HTTP error or an
// {"error": ...} line, never a cut connection, that names Ollama or its
// address ollama) and was in flight while Ollama was down; chats started
// after Ollama was back complete.
func checkChats(b *testing.B, results []chatResult, ev soakEvents, ollama string, st *soakStats) {
	b.Helper()
	later := 0
	for _, r := range results {
		if r.doneLines > 1 {
			b.Errorf("chat %d: %d done lines", r.id, r.doneLines)
		}
		switch {
		case r.aborted():
			st.aborted++
		case r.completed():
			st.completed++
			if r.afterDone > 0 || r.content != soakAnswer(r.id) {
				b.Errorf("chat %d: %d lines after the done line, answer %q", r.id, r.afterDone, r.content)
			}
			if r.start.After(ev.downTo) {
				later++
			}
		default:
			st.failed++
			if r.err != nil || !strings.Contains(r.errMsg, "Ollama") && !strings.Contains(r.errMsg, ollama) {
				b.Errorf("chat %d failed without a clear error (HTTP %d, %q): %v", r.id, r.status, r.errMsg, r.err)
			}
			if !r.start.Before(ev.downTo) || !r.end.After(ev.downFrom) {
				b.Errorf("chat %d failed (%q) from %s to %s, but Ollama was down only from %s to %s",
					r.id, r.errMsg, stamp(r.start), stamp(r.end), stamp(ev.downFrom), stamp(ev.downTo))
			}
		}
	}
	if later == 0 {
		b.Errorf("no chat completed after Ollama restarted at %s", stamp(ev.downTo))
	}
}

// checkAborts checks that no tool call started for a chat after its
// client left, unless the proxy had made the call before the request
// ended: such a call was in the pipe to the server already, and is counted
// (the return value), not failed. A call the proxy made after its request
// ended, or one it never made, fails the soak.
func checkAborts(b *testing.B, results []chatResult, log *toolLog, tools *dispatchLog) (inFlight int) {
	b.Helper()
	for _, run := range log.runs {
		r := results[run.id]
		if !r.aborted() || !run.start.After(r.abortAt) {
			continue
		}
		d, ok := tools.get(run.id, run.step)
		switch {
		case !ok:
			b.Errorf("chat %d: tool call %d started %v after the client left, and the proxy never made it",
				run.id, run.step, run.start.Sub(r.abortAt))
		case d.ctxDone:
			b.Errorf("chat %d: tool call %d started %v after the client left; the proxy made it after the request ended",
				run.id, run.step, run.start.Sub(r.abortAt))
		default:
			inFlight++
		}
	}
	return inFlight
}

// checkRestart checks that the killed tool server was restarted, that no
// call of a chat that did not leave failed with another chat's
// cancellation (a restart that chat started and abandoned), and that, once
// a restarted server had run a call, every call of such a chat succeeded.
func checkRestart(b *testing.B, results []chatResult, ev soakEvents, log *toolLog, tools *dispatchLog, restarts int) {
	b.Helper()
	if restarts < 1 || len(log.pids) < 2 {
		b.Errorf("the tool server (pid %d) was killed: %d restarts, %d processes started", ev.killedPID, restarts, len(log.pids))
	}
	var up time.Time
	for _, run := range log.runs {
		if run.pid != ev.killedPID && run.start.After(ev.killAt) && (up.IsZero() || run.start.Before(up)) {
			up = run.start
		}
	}
	if up.IsZero() {
		b.Errorf("no tool call ran after the tool server (pid %d) was killed", ev.killedPID)
		return
	}
	tools.mu.Lock()
	defer tools.mu.Unlock()
	for key, d := range tools.calls {
		if !d.ex.IsError || results[key[0]].aborted() {
			continue
		}
		if strings.Contains(d.ex.Error, context.Canceled.Error()) {
			b.Errorf("chat %d, which did not leave: tool call %d failed with a cancellation: %s", key[0], key[1], d.ex.Error)
		}
		if d.at.After(up) {
			b.Errorf("chat %d: tool call %d failed after the restarted server ran its first call: %s: %s",
				key[0], key[1], d.ex.ErrorKind, d.ex.Error)
		}
	}
}

// stamp is a time as the soak's messages show it.
func stamp(t time.Time) string { return t.Format("15:04:05.000") }
