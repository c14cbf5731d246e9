package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func sampleTrial() *Trial {
	return &Trial{
		Model: "qwen3:8b", CaseID: "dog", Repeat: 2, Seed: 44, Tags: []string{"search"}, Attempts: 2,
		Start: time.Date(2026, 12, 1, 8, 0, 0, 123456789, time.UTC),
		Transcript: &Transcript{
			Model:     "qwen3:8b",
			Messages:  []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Can I bring my dog?"}},
			MaxRounds: 5,
			Answer:    "Yes, on the terrace.",
			Wall:      1234567 * time.Microsecond,
			Rounds: []Round{{
				Index: 1,
				Request: Request{Messages: 2, ToolsSent: true, Tools: 3,
					Options: map[string]any{"temperature": 0.0, "seed": 44.0}, Think: "false"},
				Response: Response{Thinking: "dogs?", Chunks: 2, DoneReason: "stop",
					ToolCalls: []ToolCall{{ID: "call_ab12cd34", Index: 0, Name: "search",
						Arguments: json.RawMessage(`{"top_k":5,"query":"dog"}`)}}},
				Metrics: Metrics{TotalDuration: 416681974, LoadDuration: 286131354, PromptEvalCount: 674,
					PromptEvalDuration: 93762147, EvalCount: 5, EvalDuration: 28500883},
				Wall: 420 * time.Millisecond,
				Executions: []Execution{{CallID: "call_ab12cd34", Name: "search", Server: "docs", Tool: "search",
					Arguments: json.RawMessage(`{"top_k":5,"query":"dog"}`), Result: "faq.txt: Dogs are welcome.",
					Duration: 3 * time.Millisecond}},
			}, {
				Index:   2,
				Request: Request{Messages: 4, Final: true},
				Response: Response{Content: "Yes, on the terrace.", Chunks: 3, DoneReason: "stop",
					Failure: nil},
			}},
		},
		Score: Score{Outcome: OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true,
			CallsToKnownTools: 1, ValidCalls: 1, Rounds: 2},
	}
}

func TestTrialRoundTripsLosslessly(t *testing.T) {
	in := sampleTrial()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Trial
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, &out); d != "" {
		t.Errorf("round trip changed the trial (-in +out):\n%s", d)
	}
	// Arguments keep their bytes and key order as received.
	if got := string(out.Transcript.Rounds[0].Response.ToolCalls[0].Arguments); got != `{"top_k":5,"query":"dog"}` {
		t.Errorf("arguments %s", got)
	}
	again, _ := json.Marshal(&out)
	if !bytes.Equal(b, again) {
		t.Errorf("second encoding differs:\n%s\n%s", b, again)
	}
}

func TestWriterReader(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range 3 {
		tr := sampleTrial()
		tr.Repeat = i
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	// A broken line and a half-written last line, as a killed run leaves.
	data := strings.Replace(buf.String(), "\n", "\n{not json}\n", 1) + `{"model":"x","case":"y","transcript":{"mod`
	r := NewReader(strings.NewReader(data), "trials.jsonl")
	var repeats []int
	for r.Scan() {
		repeats = append(repeats, r.Trial().Repeat)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if d := cmp.Diff([]int{0, 1, 2}, repeats); d != "" {
		t.Error(d)
	}
	if len(r.Warnings) != 2 || r.Warnings[0].Line != 2 || r.Warnings[1].Line != 5 {
		t.Fatalf("warnings %v", r.Warnings)
	}
	if !strings.HasPrefix(r.Warnings[0].Error(), "trials.jsonl:2: ") {
		t.Errorf("warning text %q", r.Warnings[0].Error())
	}
	if w.Count() != 3 {
		t.Errorf("count %d", w.Count())
	}
}

func TestTrimPartial(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "trials.jsonl")
	for _, tc := range []struct {
		in, want string
		dropped  int64
	}{
		{"a\nb\n", "a\nb\n", 0},
		{"a\nb\npart", "a\nb\n", 4},
		{"part", "", 4},
		{"", "", 0},
	} {
		if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		n, err := TrimPartial(p)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		if string(got) != tc.want || n != tc.dropped {
			t.Errorf("TrimPartial(%q) = %q, dropped %d; want %q, %d", tc.in, got, n, tc.want, tc.dropped)
		}
	}
	if n, err := TrimPartial(filepath.Join(dir, "missing")); n != 0 || err != nil {
		t.Errorf("missing file: %d %v", n, err)
	}
}

func TestReadLastKeepsEachKeysLastLine(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	line := func(c string, rep int, outcome string) {
		tr := sampleTrial()
		tr.CaseID, tr.Repeat, tr.Score.Outcome = c, rep, outcome
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	line("a", 0, OutcomeInfraError)
	line("b", 0, OutcomePass)
	buf.WriteString("{torn\n")
	line("a", 1, OutcomePass)
	line("a", 0, OutcomeWrongTool) // the rerun of the first line
	var got []string
	warns, err := ReadLast(bytes.NewReader(buf.Bytes()), "trials.jsonl", func(tr *Trial) {
		got = append(got, fmt.Sprintf("%s#%d %s", tr.CaseID, tr.Repeat, tr.Score.Outcome))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b#0 pass", "a#1 pass", "a#0 wrong_tool"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trials (-want +got):\n%s", diff)
	}
	if len(warns) != 1 || warns[0].Line != 3 || warns[0].File != "trials.jsonl" {
		t.Errorf("warnings %v", warns)
	}
}

func TestWriteRunLeavesNoTmpOnFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, RunFile+".tmp")); err != nil {
		t.Skip(err)
	}
	err := WriteRun(dir, &Run{Status: "failed"})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("WriteRun on a full disk: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, RunFile+".tmp")); !os.IsNotExist(err) {
		t.Errorf("run.json.tmp left behind: %v", err)
	}
}

// TestAddRestarts: a resumed run adds its session's restarts to those of
// the sessions before it.
func TestAddRestarts(t *testing.T) {
	r := &Run{Servers: []RunServer{{Name: "docs"}, {Name: "fs", Restarts: 1}}}
	r.AddRestarts(map[string]int{"fs": 2, "gone": 4})
	r.AddRestarts(nil)
	if r.Servers[0].Restarts != 0 || r.Servers[1].Restarts != 3 {
		t.Errorf("servers %+v, want docs 0 and fs 3", r.Servers)
	}
}

// TestAWriterCutsALineThatWouldNotFit: a trial whose texts would make a
// line past the limit is written with them cut, each ending with a note,
// and reads back; the trial given is not changed.
func TestAWriterCutsALineThatWouldNotFit(t *testing.T) {
	big := strings.Repeat("é", 3000) // 6,000 bytes
	tr := &Trial{Model: "m", CaseID: "c", Score: Score{Outcome: OutcomePass, Detail: big},
		Transcript: &Transcript{Answer: big, Messages: []Message{{Role: "user", Content: big}},
			Rounds: []Round{{Executions: []Execution{{Name: "huge", Result: big, Error: big, Arguments: []byte(`{"n":1}`)}}}}}}
	b, err := fitLine(tr, 8000)
	if err != nil || len(b) > 8000 {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
	var back Trial
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	res := back.Transcript.Rounds[0].Executions[0].Result
	if !strings.HasPrefix(res, "éé") || !strings.Contains(res, "… [toolgrade cut ") || !utf8.ValidString(res) || len(res) >= len(big) {
		t.Errorf("result %q", res)
	}
	if tr.Transcript.Answer != big || tr.Transcript.Rounds[0].Executions[0].Result != big {
		t.Error("the trial given was changed")
	}
	if _, err := fitLine(&Trial{Model: "m", CaseID: "c", Transcript: &Transcript{Rounds: []Round{{Executions: []Execution{{Arguments: []byte(`"` + big + `"`)}}}}}}, 2000); err == nil ||
		!strings.Contains(err.Error(), "arguments are too long to record") {
		t.Errorf("arguments past the limit: %v", err)
	}
}

// TestALineTooLongIsAWarning: a line past what readers hold is a warning
// naming its file and line, and the lines after it are read; the line
// splitter keeps lines of any other length whole.
func TestALineTooLongIsAWarning(t *testing.T) {
	good := func(c string) string { return `{"model":"m","case":"` + c + `","score":{"outcome":"pass"}}` + "\n" }
	long := `{"model":"m","case":"long","transcript":{"answer":"` + strings.Repeat("x", MaxLine) + `"}}` + "\n"
	var cases []string
	warnings, err := ReadLast(strings.NewReader(good("a")+long+good("b")), "trials.jsonl", func(t *Trial) { cases = append(cases, t.CaseID) })
	if err != nil || strings.Join(cases, ",") != "a,b" {
		t.Fatalf("cases %v, err %v", cases, err)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0].Error(), "trials.jsonl:2: a line longer than 64 MiB, more than toolgrade reads: skipped") {
		t.Errorf("warnings %v", warnings)
	}
	l := &lineReader{br: bufio.NewReaderSize(strings.NewReader("abc\n"+strings.Repeat("y", 40)+"\nlast"), 16), max: 20}
	var got []string
	for l.Scan() {
		got = append(got, fmt.Sprintf("%q:%v", l.Bytes(), l.long))
	}
	if want := `"abc\n":false,"":true,"last":false`; strings.Join(got, ",") != want || l.Err() != nil {
		t.Errorf("lines %s, want %s (err %v)", strings.Join(got, ","), want, l.Err())
	}
}
