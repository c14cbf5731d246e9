package proxy_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/proxy"
)

// BenchmarkProxy100ConcurrentChats runs batches of 100 concurrent streaming
// chats (two rounds, one tool call each) through the proxy against the
// fake Ollama at 20 ms a round, and the same conversations through the
// bridge loop straight at the fake: the difference is what the proxy adds.
// It reports, and never asserts, the latencies and the goroutines, open
// files and RSS left after the batches compared with before.
// The sub-benchmark of one chat at a time shows what the proxy adds
// without the queueing of a hundred chats on a few cores.
func BenchmarkProxy100ConcurrentChats(b *testing.B) {
	for _, n := range []int{100, 1} {
		b.Run(fmt.Sprintf("concurrent=%d", n), func(b *testing.B) { benchChats(b, n) })
	}
}

func benchChats(b *testing.B, concurrent int) {
	_, upstream := rig.Ollama(b, nil, &fakeollama.Options{Latency: 20 * time.Millisecond, DontRecord: true})
	cat := rig.Catalog(b, nil, "docs")
	upTr := http.DefaultTransport.(*http.Transport).Clone()
	upTr.MaxIdleConnsPerHost = 2 * concurrent
	chat := &llm.IdleChatter{Next: &llm.StreamChatter{Base: upstream, HTTP: &http.Client{Transport: upTr}}, Idle: time.Minute}
	srv, err := proxy.New(proxy.Options{Upstream: upstream, Chat: chat, Tools: cat})
	if err != nil {
		b.Fatal(err)
	}
	ps := httptest.NewServer(srv)
	defer ps.Close()
	purl, _ := url.Parse(ps.URL)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * concurrent
	// The client is llm.StreamChatter too: api.Client's 8 MB buffer per request
	// would be the benchmark's own cost, not the proxy's.
	client := &llm.StreamChatter{Base: purl, HTTP: &http.Client{Transport: tr}}
	direct := &bridge.Loop{Chat: chat, Tools: cat}
	msgs := []api.Message{{Role: "user", Content: "Can I bring my dog?"}}

	stream := true
	viaProxy := func() error {
		var content string
		err := client.Chat(context.Background(), &api.ChatRequest{Model: "scripted-good", Messages: msgs, Stream: &stream}, func(r api.ChatResponse) error {
			content += r.Message.Content
			return nil
		})
		if err == nil && content != "Yes. Dogs are welcome on the terrace." {
			err = fmt.Errorf("answer %q", content)
		}
		return err
	}
	viaLoop := func() error {
		t, err := direct.Run(context.Background(), bridge.Request{Model: "scripted-good", Messages: msgs})
		if err == nil && t.Answer != "Yes. Dogs are welcome on the terrace." {
			err = fmt.Errorf("answer %q", t.Answer)
		}
		return err
	}
	batch := func(fn func() error) ([]time.Duration, error) {
		// Each of the concurrent chatters runs chats one after another, so
		// that every op has enough chats for a p99.
		each := max(1, 20/concurrent)
		lat := make([]time.Duration, concurrent*each)
		errs := make([]error, concurrent*each)
		var wg sync.WaitGroup
		for g := range concurrent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range each {
					i := g*each + j
					start := time.Now()
					errs[i] = fn()
					lat[i] = time.Since(start)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		return lat, nil
	}
	idle := func() {
		tr.CloseIdleConnections()
		upTr.CloseIdleConnections()
	}
	// Warm up, so the baseline holds the connections a running proxy keeps.
	if _, err := batch(viaProxy); err != nil {
		b.Fatal(err)
	}
	if _, err := batch(viaLoop); err != nil {
		b.Fatal(err)
	}
	idle()
	g0, f0, r0 := settled()

	var proxied, looped []time.Duration
	completed := 0
	b.ResetTimer()
	for range b.N {
		lat, err := batch(viaProxy)
		if err != nil {
			b.Fatal(err)
		}
		completed += len(lat)
		proxied = append(proxied, lat...)
		lat, err = batch(viaLoop)
		if err != nil {
			b.Fatal(err)
		}
		looped = append(looped, lat...)
	}
	b.StopTimer()
	idle()
	g1, f1, r1 := settled()
	p50p, p99p := quantiles(proxied)
	p50d, p99d := quantiles(looped)
	b.ReportMetric(float64(completed)/float64(b.N), "chats-completed/op")
	b.ReportMetric(float64(concurrent*max(1, 20/concurrent)), "chats-started/op")
	b.ReportMetric(ms(p50p), "proxy-p50-ms")
	b.ReportMetric(ms(p99p), "proxy-p99-ms")
	b.ReportMetric(ms(p50d), "direct-p50-ms")
	b.ReportMetric(ms(p99d), "direct-p99-ms")
	b.ReportMetric(ms(p50p-p50d), "added-p50-ms")
	b.ReportMetric(ms(p99p-p99d), "added-p99-ms")
	b.ReportMetric(float64(g1-g0), "goroutines-after-minus-before")
	b.ReportMetric(float64(f1-f0), "fds-after-minus-before")
	b.ReportMetric(float64(r1-r0)/1024, "rss-MiB-after-minus-before")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func quantiles(d []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*99/100]
}

// settled waits for the goroutines of finished requests to end, frees what
// the GC can, and returns the goroutine count, open files and RSS (KiB).
func settled() (goroutines, fds, rssKiB int) {
	prev := -1
	for range 100 {
		n := runtime.NumGoroutine()
		if n == prev {
			break
		}
		prev = n
		time.Sleep(20 * time.Millisecond)
	}
	debug.FreeOSMemory()
	ents, _ := os.ReadDir("/proc/self/fd")
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range bytes.Split(status, []byte("\n")) {
		if f := bytes.Fields(l); len(f) >= 2 && string(f[0]) == "VmRSS:" {
			rssKiB, _ = strconv.Atoi(string(f[1]))
		}
	}
	return runtime.NumGoroutine(), len(ents), rssKiB
}

// BenchmarkServeStopsWithAFreshConnection: how long Serve takes to stop
// while a client holds a connection on which it has sent nothing (a
// browser's preconnect): net/http alone would wait 5 s for it.
func BenchmarkServeStopsWithAFreshConnection(b *testing.B) {
	for b.Loop() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- proxy.Serve(ctx, ln, http.NotFoundHandler(), proxy.ServeOptions{Grace: time.Minute})
		}()
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		// One request on another connection proves the fresh one accepted.
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		http.DefaultClient.CloseIdleConnections()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		conn.Close()
	}
}
