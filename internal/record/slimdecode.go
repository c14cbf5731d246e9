package record

import (
	"encoding/json"
	"math"
	"time"
)

// decodeSlim decodes a trial line as slimTrial prunes it and encoding/json
// then reads it, without reflection for the members most lines have: it is
// the fast path of a slim read. It gives up, and reports false, on whatever
// it does not read exactly as encoding/json would (a key in other case or
// with escapes, a null where an object is walked, a member twice, a number
// in a form it does not parse, a malformed line); the caller then takes
// the slow path, whose result and error are the reference.
//
// line.Trial may hold an earlier line's trial, whose memory the reader
// reuses (Reader.alloc): it is zeroed first, and its transcript and
// rounds are decoded into again.
func decodeSlim(b []byte, line *trialLine, syms *symbols) bool {
	t := line.Trial
	w := walk{b: b, syms: syms, spare: t.Transcript}
	*t = Trial{}
	seen := false
	w.object(line, func(key []byte) {
		switch string(key) {
		case "format":
			w.sym(&line.Format, symFormat)
		case "model":
			w.sym(&t.Model, symModel)
		case "case":
			w.str(&t.CaseID)
		case "variant":
			w.sym(&t.Variant, symVariant)
		case "host":
			w.sym(&t.Host, symHost)
		case "repeat":
			w.int(&t.Repeat)
		case "attempts":
			w.int(&t.Attempts)
		case "num_ctx":
			w.int(&t.NumCtx)
		case "seed":
			w.int64(&t.Seed)
		case "start":
			w.time(&t.Start)
		case "tags":
			w.json(&t.Tags)
		case "score":
			w.score(&t.Score)
		case "judged":
			w.json(&t.Judged)
		case "transcript":
			w.bad = w.bad || seen
			seen = true
			t.Transcript = w.transcript()
		default:
			w.unknown(key)
		}
	})
	w.i = skipSpace(b, w.i)
	return !w.bad && w.i == len(b)
}

// score reads a score; BFCL's verdict, rarely there, through encoding/json.
func (w *walk) score(s *Score) {
	w.object(s, func(key []byte) {
		switch string(key) {
		case "outcome":
			w.sym(&s.Outcome, symOutcome)
		case "detail":
			w.str(&s.Detail)
		case "call_expected":
			w.bool(&s.CallExpected)
		case "tool_correct":
			w.bool(&s.ToolCorrect)
		case "args_correct":
			w.bool(&s.ArgsCorrect)
		case "calls_known":
			w.int(&s.CallsToKnownTools)
		case "calls_valid":
			w.int(&s.ValidCalls)
		case "calls_valid_visible":
			w.int(&s.ValidVisibleCalls)
		case "calls_valid_coerced":
			w.int(&s.ValidCoercedCalls)
		case "calls_repeated":
			w.int(&s.RepeatedCalls)
		case "calls_failed":
			w.int(&s.FailedCalls)
		case "rounds":
			w.int(&s.Rounds)
		case "truncated":
			w.bool(&s.Truncated)
		case "irrelevance_ok":
			w.optBool(&s.IrrelevanceOK)
		case "round_limit":
			w.optBool(&s.RoundLimit)
		case "state":
			w.optBool(&s.State)
		case "turn":
			w.int(&s.Turn)
		case "bfcl":
			w.json(&s.BFCL)
		default:
			w.unknown(key)
		}
	})
}

// key reads only a line's key and format, skipping the rest: the first
// pass of ReadLast. Like decodeSlim it gives up where encoding/json might
// read otherwise.
func decodeKey(b []byte, k *trialKey, syms *symbols) bool {
	w := walk{b: b, syms: syms}
	w.object(nil, func(key []byte) {
		switch string(key) {
		case "format":
			w.sym(&k.Format, symFormat)
		case "model":
			w.sym(&k.Model, symModel)
		case "case":
			w.str(&k.CaseID)
		case "variant":
			w.sym(&k.Variant, symVariant)
		case "repeat":
			w.int(&k.Repeat)
		default:
			w.kept(key, keyOnly)
		}
	})
	w.i = skipSpace(b, w.i)
	return !w.bad && w.i == len(b)
}

// kept is unknown for a walk with no target: a member the reference keeps
// (one that keyOnly does not drop) is checked whole, as encoding/json
// would check it, though it is not read.
func (w *walk) kept(key []byte, p *prune) {
	if p.drops(key) {
		w.unknown(key)
		return
	}
	start := w.i
	w.unknown(key)
	if !w.bad && !json.Valid(w.b[start:w.i]) {
		w.bad = true
	}
}

// transcript reads a transcript without its bulk.
func (w *walk) transcript() *Transcript {
	if w.null() {
		return nil
	}
	tr := w.spare
	if tr == nil {
		tr = &Transcript{}
	} else {
		w.spareRounds = tr.Rounds[:0]
		*tr = Transcript{}
	}
	w.spare = nil
	seen := false
	w.object(tr, func(key []byte) {
		switch string(key) {
		case "messages":
			w.skip()
		case "model":
			w.sym(&tr.Model, symModel)
		case "answer":
			w.str(&tr.Answer)
		case "round_limit_hit":
			w.bool(&tr.RoundLimitHit)
		case "not_executed":
			w.bool(&tr.NotExecuted)
		case "max_rounds":
			w.int(&tr.MaxRounds)
		case "wall_ns":
			w.duration(&tr.Wall)
		case "failure":
			w.json(&tr.Failure)
		case "rounds":
			w.bad = w.bad || seen
			seen = true
			tr.Rounds = w.rounds()
		default:
			w.unknown(key)
		}
	})
	return tr
}

// round reads one round without its request and the response's text and
// calls.
func (w *walk) round(r *Round) {
	seen := false
	w.object(r, func(key []byte) {
		switch string(key) {
		case "request":
			w.skip()
		case "index":
			w.int(&r.Index)
		case "wall_ns":
			w.duration(&r.Wall)
		case "metrics":
			w.metrics(&r.Metrics)
		case "response":
			w.response(&r.Response)
		case "executions":
			w.bad = w.bad || seen
			seen = true
			r.Executions = w.executions()
		default:
			w.unknown(key)
		}
	})
}

// rounds reads an array of rounds into the walk's scratch and returns a
// copy of its exact length: one allocation a transcript, where appending
// makes one for each time the slice grows. null is a nil slice.
func (w *walk) rounds() []Round {
	if w.null() {
		return nil
	}
	if spare := w.spareRounds; cap(spare) > 0 {
		// An earlier trial's rounds: decoded into where they were.
		w.spareRounds = nil
		w.array(func() {
			spare = append(spare, Round{})
			w.round(&spare[len(spare)-1])
		})
		return spare
	}
	if w.syms == nil {
		w.syms = &symbols{}
	}
	scr := w.syms.rounds[:0]
	w.array(func() {
		scr = append(scr, Round{})
		w.round(&scr[len(scr)-1])
	})
	out := append([]Round{}, scr...)
	clear(scr) // the scratch holds no executions alive
	w.syms.rounds = scr[:0]
	return out
}

// executions is rounds for a round's executions.
func (w *walk) executions() []Execution {
	if w.null() {
		return nil
	}
	if w.syms == nil {
		w.syms = &symbols{}
	}
	scr := w.syms.execs[:0]
	w.array(func() {
		scr = append(scr, Execution{})
		w.execution(&scr[len(scr)-1])
	})
	out := append([]Execution{}, scr...)
	clear(scr)
	w.syms.execs = scr[:0]
	return out
}

func (w *walk) metrics(m *Metrics) {
	w.object(m, func(key []byte) {
		switch string(key) {
		case "total_duration_ns":
			w.duration(&m.TotalDuration)
		case "load_duration_ns":
			w.duration(&m.LoadDuration)
		case "prompt_eval_count":
			w.int(&m.PromptEvalCount)
		case "prompt_eval_duration_ns":
			w.duration(&m.PromptEvalDuration)
		case "eval_count":
			w.int(&m.EvalCount)
		case "eval_duration_ns":
			w.duration(&m.EvalDuration)
		default:
			w.unknown(key)
		}
	})
}

func (w *walk) response(r *Response) {
	w.object(r, func(key []byte) {
		switch string(key) {
		case "content", "thinking", "tool_calls":
			w.skip()
		case "done_reason":
			w.sym(&r.DoneReason, symDone)
		case "chunks":
			w.int(&r.Chunks)
		case "failure":
			w.json(&r.Failure)
		default:
			w.unknown(key)
		}
	})
}

// execution reads one execution without its arguments and result.
func (w *walk) execution(e *Execution) {
	w.object(e, func(key []byte) {
		switch string(key) {
		case "call_id", "arguments", "result":
			w.skip()
		case "name":
			w.sym(&e.Name, symTool)
		case "server":
			w.sym(&e.Server, symServer)
		case "tool":
			w.sym(&e.Tool, symTool2)
		case "is_error":
			w.bool(&e.IsError)
		case "error_kind":
			w.sym(&e.ErrorKind, symErrorKind)
		case "error":
			w.str(&e.Error)
		case "hidden_only":
			w.bool(&e.HiddenOnly)
		case "duration_ns":
			w.duration(&e.Duration)
		default:
			w.unknown(key)
		}
	})
}

// walk reads one JSON value member by member. bad is sticky: once set,
// every method returns at once, and the caller falls back.
type walk struct {
	b   []byte
	i   int
	bad bool
	// rest gathers the current object's unknown members, each after a
	// comma, when gather says it has a target (see object).
	rest   []byte
	gather bool
	// syms keeps the last string read for each field of few values and
	// many lines (models, outcomes, tool names), which the next line then
	// shares; nil keeps nothing.
	syms *symbols
	// spare is an earlier trial's transcript for this line's to be
	// decoded into, and spareRounds its rounds, once transcript took it;
	// nil: new ones.
	spare       *Transcript
	spareRounds []Round
}

// object calls member with each key of the object at w.i, the walk at the
// key's value, which member must consume.
//
// The members member does not know (unknown) are gathered and decoded into
// target with encoding/json once the object ends, so a field a newer
// toolgrade adds to the record is read, not lost; nil drops them (the key
// pass, which wants the key alone).
func (w *walk) object(target any, member func(key []byte)) {
	w.i = skipSpace(w.b, w.i)
	if w.bad || w.i >= len(w.b) || w.b[w.i] != '{' {
		w.bad = true
		return
	}
	outer, outerGather := w.rest, w.gather
	w.rest, w.gather = nil, target != nil
	w.members(member)
	rest := w.rest
	w.rest, w.gather = outer, outerGather
	if len(rest) > 0 && target != nil && !w.bad {
		rest[0] = '{'
		w.bad = json.Unmarshal(append(rest, '}'), target) != nil
	}
}

// members is object's loop over the members, from the opening brace.
func (w *walk) members(member func(key []byte)) {
	w.i = skipSpace(w.b, w.i+1)
	for n := 0; !w.bad; n++ {
		if w.i < len(w.b) && w.b[w.i] == '}' {
			w.i++
			return
		}
		if n > 0 {
			if w.i >= len(w.b) || w.b[w.i] != ',' {
				w.bad = true
				return
			}
			w.i = skipSpace(w.b, w.i+1)
		}
		end, err := skipString(w.b, w.i)
		if err != nil {
			w.bad = true
			return
		}
		key := w.b[w.i+1 : end-1]
		w.i = skipSpace(w.b, end)
		if w.i >= len(w.b) || w.b[w.i] != ':' {
			w.bad = true
			return
		}
		w.i = skipSpace(w.b, w.i+1)
		member(key)
		w.i = skipSpace(w.b, w.i)
	}
}

// array calls elem with the walk at each element of the array at w.i.
func (w *walk) array(elem func()) {
	if w.bad || w.i >= len(w.b) || w.b[w.i] != '[' {
		w.bad = true
		return
	}
	w.i = skipSpace(w.b, w.i+1)
	for n := 0; !w.bad; n++ {
		if w.i < len(w.b) && w.b[w.i] == ']' {
			w.i++
			return
		}
		if n > 0 {
			if w.i >= len(w.b) || w.b[w.i] != ',' {
				w.bad = true
				return
			}
			w.i = skipSpace(w.b, w.i+1)
		}
		elem()
		w.i = skipSpace(w.b, w.i)
	}
}

// value returns the raw value at w.i and moves past it.
func (w *walk) value() []byte {
	if w.bad {
		return nil
	}
	end, err := skipValue(w.b, w.i)
	if err != nil {
		w.bad = true
		return nil
	}
	v := w.b[w.i:end]
	w.i = end
	return v
}

func (w *walk) skip() { w.value() }

// null reports whether the value at w.i is null, and if so moves past it.
func (w *walk) null() bool {
	if !w.bad && len(w.b)-w.i >= 4 && string(w.b[w.i:w.i+4]) == "null" {
		w.i += 4
		return true
	}
	return false
}

// unknown gathers a member the walk does not read into w.rest, for object
// to decode into its target; encoding/json would match a key in other case
// (or with escapes, or beyond ASCII, which it folds) to a field, and
// refuses a control character, so such a key makes the walk give up.
func (w *walk) unknown(key []byte) {
	for _, c := range key {
		if c >= 'A' && c <= 'Z' || c == '\\' || c >= 0x80 || c < 0x20 {
			w.bad = true
			return
		}
	}
	v := w.value()
	if !w.bad && w.gather {
		w.rest = append(append(append(append(w.rest, ',', '"'), key...), '"', ':'), v...)
	}
}

// str reads a string: at once when it is plain ASCII without escapes, else
// through encoding/json (which also leaves dst alone for null).
func (w *walk) str(dst *string) {
	v := w.value()
	if w.bad {
		return
	}
	if len(v) >= 2 && v[0] == '"' && plain(v[1:len(v)-1]) {
		*dst = string(v[1 : len(v)-1])
		return
	}
	w.bad = json.Unmarshal(v, dst) != nil
}

// The fields whose last value a walk keeps (symbols).
const (
	symFormat = iota
	symModel
	symVariant
	symHost
	symOutcome
	symDone
	symTool
	symServer
	symTool2
	symErrorKind
	nSymbols
)

// symbols is the last string read for each field of few values: a line
// with the same value as the line before shares its string, with neither
// an allocation nor a hash. It holds the scratch slices a walk reads
// arrays into, too, which the lines of one reader share.
type symbols struct {
	last   [nSymbols]string
	rounds []Round
	execs  []Execution
}

// sym reads a string as str does, shared with the last one read into slot
// when equal.
func (w *walk) sym(dst *string, slot int) {
	if w.syms == nil {
		w.str(dst)
		return
	}
	start := w.i
	v := w.value()
	if w.bad {
		return
	}
	last := &w.syms.last[slot]
	if len(v) >= 2 && v[0] == '"' && string(v[1:len(v)-1]) == *last && *last != "" {
		*dst = *last
		return
	}
	w.i = start
	w.str(dst)
	// Only a plain string is kept: a line whose raw bytes equal it is then
	// plain too, and reads as those bytes.
	*last = ""
	if !w.bad && len(v) >= 2 && v[0] == '"' && plain(v[1:len(v)-1]) {
		*last = *dst
	}
}

// plain reports whether b is a JSON string's content that reads as
// itself: printable ASCII without escapes.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// digits reads a JSON integer as encoding/json reads one into an int: an
// optional minus, then 0 or digits not starting with 0. Anything else
// (null, a fraction, an exponent) gives up.
func (w *walk) digits() (int64, bool) {
	v := w.value()
	if w.bad || len(v) == 0 {
		w.bad = true
		return 0, false
	}
	d := v
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || d[0] == '0' && len(d) > 1 {
		w.bad = true
		return 0, false
	}
	// The value of the digits, as a negative number (whose range holds
	// math.MinInt64), giving up past int64 as strconv.ParseInt would fail.
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' || n < (math.MinInt64+int64(c-'0'))/10 {
			w.bad = true
			return 0, false
		}
		n = n*10 - int64(c-'0')
	}
	if v[0] != '-' {
		if n == math.MinInt64 {
			w.bad = true
			return 0, false
		}
		n = -n
	}
	return n, true
}

func (w *walk) int(dst *int) {
	if n, ok := w.digits(); ok {
		*dst = int(n)
	}
}

func (w *walk) int64(dst *int64) {
	if n, ok := w.digits(); ok {
		*dst = n
	}
}

func (w *walk) duration(dst *time.Duration) {
	if n, ok := w.digits(); ok {
		*dst = time.Duration(n)
	}
}

func (w *walk) bool(dst *bool) {
	switch string(w.value()) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		w.bad = true
	}
}

// optBool reads a *bool as encoding/json does: null leaves it alone, a
// bool points it at a new one.
func (w *walk) optBool(dst **bool) {
	if w.null() {
		return
	}
	var v bool
	w.bool(&v)
	if !w.bad {
		*dst = &v
	}
}

// time reads a time as encoding/json does, through time.Time's own
// UnmarshalJSON (which encoding/json calls with the value as written, null
// included), without encoding/json's reflection: every line has one.
func (w *walk) time(dst *time.Time) {
	v := w.value()
	if !w.bad {
		w.bad = dst.UnmarshalJSON(v) != nil
	}
}

// json reads the value at w.i into dst with encoding/json: the members
// that are small and rarely there.
func (w *walk) json(dst any) {
	v := w.value()
	if !w.bad {
		w.bad = json.Unmarshal(v, dst) != nil
	}
}
