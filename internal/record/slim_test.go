package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadLastSlim reads what ReadLast reads, the last line of each key in
// file order with a torn line as a warning, and leaves out the bulk of each
// transcript while keeping its numbers.
func TestReadLastSlim(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	line := func(c string, rep int, outcome string) {
		tr := sampleTrial()
		tr.CaseID, tr.Repeat, tr.Score.Outcome = c, rep, outcome
		tr.Transcript.Rounds[0].Executions[0].IsError = true
		tr.Transcript.Rounds[0].Executions[0].ErrorKind = ExecToolError
		tr.Transcript.Rounds[0].Executions[0].Error = "Access denied"
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	line("a", 0, OutcomeInfraError)
	line("b", 0, OutcomePass)
	buf.WriteString("{torn\n")
	line("a", 1, OutcomePass)
	line("a", 0, OutcomeWrongTool)
	// A line whose key reads but whose score does not supersedes b#0.
	buf.WriteString(`{"model":"qwen3:8b","case":"b","repeat":0,"score":{"outcome":5}}` + "\n")
	whole := buf.Bytes()
	// The last line torn in the middle of a transcript string.
	buf.Write(whole[:bytes.IndexByte(whole, '\n')-200])
	var got []string
	var trials []*Trial
	warns, err := ReadLastSlim(bytes.NewReader(buf.Bytes()), "trials.jsonl", nil, func(tr *Trial) {
		got = append(got, fmt.Sprintf("%s#%d %s", tr.CaseID, tr.Repeat, tr.Score.Outcome))
		trials = append(trials, tr)
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a#1 pass", "a#0 wrong_tool"}, got); diff != "" {
		t.Errorf("trials (-want +got):\n%s", diff)
	}
	var lines []int
	for _, w := range warns {
		lines = append(lines, w.Line)
	}
	// The torn line 7 is found by the pass over keys, line 6 by the pass
	// over the lines kept, as ReadLast finds them.
	if diff := cmp.Diff([]int{3, 7, 6}, lines); diff != "" {
		t.Errorf("warning lines (-want +got):\n%s", diff)
	}

	want := sampleTrial()
	want.CaseID, want.Repeat, want.Score.Outcome = "a", 0, OutcomeWrongTool
	tr := want.Transcript
	tr.Messages = nil
	for i := range tr.Rounds {
		r := &tr.Rounds[i]
		r.Request = Request{}
		r.Response.Content, r.Response.Thinking, r.Response.ToolCalls = "", "", nil
		for j := range r.Executions {
			r.Executions[j].CallID, r.Executions[j].Arguments, r.Executions[j].Result = "", nil, ""
			r.Executions[j].IsError, r.Executions[j].ErrorKind, r.Executions[j].Error = true, ExecToolError, "Access denied"
		}
	}
	if diff := cmp.Diff(want, trials[1]); diff != "" {
		t.Errorf("slim trial (-want +got):\n%s", diff)
	}
}

// TestPruneLine leaves out exactly the members named, whatever the spacing
// and escapes, and calls a torn object torn.
func TestPruneLine(t *testing.T) {
	p := &prune{drop: []string{"x"}, into: map[string]*prune{"o": {drop: []string{"y"}}}}
	for _, c := range []struct{ in, want, err string }{
		{in: `{"x":1,"a":"b"}`, want: `{"a":"b"}`},
		{in: ` { "a" : [1, {"x":2}] , "x" : {"q":"\"}\\"} } `, want: `{"a":[1, {"x":2}]}`},
		{in: `{"o":[{"y":"]","z":true},{"z":null}],"x":"\\\\"}`, want: `{"o":[{"z":true},{"z":null}]}`},
		{in: `{"o":"not an object"}`, want: `{"o":"not an object"}`},
		{in: `{"x":{"a":[}]}}`, err: `invalid character '}': brackets do not match`},
		{in: `{"x":"abc`, err: "unexpected end of JSON input"},
		{in: `{"x":"a\"}`, err: "unexpected end of JSON input"},
		{in: `{"a":1`, err: "unexpected end of JSON input"},
		{in: `{"a":1} x`, err: `invalid character 'x' after top-level value`},
	} {
		got, err := pruneLine(nil, []byte(c.in), p)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: error %v, want %s", c.in, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s %v, want %s", c.in, got, err, c.want)
		}
	}
}

// FuzzReadLastSlim checks ReadLastSlim against ReadLast, and ReadLastKept
// against ReadLastSlim (the same trials, in one pass): every trial
// ReadLast gives, ReadLastSlim gives in the same order with the same key,
// score, judgements and times; it may read more lines (a malformed value
// it left out), never fewer; and it stops on a newer format whenever
// ReadLast does.
func FuzzReadLastSlim(f *testing.F) {
	addTrialSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var whole, slim, kept []*Trial
		_, err := ReadLast(bytes.NewReader(data), "trials.jsonl", func(tr *Trial) { whole = append(whole, tr) })
		_, serr := ReadLastSlim(bytes.NewReader(data), "trials.jsonl", nil, func(tr *Trial) { slim = append(slim, clone(t, tr)) })
		var once []*Trial
		_, oerr := ReadLastSlim(bytes.NewReader(data), "trials.jsonl", func() { once = nil }, func(tr *Trial) { once = append(once, clone(t, tr)) })
		if (oerr == nil) != (serr == nil) || serr == nil && !sameJSON(t, once, slim) {
			t.Fatalf("in one pass: %v\n%s\nin two: %v\n%s", oerr, asJSON(t, once), serr, asJSON(t, slim))
		}
		_, kerr := ReadLastKept(bytes.NewReader(data), "trials.jsonl", func(tr *Trial) *Trial { return clone(t, tr) }, func(tr *Trial) { kept = append(kept, tr) })
		if (err == nil) != (serr == nil) || (err == nil) != (kerr == nil) {
			t.Fatalf("ReadLast: %v; ReadLastSlim: %v; ReadLastKept: %v", err, serr, kerr)
		}
		if err == nil && !sameJSON(t, slim, kept) {
			t.Fatalf("ReadLastKept read\n%s\nReadLastSlim\n%s", asJSON(t, kept), asJSON(t, slim))
		}
		if err != nil {
			return
		}
		i := 0
		for _, tr := range whole {
			for i < len(slim) && slim[i].Key() != tr.Key() {
				i++
			}
			if i == len(slim) {
				t.Fatalf("ReadLastSlim left out %+v", tr.Key())
			}
			s := slim[i]
			if !sameJSON(t, s.Score, tr.Score) || !sameJSON(t, Judge(s), Judge(tr)) || !sameJSON(t, s.Judged, tr.Judged) ||
				(tr.Transcript != nil) != (s.Transcript != nil) || tr.Transcript != nil && s.Transcript.Wall != tr.Transcript.Wall {
				t.Fatalf("slim %+v differs from whole", tr.Key())
			}
		}
	})
}

// TestPrunedIsValidJSON checks that pruning a valid trial line leaves a
// valid JSON object.
func TestPrunedIsValidJSON(t *testing.T) {
	b, err := json.Marshal(trialLine{Format: Format, Trial: sampleTrial()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*prune{slimTrial, keyOnly} {
		got, err := pruneLine(nil, b, p)
		if err != nil || !json.Valid(got) || len(got) >= len(b) {
			t.Errorf("pruned %d of %d bytes, %v: %s", len(b)-len(got), len(b), err, got)
		}
	}
}

// TestDecodeSlimMatchesThePrunedDecode checks the fast path against the
// slow one line by line: on every line of the fixtures' trials files it
// must be taken and read the same, and on odd lines it must either read
// the same or give up.
func TestDecodeSlimMatchesThePrunedDecode(t *testing.T) {
	var lines [][]byte
	for _, dir := range runDirs {
		data, err := os.ReadFile(filepath.Join(dir, TrialsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var fast Trial
			if !decodeSlim(l, &trialLine{Trial: &fast}, &symbols{}) {
				t.Fatalf("%s: the fast path gave up on %.200s", dir, l)
			}
			lines = append(lines, l)
		}
	}
	for _, odd := range []string{
		`{"model":"m","case":"c","MODEL":"n"}`,
		`{"model":"m","case":"c","mod\u0065l":"n"}`,
		`{"model":"m\u00e9","case":"c\n"}`,
		`{"model":"m","case":"c","repeat":01}`,
		`{"model":"m","case":"c","repeat":1.0}`,
		`{"model":"m","case":"c","repeat":null}`,
		`{"model":"m","case":"c","transcript":null}`,
		`{"model":"m","case":"c","transcript":{"rounds":null}}`,
		`{"model":"m","case":"c","transcript":{"rounds":[{"metrics":null}]}}`,
		`{"model":"m","case":"c","transcript":{"wall_ns":5},"transcript":{"answer":"x"}}`,
		`{"model":"m","case":"c","score":{"outcome":"pass"},"score":{"rounds":2}}`,
		`{"model":"m","case":"c","transcript":{"rounds":[{"executions":[{"is_error":1}]}]}}`,
		`{"model":"m","case":"c","transcript":{"messages":[{"content":"\"}]"}],"answer":"ok"}}`,
		"{\"model\":\"m\",\"case\":\"c\",\"variant\":\"\xff\"}",
		`{"model":"m","case":"c"} {}`,
		`{"model":"m","case":"c","score":{"irrelevance_ok":null,"round_limit":true,"bfcl":{"valid":true}}}`,
		`{"model":"m","case":"c","score":{"Outcome":"pass"}}`,
		// A field's last string is shared only when the next is the same
		// plain string: not a raw control character after its escape.
		`{"model":"\u0041","case":"c"}`, `{"model":"A","case":"c"}`,
		`{"model":"\u0001","case":"c"}`, "{\"model\":\"\x01\",\"case\":\"c\"}",
	} {
		lines = append(lines, []byte(odd))
	}
	syms, keySyms := &symbols{}, &symbols{} // shared, as a reader shares them
	for _, l := range lines {
		var fast, slow Trial
		fastLine, slowLine := trialLine{Trial: &fast}, trialLine{Trial: &slow}
		pruned, perr := pruneLine(nil, l, slimTrial)
		if perr == nil {
			perr = json.Unmarshal(pruned, &slowLine)
		}
		var fastKey, slowKey trialKey
		if decodeKey(l, &fastKey, keySyms) {
			pruned, err := pruneLine(nil, l, keyOnly)
			if err == nil {
				err = json.Unmarshal(pruned, &slowKey)
			}
			if err != nil || fastKey != slowKey {
				t.Errorf("%.200s: the fast path read the key %+v, the slow one %+v (%v)", l, fastKey, slowKey, err)
			}
		}
		if !decodeSlim(l, &fastLine, syms) {
			continue
		}
		if perr != nil || !sameJSON(t, fastLine, slowLine) {
			t.Errorf("%.200s: the fast path read %+v, the slow one %+v (%v)", l, fast, slow, perr)
		}
	}
}

// TestReadLastKept gives, in one pass, what ReadLast gives: each key's last
// line in file order, a torn line a warning, and a line whose key reads
// but whose whole does not superseding the key's earlier lines.
func TestReadLastKept(t *testing.T) {
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
	line("a", 0, OutcomeWrongTool)
	buf.WriteString(`{"model":"qwen3:8b","case":"b","repeat":0,"score":{"outcome":5}}` + "\n")
	var kept []string
	got := []string{}
	warns, err := ReadLastKept(bytes.NewReader(buf.Bytes()), "trials.jsonl", func(tr *Trial) string {
		s := fmt.Sprintf("%s#%d %s %v", tr.CaseID, tr.Repeat, tr.Score.Outcome, tr.Transcript.Wall)
		kept = append(kept, s)
		return s
	}, func(s string) { got = append(got, s) })
	if err != nil {
		t.Fatal(err)
	}
	wall := sampleTrial().Transcript.Wall
	want := []string{fmt.Sprintf("a#1 pass %v", wall), fmt.Sprintf("a#0 wrong_tool %v", wall)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trials (-want +got):\n%s", diff)
	}
	if len(kept) != 4 {
		t.Errorf("keep saw %d lines, want the 4 that read", len(kept))
	}
	var lines []int
	for _, w := range warns {
		lines = append(lines, w.Line)
	}
	if diff := cmp.Diff([]int{3, 6}, lines); diff != "" {
		t.Errorf("warning lines (-want +got):\n%s", diff)
	}
}

// clone is a copy of tr that shares no memory with it: a slim read's
// reader may not keep the trial it is given (its memory is reused).
func clone(t *testing.T, tr *Trial) *Trial {
	t.Helper()
	var c Trial
	if err := json.Unmarshal([]byte(asJSON(t, tr)), &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestASlimReadKeepsFieldsItDoesNotKnow: a member the fast path does not
// list (one a newer minor format adds, say) is decoded all the same, at any
// level it walks, so no reader loses it.
func TestASlimReadKeepsFieldsItDoesNotKnow(t *testing.T) {
	l := `{"model":"m","case":"c","copy_of":0,"seed":7,"attempts":2,"num_ctx":4096,"host":"h","tags":["x"],"score":{"outcome":"pass","calls_repeated":3,"bfcl":{"valid":true}},` +
		`"transcript":{"messages":[{"role":"user","content":"hi"}],"not_executed":true,"max_rounds":4,"rounds":[{"index":1,"wall_ns":5,"response":{"chunks":3,"done_reason":"stop"},` +
		`"executions":[{"name":"t","hidden_only":true,"duration_ns":9,"call_id":"c1"}]}]}}`
	var fast, slow Trial
	if !decodeSlim([]byte(l), &trialLine{Trial: &fast}, &symbols{}) {
		t.Fatal("the fast path gave up")
	}
	pruned, err := pruneLine(nil, []byte(l), slimTrial)
	if err != nil || json.Unmarshal(pruned, &trialLine{Trial: &slow}) != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, fast, slow) {
		t.Errorf("fast %s\nslow %s", asJSON(t, fast), asJSON(t, slow))
	}
	// A copy stays a copy: cost readers leave it out.
	if !fast.IsCopy() {
		t.Error("the slim read lost copy_of")
	}
	// A field the walk does not name is gathered and decoded into the
	// object's target; nested objects keep their own.
	var got struct {
		A    int            `json:"a"`
		New  map[string]any `json:"new_field"`
		B    string         `json:"b"`
		Deep struct {
			C   int `json:"c"`
			New int `json:"new_too"`
		} `json:"deep"`
	}
	w := walk{b: []byte(`{"a":1,"new_field":{"x":[1,"}"]},"deep":{"c":2,"new_too":3},"b":"s"}`)}
	w.object(&got, func(key []byte) {
		switch string(key) {
		case "a":
			w.int(&got.A)
		case "deep":
			w.object(&got.Deep, func(key []byte) {
				if string(key) == "c" {
					w.int(&got.Deep.C)
					return
				}
				w.unknown(key)
			})
		default:
			w.unknown(key)
		}
	})
	if w.bad || got.A != 1 || got.B != "s" || fmt.Sprint(got.New) != "map[x:[1 }]]" || got.Deep.C != 2 || got.Deep.New != 3 {
		t.Errorf("bad %v, got %+v", w.bad, got)
	}
}

// TestReadLastSlimInOnePass: a file whose keys come once is read in one
// pass, reset never called; one with a key twice, or a bad line of a key
// already given, resets and reads as the two passes do.
func TestReadLastSlimInOnePass(t *testing.T) {
	lines := func(keys ...string) []byte {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		for _, k := range keys {
			if strings.HasPrefix(k, "bad:") {
				buf.WriteString(`{"model":"qwen3:8b","case":"` + k[4:] + `","repeat":0,"score":{"outcome":5}}` + "\n")
				continue
			}
			tr := sampleTrial()
			tr.CaseID, tr.Repeat = k, 0
			if err := w.Write(tr); err != nil {
				t.Fatal(err)
			}
		}
		return buf.Bytes()
	}
	for _, c := range []struct {
		name   string
		data   []byte
		resets int
		want   string
	}{
		{"each key once", lines("a", "b", "bad:c", "c"), 0, "a b c"},
		{"a key twice", lines("a", "b", "a"), 1, "b a"},
		{"a bad line of a key given", lines("a", "b", "bad:a"), 1, "b"},
	} {
		var got []string
		resets := 0
		_, err := ReadLastSlim(bytes.NewReader(c.data), "trials.jsonl", func() { resets++; got = nil }, func(tr *Trial) { got = append(got, tr.CaseID) })
		if err != nil || resets != c.resets || strings.Join(got, " ") != c.want {
			t.Errorf("%s: %v, %d resets, got %v; want %d, %s", c.name, err, resets, got, c.resets, c.want)
		}
	}
}

// BenchmarkDecodeSlim is the fast path on one line of a typical trial
// (two rounds, a tool result of 512 bytes): most of what a comparison of
// two large runs costs.
func BenchmarkDecodeSlim(b *testing.B) {
	tr := sampleTrial()
	tr.Transcript.Rounds[0].Executions[0].Result = strings.Repeat("The terrace welcomes dogs on a leash. ", 14)[:512]
	l, err := json.Marshal(trialLine{Format: Format, Trial: tr})
	if err != nil {
		b.Fatal(err)
	}
	var syms symbols
	b.SetBytes(int64(len(l)))
	b.ReportAllocs()
	for range b.N {
		var t Trial
		if !decodeSlim(l, &trialLine{Trial: &t}, &syms) {
			b.Fatal("the fast path gave up")
		}
	}
}

// FuzzDecodeSlim is the fast path against the reference line by line: on
// every line it reads, decodeSlim must read what pruning the line and
// decoding it with encoding/json reads, and its key pass what the key
// pass of the reference reads; where it is unsure it gives up, and the
// reference decides. Lines go through one symbols, as a reader's do, so
// that a string shared from the line before is checked too.
func FuzzDecodeSlim(f *testing.F) {
	addTrialSeeds(f)
	tr := sampleTrial()
	tr.Transcript.Rounds[0].Executions[0].Error = "Access \"denied\"\n"
	if b, err := json.Marshal(trialLine{Format: Format, Trial: tr}); err == nil {
		f.Add(append(append(b, '\n'), b...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		syms, keySyms := &symbols{}, &symbols{}
		for _, l := range bytes.Split(data, []byte("\n")) {
			var fast Trial
			fastLine := trialLine{Trial: &fast}
			if decodeSlim(l, &fastLine, syms) {
				var slow Trial
				slowLine := trialLine{Trial: &slow}
				pruned, err := pruneLine(nil, l, slimTrial)
				if err == nil {
					err = json.Unmarshal(pruned, &slowLine)
				}
				if err != nil || !sameJSON(t, fastLine, slowLine) {
					t.Fatalf("%q: the fast path read\n%s\nthe reference (%v)\n%s", l, asJSON(t, fastLine), err, asJSON(t, slowLine))
				}
			}
			var fastKey trialKey
			if decodeKey(l, &fastKey, keySyms) {
				var slowKey trialKey
				pruned, err := pruneLine(nil, l, keyOnly)
				if err == nil {
					err = json.Unmarshal(pruned, &slowKey)
				}
				if err != nil || fastKey != slowKey {
					t.Fatalf("%q: the fast key pass read %+v, the reference %+v (%v)", l, fastKey, slowKey, err)
				}
			}
		}
	})
}

// A read in one pass decodes lines into the memory of trials its reader
// is done with: over thousands of lines of differing shapes (rounds,
// executions, failures, scores come and go), what each line reads is
// what the two passes of ReadLast, which reuse nothing, read of it.
func TestReadLastSlimReusesNoStaleField(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range 3000 {
		tr := sampleTrial()
		tr.CaseID, tr.Repeat = fmt.Sprintf("c%d", i), 0
		tr.Transcript.Rounds = tr.Transcript.Rounds[:i%3]
		switch i % 4 {
		case 0:
			tr.Transcript.Failure = &Failure{Kind: FailureOllama, Message: "refused"}
			tr.Score = Score{Outcome: OutcomeInfraError}
		case 1:
			tr.Transcript.Answer, tr.Tags = "", nil
		case 2:
			tr.Transcript = nil
		}
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	var once, twice []*Trial
	resets := 0
	if _, err := ReadLastSlim(bytes.NewReader(buf.Bytes()), "trials.jsonl", func() { resets++ }, func(tr *Trial) { once = append(once, clone(t, tr)) }); err != nil || resets != 0 {
		t.Fatalf("%v, %d resets", err, resets)
	}
	if _, err := ReadLastSlim(bytes.NewReader(buf.Bytes()), "trials.jsonl", nil, func(tr *Trial) { twice = append(twice, tr) }); err != nil {
		t.Fatal(err)
	}
	if len(once) != 3000 || len(twice) != 3000 {
		t.Fatalf("%d and %d trials, want 3000", len(once), len(twice))
	}
	for i := range once {
		if !sameJSON(t, once[i], twice[i]) {
			t.Fatalf("line %d in one pass\n%s\nin two\n%s", i+1, asJSON(t, once[i]), asJSON(t, twice[i]))
		}
	}
}
