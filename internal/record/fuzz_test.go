package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runDirs are the run directories the fuzz targets take their seeds from.
var runDirs = []string{
	"../report/testdata",
	"../compare/testdata/base",
	"../compare/testdata/current",
	"../curve/testdata/sweep",
}

// addTrialSeeds seeds f with the first lines of each run directory's
// trials.jsonl (whole files are too long for the mutator to reach into),
// and with lines of every kind a reader must tell apart.
func addTrialSeeds(f *testing.F) {
	for _, dir := range runDirs {
		data, err := os.ReadFile(filepath.Join(dir, TrialsFile))
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		f.Add([]byte(strings.Join(lines[:min(3, len(lines))], "")))
	}
	for _, s := range []string{
		"",
		"\n\n  \r\n",
		`{"model":"m","case":"c"}` + "\n" + `{"model":"m","case":"c","score":5}` + "\n",
		`{"format":"2.0","model":"m","case":"c"}` + "\n" + `{"model":"m","case":"d"}`,
		`{"format":"1.x","model":"m","case":"c"}` + "\n" + `{"format":"1.9","model":"m","case":"c","variant":"v","repeat":2}`,
		`{"model":"","case":"c"}` + "\n" + `[1]` + "\n" + `null` + "\n" + `{"model":"m","case":"c","repeat":1.5}`,
		`{"MODEL":"m","Case":"c","model":"n"}` + "\n" + `{"model":"m","case":"c","transcript":{"rounds":[{}]}}`,
	} {
		f.Add([]byte(s))
	}
}

// scanned is one pass of a Reader over a file: its trials with their
// lines, its warnings and its error.
type scanned struct {
	trials   []*Trial
	lines    []int
	warnings []*SyntaxError
	err      error
}

func scanAll(data []byte) scanned {
	var s scanned
	r := NewReader(bytes.NewReader(data), "trials.jsonl")
	for r.Scan() {
		s.trials = append(s.trials, r.Trial())
		s.lines = append(s.lines, r.Line())
	}
	s.warnings, s.err = r.Warnings, r.Err()
	return s
}

// fileLines returns the lines of data as bufio.ScanLines reads them.
func fileLines(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// FuzzReader checks that every non-blank line of a trials file is read as
// a trial or warned about as a *SyntaxError at its line, in order, until a
// line of a newer format stops the reading with an error at that line; and
// that a trial read, written again by Writer, reads back the same.
func FuzzReader(f *testing.F) {
	addTrialSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := scanAll(data)
		lines := fileLines(data)
		at := map[int]string{}
		for i, l := range s.lines {
			at[l] = "trial"
			if s.trials[i].Model == "" || s.trials[i].CaseID == "" {
				t.Fatalf("line %d read as a trial without a model or case", l)
			}
		}
		for _, w := range s.warnings {
			if at[w.Line] != "" {
				t.Fatalf("line %d is both a %s and a warning (%v)", w.Line, at[w.Line], w)
			}
			at[w.Line] = "warning"
		}
		end := len(lines)
		if s.err != nil {
			var se *SyntaxError
			var fe *FormatError
			if !errors.As(s.err, &se) || !errors.As(s.err, &fe) || at[se.Line] != "" {
				t.Fatalf("reading stopped with %v, not a newer format on a line of its own", s.err)
			}
			at[se.Line], end = "stop", se.Line
		}
		for n := 1; n <= len(lines); n++ {
			blank := len(bytes.TrimSpace([]byte(lines[n-1]))) == 0
			if read := at[n] != ""; n <= end && read == blank || n > end && read {
				t.Fatalf("line %d (%q, of %d; reading ended at %d) is read as %q", n, lines[n-1], len(lines), end, at[n])
			}
		}
		for _, tr := range s.trials {
			var b bytes.Buffer
			if err := NewWriter(&b).Write(tr); err != nil {
				t.Fatal(err)
			}
			back := scanAll(b.Bytes())
			if len(back.trials) != 1 || !sameJSON(t, back.trials[0], tr) {
				t.Fatalf("a trial written again reads back as %d trials, warnings %v:\n%s", len(back.trials), back.warnings, b.Bytes())
			}
		}
	})
}

// sameJSON reports whether a and b encode to the same JSON.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// FuzzReadLast checks ReadLast against one plain pass of a Reader: each
// key it gives is given once, in the order of the lines, as the last line
// the plain pass read for that key; a key it leaves out was superseded by a
// later line it warns about; and it stops on a newer format whenever the
// plain pass does.
func FuzzReadLast(f *testing.F) {
	addTrialSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		plain := scanAll(data)
		var got []*Trial
		warnings, err := ReadLast(bytes.NewReader(data), "trials.jsonl", func(tr *Trial) { got = append(got, tr) })
		if plain.err != nil && err == nil {
			t.Fatalf("a plain read stops (%v), ReadLast does not", plain.err)
		}
		if err != nil {
			return
		}
		lastLine := map[TrialKey]int{}
		lastTrial := map[TrialKey]*Trial{}
		for i, tr := range plain.trials {
			lastLine[tr.Key()], lastTrial[tr.Key()] = plain.lines[i], tr
		}
		prev := 0
		for _, tr := range got {
			k := tr.Key()
			line, ok := lastLine[k]
			if !ok || line <= prev || !sameJSON(t, tr, lastTrial[k]) {
				t.Fatalf("ReadLast gave %+v (after line %d), not the last line of its key (line %d, %v)", k, prev, line, ok)
			}
			prev = line
			delete(lastLine, k)
		}
		for k, line := range lastLine {
			superseded := false
			for _, w := range warnings {
				superseded = superseded || w.Line > line
			}
			if !superseded {
				t.Fatalf("ReadLast left out %+v (line %d) with no later line warned about: %v", k, line, warnings)
			}
		}
	})
}

// FuzzReadRun checks that no run.json makes ReadRun panic, that its
// errors name the file, and that a run it reads, written again by
// WriteRun, reads back the same.
func FuzzReadRun(f *testing.F) {
	for _, dir := range runDirs {
		data, err := os.ReadFile(filepath.Join(dir, RunFile))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "{}", `{"format":"9.0"}`, `{"format":"1"}`, `{"start":"2026-01-01T00:00:00+05:30","options":{"a":[1,{"b":null}]}}`, `{"end":"0001-01-01T00:00:00Z","cases":{"":""}}`, "null", "[]"} {
		f.Add([]byte(s))
	}
	dir, again := f.TempDir(), f.TempDir()
	path := filepath.Join(dir, RunFile)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadRun(dir)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("error does not name %s: %v", path, err)
			}
			return
		}
		if err := WriteRun(again, r); err != nil {
			t.Fatal(err)
		}
		back, err := ReadRun(again)
		if err != nil {
			t.Fatalf("run.json written again does not read: %v", err)
		}
		if !sameJSON(t, back, r) {
			t.Fatalf("run.json written again reads back differently")
		}
	})
}
