package record

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// ReadLast reads a trials file and calls fn once per trial key (model, case,
// variant, repeat) with the key's last line, in the order those lines appear.
// A later line for a key supersedes every earlier one: that is how a resumed
// run replaces an infra_error trial with its rerun. It returns the bad lines
// as warnings; reading goes on past them.
//
// It reads the file twice so that it never holds more than one transcript: the
// first pass decodes only each line's key and keeps each key's last line
// number, the second decodes those lines alone.
func ReadLast(r io.ReadSeeker, file string, fn func(*Trial)) ([]*SyntaxError, error) {
	return readLast(r, file, false, fn)
}

func readLast(r io.ReadSeeker, file string, slim bool, fn func(*Trial)) ([]*SyntaxError, error) {
	last := map[TrialKey]int{}
	rd := NewReader(r, file)
	rd.keysOnly = true
	for rd.Scan() {
		last[rd.Trial().Key()] = rd.Line()
	}
	if err := rd.Err(); err != nil {
		return rd.Warnings, err
	}
	warnings := rd.Warnings
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return warnings, fmt.Errorf("%s: %w", file, err)
	}
	// The lines to decode, in file order: a cursor walks them as the second
	// pass goes, so the other lines are skipped without being parsed.
	keep := make([]int, 0, len(last))
	for _, line := range last {
		keep = append(keep, line)
	}
	slices.Sort(keep)
	rd = NewReader(r, file)
	rd.slim = slim
	rd.want = func(line int) bool {
		for len(keep) > 0 && keep[0] < line {
			keep = keep[1:]
		}
		return len(keep) > 0 && keep[0] == line
	}
	for rd.Scan() {
		fn(rd.Trial())
	}
	// A line whose key read but whose whole did not is warned about now.
	return append(warnings, rd.Warnings...), rd.Err()
}

// ReadLastSlim is ReadLast for the readers that need each trial's verdicts
// and numbers but not its conversation (compare, choose, gates): the lines
// kept are decoded slim, without the transcript's bulk (the messages, the
// requests, the responses' text and calls, the tools' arguments and
// results; see slimTrial), which is most of what a read costs. Its
// guarantees are ReadLast's, but for one: fn may not keep the trial it is
// given (nor its transcript) past the call, since a read in one pass
// decodes later lines into the memory of those fn is done with; it keeps
// what it needs of it (the strings are its own to keep).
//
// With reset set, the read goes in one pass, fn getting each line as it is
// read, for as long as no trial key comes twice (a run that was never
// resumed over an infrastructure error): every line is then its key's
// last. Should a key come again, reset is called, for fn's reader to
// forget what it was given, and the reading starts over in the two passes
// of ReadLast. A nil reset reads in two passes from the start.
func ReadLastSlim(r io.ReadSeeker, file string, reset func(), fn func(*Trial)) ([]*SyntaxError, error) {
	if reset != nil {
		warnings, done, err := readOnce(r, file, fn)
		if done || err != nil {
			return warnings, err
		}
		reset()
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return readLast(r, file, true, fn)
}

// readOnce reads slim trials in one pass, giving fn each line, until a
// trial key comes a second time (a line that supersedes another, or a bad
// line whose key was given before); done reports that none did.
func readOnce(r io.Reader, file string, fn func(*Trial)) (warnings []*SyntaxError, done bool, err error) {
	seen := make(map[TrialKey]bool, linesHint(r))
	again := false
	rd := NewReader(r, file)
	rd.slim = true
	readAhead(rd, func(s aheadLine) bool {
		if s.lost {
			again = seen[s.key]
			return !again
		}
		k := s.t.Key()
		if again = seen[k]; again {
			return false
		}
		seen[k] = true
		fn(s.t)
		return true
	})
	if err := rd.Err(); err != nil {
		return rd.Warnings, false, err
	}
	return rd.Warnings, !again, nil
}

// ReadLastKept is ReadLastSlim in one pass for readers that need little of
// each trial: keep makes of each line's slim trial what the reader keeps
// (a comparison's verdicts and numbers), and only that is held until the
// end, when fn gets each trial key's last kept value, in the order those
// lines appear. keep sees superseded lines too; fn never does. keep may
// not hold the trial itself past the call (see ReadLastSlim). The
// guarantees are ReadLast's: a line that cannot be read is a warning, and
// if its key can be read it still supersedes that key's earlier lines.
func ReadLastKept[T any](r io.Reader, file string, keep func(*Trial) T, fn func(T)) ([]*SyntaxError, error) {
	type kept struct {
		v  T
		ok bool
	}
	hint := linesHint(r)
	lines := make([]kept, 0, hint)
	last := make(map[TrialKey]int, hint)
	drop := func(k TrialKey) {
		if i, ok := last[k]; ok {
			lines[i] = kept{}
			delete(last, k)
		}
	}
	rd := NewReader(r, file)
	rd.slim = true
	readAhead(rd, func(s aheadLine) bool {
		if s.lost {
			drop(s.key)
			return true
		}
		k := s.t.Key()
		drop(k)
		last[k] = len(lines)
		lines = append(lines, kept{keep(s.t), true})
		return true
	})
	if err := rd.Err(); err != nil {
		return rd.Warnings, err
	}
	for _, l := range lines {
		if l.ok {
			fn(l.v)
		}
	}
	return rd.Warnings, nil
}

// linesHint is about how many lines r holds, from its size when it says
// it (a section of a file does), so that what a read keeps per line is
// made about its size at once, not grown step by step: 4 KiB a line,
// less than most trials take. 0 when r does not say.
func linesHint(r io.Reader) int {
	if s, ok := r.(interface{ Size() int64 }); ok {
		return int(min(s.Size()/4096, 1<<20))
	}
	return 0
}

// trialKey is the part of a trial line the first pass of ReadLast decodes.
type trialKey struct {
	Format  string `json:"format"`
	Model   string `json:"model"`
	CaseID  string `json:"case"`
	Variant string `json:"variant"`
	Repeat  int    `json:"repeat"`
}

// peekKey decodes only the key and format version of a trial line, skipping
// the transcript without decoding it.
func (r *Reader) peekKey(b []byte) (TrialKey, string, error) {
	var k trialKey
	if decodeKey(b, &k, &r.syms) {
		return TrialKey{Model: k.Model, CaseID: k.CaseID, Variant: k.Variant, Repeat: k.Repeat}, k.Format, nil
	}
	k = trialKey{}
	pruned, err := pruneLine(nil, b, keyOnly)
	if err != nil {
		return TrialKey{}, "", err
	}
	if err := json.Unmarshal(pruned, &k); err != nil {
		return TrialKey{}, "", err
	}
	return TrialKey{Model: k.Model, CaseID: k.CaseID, Variant: k.Variant, Repeat: k.Repeat}, k.Format, nil
}
