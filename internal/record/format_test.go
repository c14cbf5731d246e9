package record

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFormat(t *testing.T) {
	for _, v := range []string{"", "1", "1.0", "1.9"} {
		if err := CheckFormat(v); err != nil {
			t.Errorf("CheckFormat(%q): %v", v, err)
		}
	}
	var fe *FormatError
	if err := CheckFormat("2.0"); !errors.As(err, &fe) || fe.Version != "2.0" {
		t.Errorf("CheckFormat(2.0): %v", err)
	}
	for _, v := range []string{"x", "1.x", "0.1", "-1"} {
		if err := CheckFormat(v); err == nil || errors.As(err, &fe) {
			t.Errorf("CheckFormat(%q): %v, want a malformed-version error", v, err)
		}
	}
}

// TestTrialLinesCarryTheFormat: the writer marks each line; lines without a
// version (older files) and of a newer minor version read; a newer major
// version stops the reading with the file and line.
func TestTrialLinesCarryTheFormat(t *testing.T) {
	var buf bytes.Buffer
	if err := NewWriter(&buf).Write(sampleTrial()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"format":"`+Format+`","model":"qwen3:8b",`) {
		t.Fatalf("line %s", buf.String())
	}
	old := `{"model":"m","case":"a","repeat":0,"score":{"outcome":"pass"}}` + "\n"
	minor := `{"format":"1.4","model":"m","case":"b","repeat":0,"new_field":{"x":1},"score":{"outcome":"pass"}}` + "\n"
	major := `{"format":"2.0","model":"m","case":"c","repeat":0,"score":{"outcome":"pass"}}` + "\n"
	const want = "trials.jsonl:3: written by a newer toolgrade (format 2.0); this one reads format 1: upgrade toolgrade"

	var cases []string
	warnings, err := ReadLast(strings.NewReader(old+minor), "trials.jsonl", func(t *Trial) { cases = append(cases, t.CaseID) })
	if err != nil || len(warnings) != 0 || strings.Join(cases, ",") != "a,b" {
		t.Errorf("old and newer-minor lines: %v %v %v", cases, warnings, err)
	}
	cases = nil
	_, err = ReadLast(strings.NewReader(old+minor+major), "trials.jsonl", func(t *Trial) { cases = append(cases, t.CaseID) })
	var fe *FormatError
	if err == nil || err.Error() != want || !errors.As(err, &fe) || len(cases) != 0 {
		t.Errorf("a newer major line: %v (trials %v)", err, cases)
	}
	// The plain reader refuses it too, after the lines before it.
	r := NewReader(strings.NewReader(old+minor+major+old), "trials.jsonl")
	n := 0
	for r.Scan() {
		n++
	}
	if n != 2 || r.Err() == nil || r.Err().Error() != want || r.Scan() {
		t.Errorf("Reader: %d trials, %v", n, r.Err())
	}
	// A version that is not one is a bad line, skipped.
	warnings, err = ReadLast(strings.NewReader(`{"format":"x","model":"m","case":"a","repeat":0}`+"\n"+old), "trials.jsonl", func(*Trial) {})
	if err != nil || len(warnings) != 1 || warnings[0].Line != 1 {
		t.Errorf("malformed version: %v %v", warnings, err)
	}
}

func TestRunFileCarriesTheFormat(t *testing.T) {
	dir := t.TempDir()
	if err := WriteRun(dir, &Run{Status: "complete"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, RunFile))
	if !strings.HasPrefix(string(b), "{\n  \"format\": \""+Format+"\",\n") {
		t.Errorf("run.json:\n%s", b)
	}
	for _, tc := range []struct{ text, status, err string }{
		{`{"status":"complete"}`, "complete", ""},
		{`{"format":"1.2","status":"complete","future":[1]}`, "complete", ""},
		{`{"format":"2.0","status":"complete"}`, "", filepath.Join(dir, RunFile) + ": written by a newer toolgrade (format 2.0); this one reads format 1: upgrade toolgrade"},
	} {
		os.WriteFile(filepath.Join(dir, RunFile), []byte(tc.text), 0o644)
		r, err := ReadRun(dir)
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s: %v, want %s", tc.text, err, tc.err)
		case tc.err == "" && (err != nil || r.Status != tc.status):
			t.Errorf("%s: %v %+v", tc.text, err, r)
		}
	}
}
