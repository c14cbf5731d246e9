package view

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("GET %s: %s %s", url, res.Status, b)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestScan: every run is listed, newest first, with its rates and commit;
// a folder that is no run, a broken run.json and a missing folder are
// listed with their errors.
func TestScan(t *testing.T) {
	root, _ := testRuns(t)
	// The index never reads the trials: weather-1's cannot be read at all.
	trials := filepath.Join(root, "weather-1", record.TrialsFile)
	if err := os.Remove(trials); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(trials, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := root + "/nowhere"
	s := server(t, root, missing)
	var got []Entry
	getJSON(t, s.URL+"/api/runs", &got)
	byDir := map[string]Entry{}
	for _, e := range got {
		byDir[e.ID] = e
	}
	if len(got) != 9 {
		t.Fatalf("got %d entries, want 9 (6 runs, 2 broken folders, 1 missing folder): %+v", len(got), got)
	}
	if got[0].ID != "0/live" || got[0].Status != "running" || got[0].Total != 6 || got[0].Rows != nil {
		t.Errorf("first entry %+v: want the live run, newest, running, 6 trials planned, no summary yet", got[0])
	}
	w := byDir["0/weather-2"]
	if w.Suite != "weather" || w.Commit != "c0ffee120000" || len(w.Rows) != 2 || w.Rows[0].Pass.K != 8 || w.Rows[0].Pass.N != 10 {
		t.Errorf("weather-2: %+v", w)
	}
	if e := byDir["0/weather-1"]; e.Error != "" || len(e.Rows) != 2 {
		t.Errorf("weather-1, its trials unreadable: %+v, want its summary's rows and no error", e)
	}
	for id, want := range map[string]string{"0/not-a-run": "no run.json", "0/broken": "run.json", "1/.": "no such file"} {
		if e := byDir[id]; !strings.Contains(e.Error, want) {
			t.Errorf("%s: error %q, want it to say %q", id, e.Error, want)
		}
	}
}

// TestProgress: the progress of a run being written grows as it writes.
func TestProgress(t *testing.T) {
	root, w := testRuns(t)
	s := server(t, root)
	var p Progress
	getJSON(t, s.URL+"/api/progress?id=0/live", &p)
	if p != (Progress{Status: "running", Done: 3, Total: 6}) {
		t.Fatalf("progress %+v, want running 3/6", p)
	}
	addTrial(t, w, "c3")
	getJSON(t, s.URL+"/api/progress?id=0/live", &p)
	if p.Done != 4 {
		t.Fatalf("after a trial: %+v, want 4 done", p)
	}
}

// TestGuard: a foreign Origin or Host gets 403 on every path; an ID never
// reaches outside the folders given.
func TestGuard(t *testing.T) {
	root, _ := testRuns(t)
	s := server(t, root)
	for _, c := range []struct{ path, origin, host string }{
		{"/", "https://evil.example", ""},
		{"/api/runs", "http://127.0.0.1:1", ""},
		{"/api/runs", "", "evil.example"},
		{"/run?id=0/weather-0", "", "attacker.test:80"},
	} {
		req, _ := http.NewRequest("GET", s.URL+c.path, nil)
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.host != "" {
			req.Host = c.host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s with Origin %q Host %q: %s, want 403", c.path, c.origin, c.host, res.Status)
		}
		// The refusal names the viewer, and no flag the viewer lacks.
		if !strings.Contains(string(b), "the viewer") || strings.Contains(string(b), "proxy") || strings.Contains(string(b), "--cors-origin") {
			t.Errorf("%s with Origin %q Host %q says %q", c.path, c.origin, c.host, b)
		}
	}
	for _, id := range []string{"0/..", "0/../x", "1/x", "-1/x", "0/.git", "x"} {
		res, err := http.Get(s.URL + "/run?id=" + id)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("/run?id=%s: %s, want 404", id, res.Status)
		}
	}
	res, err := http.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("index: %s, CSP %q", res.Status, res.Header.Get("Content-Security-Policy"))
	}
}
