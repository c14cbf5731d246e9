package score

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/toolgrade/toolgrade/internal/record"
)

// repeats finds the calls of t that repeat an earlier call of the trial: the
// same name with arguments equal as JSON values (key order, spacing and the
// spelling of a number aside). It returns how many there are and the last
// round's first repeated call, the one a trial cut by the round limit was
// repeating; ok is false when that round repeated nothing.
func repeats(t *record.Transcript) (n int, last record.ToolCall, ok bool) {
	seen := map[string]bool{}
	for _, r := range t.Rounds {
		if len(r.Response.ToolCalls) == 0 {
			continue
		}
		ok = false
		for _, c := range r.Response.ToolCalls {
			k := c.Name + "\x00" + string(canonicalArgs(c.Arguments))
			if seen[k] {
				n++
				if !ok {
					last, ok = c, true
				}
			}
			seen[k] = true
		}
	}
	return n, last, ok
}

// canonicalArgs re-encodes arguments so that equal values have equal bytes:
// object keys sorted (encoding/json sorts map keys), no spacing, numbers in
// their shortest form. Arguments that are not JSON stay as they are.
func canonicalArgs(raw json.RawMessage) []byte {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return trimmed
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a detail shows "<" as written
	if enc.Encode(canonicalNumbers(v)) != nil {
		return trimmed
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// canonicalNumbers writes every number in its shortest form, so 5, 5.0 and
// 5e0 compare equal.
func canonicalNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = canonicalNumbers(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalNumbers(e)
		}
	}
	return v
}

// maxCallShown bounds a call written into a detail line.
const maxCallShown = 120

// showCall writes a call compactly, as search({"query":"x"}), cut at
// maxCallShown characters.
func showCall(c record.ToolCall) string {
	s := c.Name + "(" + string(canonicalArgs(c.Arguments)) + ")"
	if r := []rune(s); len(r) > maxCallShown {
		return string(r[:maxCallShown-2]) + "…)"
	}
	return s
}
