package proxy_test

import (
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The soak: soakChats streaming chats, soakParallel at a time; one in four
// leaves early (see soakMode). The tool server is killed soakKillDelay
// after the first line of chat soakKillAt, one that leaves during its
// first tool call (soakInToolAbort after that line): the kill fails that
// call, the chat's next call restarts the server, and the chat leaves
// while the server starts, with other chats' calls waiting for it. The
// fake Ollama is restarted as chat soakRestartAt starts, and is down for
// soakOllamaDown: a real Ollama takes seconds, and an instant restart
// would only measure how soon the proxy's transport drops the keep-alive
// connections the old one closed (a chat sent on one fails).
const (
	soakChats      = 200
	soakParallel   = 16
	soakKillAt     = 67
	soakKillDelay  = 50 * time.Millisecond
	soakRestartAt  = 120
	soakOllamaDown = 50 * time.Millisecond
	// soakGoroutineSlack is how many goroutines more than before the soak
	// may be left once everything is shut down and has had soakSettle to
	// end. None is expected (no run here left one); two leave room for a
	// goroutine a package starts on first use and keeps, which is no leak,
	// and are far below the one per chat, or per abort, a leak leaves.
	soakGoroutineSlack = 2
	soakSettle         = 5 * time.Second
)

// soakMode is how chat id ends: every fourth chat leaves early, in turn at
// its first line, during its first tool call, and mid-answer.
func soakMode(id int) abortMode {
	if id%4 != 3 {
		return noAbort
	}
	return abortMode(1 + (id/4)%3)
}

// BenchmarkServeSoak runs the soak once per op (at the default -benchtime
// one soak takes longer than a second, so once): the real proxy on a
// loopback listener in front of a slow-streaming fake Ollama, with a real
// catalog of one stdio tool server, many concurrent chats of which some
// leave mid-stream, the tool server killed once and Ollama restarted once.
// It fails when a completed chat has other than one done line, a chat
// fails without a clear error or outside Ollama's restart, a tool call
// starts for a chat after it left, the tool server is not restarted, or
// goroutines or open files are left once everything is shut down; it
// reports the counts, the throughput and what was left.
func BenchmarkServeSoak(b *testing.B) {
	g0, f0, r0 := settled()
	var tot soakStats
	b.ResetTimer()
	for range b.N {
		tot.add(runSoak(b))
	}
	b.StopTimer()
	g1 := settleGoroutines(g0+soakGoroutineSlack, soakSettle)
	_, f1, r1 := settled()
	if g1 > g0+soakGoroutineSlack {
		buf := make([]byte, 1<<20)
		b.Errorf("%d goroutines before the soak, %d after; still running:\n%s", g0, g1, buf[:runtime.Stack(buf, true)])
	}
	if f0 > 0 && f1 > f0 {
		b.Errorf("%d open files before the soak, %d after", f0, f1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tot.completed)/n, "completed/op")
	b.ReportMetric(float64(tot.aborted)/n, "aborted/op")
	b.ReportMetric(float64(tot.failed)/n, "failed/op")
	b.ReportMetric(float64(tot.completed+tot.aborted+tot.failed)/tot.wall.Seconds(), "chats/s")
	b.ReportMetric(float64(tot.toolRuns)/n, "tool-calls/op")
	b.ReportMetric(float64(tot.toolCanceled)/n, "tool-calls-canceled/op")
	b.ReportMetric(float64(tot.inFlight)/n, "tool-calls-in-flight-at-abort/op")
	b.ReportMetric(float64(tot.restarts)/n, "tool-restarts/op")
	b.ReportMetric(float64(g1-g0), "goroutines-delta")
	b.ReportMetric(float64(f1-f0), "fds-delta")
	b.ReportMetric(float64(r1-r0)/1024, "rss-MB-delta")
}

// soakStats are one soak's counts.
type soakStats struct {
	completed, aborted, failed int
	wall                       time.Duration // from the first chat to the last
	toolRuns, toolCanceled     int           // as the tool servers logged them
	// inFlight are tool calls that started after their chat's client left
	// but that the proxy had made before its request ended (still in the
	// pipe to the server when the client left).
	inFlight int
	restarts int
}

func (s *soakStats) add(o soakStats) {
	s.completed += o.completed
	s.aborted += o.aborted
	s.failed += o.failed
	s.wall += o.wall
	s.toolRuns += o.toolRuns
	s.toolCanceled += o.toolCanceled
	s.inFlight += o.inFlight
	s.restarts += o.restarts
}

// soakEvents are the soak's disruptions, as the driver made them.
type soakEvents struct {
	killAt    time.Time
	killedPID int
	killErr   error
	downFrom  time.Time // the fake Ollama is closed
	downTo    time.Time // and accepts connections again
	upErr     error
}

// runSoak runs one soak, shuts everything down, and checks what happened.
func runSoak(b *testing.B) soakStats {
	if soakMode(soakKillAt) != abortInTool {
		b.Fatalf("chat %d, during which the tool server is killed, must leave during its tool call", soakKillAt)
	}
	rig := startSoakRig(b, soakScript(soakChats, soakMode))
	start := time.Now()
	results, ev := driveSoak(rig)
	wall := time.Since(start)
	rig.shutdown()
	if ev.killErr != nil || ev.upErr != nil {
		b.Fatalf("killing the tool server: %v; restarting the fake Ollama: %v", ev.killErr, ev.upErr)
	}
	log, err := readToolLog(rig.logPath)
	if err != nil {
		b.Fatal(err)
	}
	st := soakStats{wall: wall, toolRuns: len(log.runs), restarts: rig.cat.Restarts()["soak"]}
	for _, r := range log.runs {
		if r.canceled {
			st.toolCanceled++
		}
	}
	checkChats(b, results, ev, rig.ollama.addr, &st)
	st.inFlight = checkAborts(b, results, log, rig.tools)
	checkRestart(b, results, ev, log, rig.tools, st.restarts)
	return st
}

// driveSoak runs the chats through the proxy and makes the disruptions;
// it returns once every client has returned and the disruptions are over.
func driveSoak(rig *soakRig) ([]chatResult, soakEvents) {
	hc := &http.Client{Transport: rig.client}
	results := make([]chatResult, soakChats)
	d := &soakDisruptor{rig: rig, killed: make(chan struct{})}
	killNow := func() { d.scheduleKill(soakKillDelay) }
	ids := make(chan int)
	var workers sync.WaitGroup
	for range soakParallel {
		workers.Go(func() {
			for id := range ids {
				if id != soakKillAt {
					results[id] = soakChat(hc, rig.url, id, soakMode(id), nil)
					continue
				}
				results[id] = soakChat(hc, rig.url, id, soakMode(id), killNow)
				d.scheduleKill(0) // if the chat never had a first line
			}
		})
	}
	for id := range soakChats {
		if id == soakRestartAt {
			// No chat starts while Ollama is down; those in flight meet it.
			d.restartOllama()
		}
		ids <- id
	}
	close(ids)
	workers.Wait()
	<-d.killed
	return results, d.ev
}

// soakDisruptor kills the tool server and restarts the fake Ollama.
type soakDisruptor struct {
	rig  *soakRig
	ev   soakEvents
	once sync.Once
	// killed is closed once the kill is done and ev says how it went.
	killed chan struct{}
}

// scheduleKill kills the tool server after d, the first time it is called.
func (s *soakDisruptor) scheduleKill(d time.Duration) {
	s.once.Do(func() {
		time.AfterFunc(d, func() {
			defer close(s.killed)
			s.ev.killAt = time.Now()
			s.ev.killedPID, s.ev.killErr = s.rig.killTool()
		})
	})
}

// restartOllama restarts the fake Ollama, once the tool server is killed
// (so that the two disruptions are apart).
func (s *soakDisruptor) restartOllama() {
	<-s.killed
	s.ev.downFrom = time.Now()
	s.ev.upErr = s.rig.ollama.restart(soakOllamaDown)
	s.ev.downTo = time.Now()
}

// settleGoroutines waits up to d for the goroutine count to fall to want
// and returns the count.
func settleGoroutines(want int, d time.Duration) int {
	deadline := time.Now().Add(d)
	for runtime.GC(); runtime.NumGoroutine() > want && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}
