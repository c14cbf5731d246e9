package store

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

func trial(model, id string, repeat int, outcome string) *record.Trial {
	return &record.Trial{Model: model, CaseID: id, Repeat: repeat, Score: record.Score{Outcome: outcome}}
}

func create(t *testing.T, dir string) *Writer {
	t.Helper()
	w, err := Create(dir, &record.Run{Suite: record.RunSuite{Name: "s", Hash: "h1"}, Repeat: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func readRun(t *testing.T, dir string) *record.Run {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r.Run
}

func TestCreateWritesARunningRunAndLocksIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "run")
	w := create(t, dir)
	if run := readRun(t, dir); run.Status != StatusRunning || run.Suite.Hash != "h1" {
		t.Errorf("run.json %+v", run)
	}
	b, _ := os.ReadFile(filepath.Join(dir, record.RunFile))
	if !strings.Contains(string(b), `"format": "`+record.Format+`"`) {
		t.Errorf("run.json has no format:\n%s", b)
	}
	pid, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if strings.TrimSpace(string(pid)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock holds %q", pid)
	}
	// A second writer is refused while the first holds the directory.
	_, _, err := Resume(dir, ResumeOptions{})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != os.Getpid() {
		t.Errorf("Resume beside a writer: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	w2, _, err := Resume(dir, ResumeOptions{})
	if err != nil {
		t.Fatalf("Resume after Close: %v", err)
	}
	w2.Close()
}

func TestCreateRefusesADirectoryThatHoldsFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	var ne *NotEmptyError
	if _, err := Create(dir, &record.Run{}); !errors.As(err, &ne) || ne.HasRun || ne.Names[0] != "notes.txt" {
		t.Errorf("a stray file: %v", err)
	}
	run := filepath.Join(t.TempDir(), "run")
	create(t, run).Close()
	if _, err := Create(run, &record.Run{}); !errors.As(err, &ne) || !ne.HasRun {
		t.Errorf("a run: %v", err)
	}
	if err := CheckFresh(filepath.Join(t.TempDir(), "missing")); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
}

// TestResumeFindsWhatIsDone: the done set takes each key's last line, leaves
// out infra errors when they are to be rerun, and a torn last line is cut
// before anything is appended.
func TestResumeFindsWhatIsDone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w := create(t, dir)
	for _, tr := range []*record.Trial{
		trial("m", "a", 0, record.OutcomePass),
		trial("m", "b", 0, record.OutcomeInfraError),
		trial("m", "c", 0, record.OutcomeInfraError),
		trial("m", "c", 0, record.OutcomeWrongTool), // the rerun supersedes the infra error
	} {
		if err := w.Trials().Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, _ := os.OpenFile(filepath.Join(dir, record.TrialsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"model":"m","case":"d","rep`)
	f.Close()

	for _, tc := range []struct {
		rerun bool
		want  string
	}{{true, "a,c"}, {false, "a,b,c"}} {
		w, done, err := Resume(dir, ResumeOptions{RerunInfra: tc.rerun})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, id := range []string{"a", "b", "c", "d"} {
			if done[record.TrialKey{Model: "m", CaseID: id}] {
				got = append(got, id)
			}
		}
		if strings.Join(got, ",") != tc.want || len(done) != len(got) {
			t.Errorf("RerunInfra %v: done %v, want %s", tc.rerun, done, tc.want)
		}
		w.Close()
	}
	b, _ := os.ReadFile(filepath.Join(dir, record.TrialsFile))
	if strings.Contains(string(b), `"case":"d"`) || !strings.HasSuffix(string(b), "\n") {
		t.Errorf("the torn line is still there:\n%s", b)
	}
}

// TestResumeWritesNothingUntilUpdate: a resume refused after Resume (a
// changed suite) leaves run.json as the run ended.
func TestResumeWritesNothingUntilUpdate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w := create(t, dir)
	w.Update(func(r *record.Run) { r.Status, r.Error = StatusFailed, "disk full" })
	w.Close()
	w, _, err := Resume(dir, ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Run().Status != StatusRunning || w.Run().Error != "" {
		t.Errorf("the resumed run is %s (%s)", w.Run().Status, w.Run().Error)
	}
	if run := readRun(t, dir); run.Status != StatusFailed || run.Error != "disk full" {
		t.Errorf("Resume wrote run.json: %+v", run)
	}
	if err := w.AddModels(record.Model{Name: "m", Digest: "d1"}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if run := readRun(t, dir); run.Status != StatusRunning || len(run.Models) != 1 {
		t.Errorf("after Update: %+v", run)
	}
}

func TestResumeOfAFolderWithoutARun(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Resume(dir, ResumeOptions{})
	var nr *NotRunError
	if !errors.As(err, &nr) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Resume: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a lock file was left in a folder that holds no run: %v", err)
	}
}

// TestReadingRefusesNewerFormats: run.json or a trials line of a newer major
// format stops Open and Trials with the file (and line) and what to do.
func TestReadingRefusesNewerFormats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w := create(t, dir)
	w.Trials().Write(trial("m", "a", 0, record.OutcomePass))
	w.Close()
	trials := filepath.Join(dir, record.TrialsFile)
	f, _ := os.OpenFile(trials, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"format":"1.1","model":"m","case":"b","repeat":0,"later":true}` + "\n")
	f.WriteString(`{"format":"2.0","model":"m","case":"c","repeat":0}` + "\n")
	f.Close()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Trials(func(*record.Trial) {})
	want := trials + ":3: written by a newer toolgrade (format 2.0); this one reads format 1: upgrade toolgrade"
	if err == nil || err.Error() != want {
		t.Errorf("Trials: %v\nwant %s", err, want)
	}
	if _, _, err := Resume(dir, ResumeOptions{}); err == nil || err.Error() != want {
		t.Errorf("Resume: %v", err)
	}

	os.WriteFile(filepath.Join(dir, record.RunFile), []byte(`{"format":"2.1","status":"complete"}`), 0o644)
	want = filepath.Join(dir, record.RunFile) + ": written by a newer toolgrade (format 2.1); this one reads format 1: upgrade toolgrade"
	if _, err := Open(dir); err == nil || err.Error() != want {
		t.Errorf("Open: %v\nwant %s", err, want)
	}
}

// TestOpenReadsTheLastLineOfEachKey: the reader sees a rerun, not the
// infra error it replaced.
func TestOpenReadsTheLastLineOfEachKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w := create(t, dir)
	w.Trials().Write(trial("m", "a", 0, record.OutcomeInfraError))
	w.Trials().Write(trial("m", "b", 0, record.OutcomePass))
	w.Trials().Write(trial("m", "a", 0, record.OutcomePass))
	var got []string
	warnings, err := w.Reader().Trials(func(t *record.Trial) { got = append(got, t.CaseID+":"+t.Score.Outcome) })
	if err != nil || len(warnings) != 0 || strings.Join(got, ",") != "b:pass,a:pass" {
		t.Errorf("%v %v %v", got, warnings, err)
	}
}

func TestWriteSummaryIsAtomic(t *testing.T) {
	dir := t.TempDir()
	const written = "{\n  \"format\": \"a\",\n  \"models\": null\n}\n"
	if err := WriteSummary(dir, &summary.Summary{Format: "a"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, record.SummaryFile)); string(b) != written {
		t.Errorf("summary.json %q", b)
	}
	tmp := filepath.Join(dir, record.SummaryFile+".tmp")
	if err := os.Symlink("/dev/full", tmp); err != nil {
		t.Skip(err)
	}
	err := WriteSummary(dir, &summary.Summary{Format: "b"})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("WriteSummary on a full disk: %v", err)
	}
	if _, err := os.Lstat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("summary.json.tmp left behind: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, record.SummaryFile)); string(b) != written {
		t.Errorf("the old summary was damaged: %q", b)
	}
}

func TestCheckResume(t *testing.T) {
	old := &record.Run{Suite: record.RunSuite{Path: "/s.yaml", Hash: "aaaaaaaaaaaaaaaa"}, CatalogHash: "cccccccccccccccc",
		Models: []record.Model{{Name: "m", Digest: "dddddddddddddddd"}, {Name: "undigested"}}}
	for _, tc := range []struct {
		now  Current
		want string
	}{
		{Current{}, ""},
		{Current{SuiteHash: old.Suite.Hash, CatalogHash: old.CatalogHash, Models: old.Models}, ""},
		{Current{Models: []record.Model{{Name: "undigested", Digest: "x"}, {Name: "new", Digest: "y"}}}, ""},
		{Current{SuiteHash: "bbbbbbbbbbbbbbbbbb"}, "/s.yaml changed since the run in D began (hash aaaaaaaaaaaa, now bbbbbbbbbbbb): its trials would not be comparable"},
		{Current{CatalogHash: "eeeeeeeeeeeeeeeeee"}, "the servers' tools changed since the run in D began (catalog cccccccccccc, now eeeeeeeeeeee): its trials would not be comparable"},
		{Current{Models: []record.Model{{Name: "m", Digest: "ffffffffffffffff"}}}, "model m changed since the run began (digest dddddddddddd, now ffffffffffff): its trials would not be comparable"},
	} {
		err := CheckResume("D", old, tc.now)
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.want {
				t.Errorf("%+v: %s\nwant %s", tc.now, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%+v: nil, want %s", tc.now, tc.want)
		}
	}
}

func TestMergeModels(t *testing.T) {
	got := MergeModels([]record.Model{{Name: "a"}, {Name: "b", Digest: "1"}}, []record.Model{{Name: "b", Digest: "2"}, {Name: "c"}})
	if len(got) != 3 || got[0].Name != "a" || got[1].Digest != "2" || got[2].Name != "c" {
		t.Errorf("%+v", got)
	}
}

// TestOpenSaysWhatTheFolderIs: a mistyped directory and a folder without a
// run are told apart, by name, as the *NotRunError that Resume returns too.
func TestOpenSaysWhatTheFolderIs(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope")
	for _, tc := range []struct{ dir, want string }{
		{missing, missing + ": no such directory"},
		{dir, dir + " is not a run directory: it holds no run.json (`toolgrade run --out DIR` writes one)"},
	} {
		_, err := Open(tc.dir)
		var nr *NotRunError
		if !errors.As(err, &nr) || !errors.Is(err, os.ErrNotExist) || err.Error() != tc.want {
			t.Errorf("Open(%s): %v, want %q", tc.dir, err, tc.want)
		}
	}
}
