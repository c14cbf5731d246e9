// Package pyjson writes JSON the way Python's json.dumps does with its
// default separators: ", " between items and ": " after keys, floats as
// Python's repr writes them (1.0, 1e-05, 1e+16), Infinity and NaN bare, and
// non-ASCII characters escaped as \uXXXX unless told to keep them. Models
// trained on Python write tool calls this way, and BFCL puts such text into
// tool descriptions; the fake Ollama and the BFCL import both write it here.
package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Options change how values are written; the zero value (or nil) is
// json.dumps with its defaults.
type Options struct {
	// KeepNonASCII writes characters beyond ASCII as they are
	// (ensure_ascii=False), as a model writes its own text; false escapes
	// them as \uXXXX, surrogate pairs beyond the BMP, as json.dumps does by
	// default.
	KeepNonASCII bool
}

// Ordered is a JSON object whose keys keep their order, as a Python dict
// keeps the order its keys were added in. A Go map has no order, so its
// keys are written sorted (json.dumps with sort_keys=True).
type Ordered interface {
	Members() iter.Seq2[string, any]
}

// Dumps returns v as json.dumps writes it. v may be nil, a bool, a string,
// any Go integer or float, a json.Number, an Ordered, a map with string
// keys or a slice of these; any other value is written as encoding/json
// encodes it, read back as those. The error is encoding/json's, for a value
// it cannot encode either.
func Dumps(v any, o *Options) (string, error) {
	if o == nil {
		o = &Options{}
	}
	w := writer{keep: o.KeepNonASCII}
	if err := w.value(v); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

type writer struct {
	b    strings.Builder
	keep bool
}

func (w *writer) value(v any) error {
	switch x := v.(type) {
	case nil:
		w.b.WriteString("null")
	case bool:
		w.b.WriteString(strconv.FormatBool(x))
	case string:
		w.str(x)
	case json.Number:
		w.number(x)
	case float64:
		w.b.WriteString(Float(x))
	case float32:
		w.b.WriteString(Float(float64(x)))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr:
		fmt.Fprint(&w.b, x)
	case Ordered:
		return w.object(x.Members())
	case map[string]any:
		return w.object(func(yield func(string, any) bool) {
			for _, k := range slices.Sorted(mapKeys(x)) {
				if !yield(k, x[k]) {
					return
				}
			}
		})
	case []any:
		w.b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.b.WriteString(", ")
			}
			if err := w.value(e); err != nil {
				return err
			}
		}
		w.b.WriteByte(']')
	default:
		return w.other(v)
	}
	return nil
}

func mapKeys(m map[string]any) iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// other writes a value of another type as encoding/json encodes it: its
// JSON read back with numbers kept as written.
func (w *writer) other(v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		w.b.WriteString("null")
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var back any
	if err := dec.Decode(&back); err != nil {
		return err
	}
	return w.value(back)
}

func (w *writer) object(members iter.Seq2[string, any]) error {
	w.b.WriteByte('{')
	i := 0
	var err error
	for k, v := range members {
		if i > 0 {
			w.b.WriteString(", ")
		}
		i++
		w.str(k)
		w.b.WriteString(": ")
		if err = w.value(v); err != nil {
			break
		}
	}
	w.b.WriteByte('}')
	return err
}

// number writes a JSON number as Python reads and writes it back: an
// integer exactly (json.loads makes it an int), anything else as a float.
func (w *writer) number(n json.Number) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, ok := new(big.Int).SetString(s, 10); ok {
			w.b.WriteString(i.String())
			return
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		w.b.WriteString(s) // not a number: as it came
		return
	}
	w.b.WriteString(Float(f))
}

// str writes s quoted: the two-character escapes json.dumps uses, other
// control characters as \u00XX, and beyond ASCII as \uXXXX unless kept.
// Invalid UTF-8 is read as U+FFFD, as Python could not hold it either.
func (w *writer) str(s string) {
	w.b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			w.b.WriteString(`\"`)
		case r == '\\':
			w.b.WriteString(`\\`)
		case r == '\n':
			w.b.WriteString(`\n`)
		case r == '\r':
			w.b.WriteString(`\r`)
		case r == '\t':
			w.b.WriteString(`\t`)
		case r == '\b':
			w.b.WriteString(`\b`)
		case r == '\f':
			w.b.WriteString(`\f`)
		case r < 0x20 || !w.keep && r > 0x7e:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&w.b, `\u%04x`, u)
			}
		default:
			w.b.WriteRune(r)
		}
	}
	w.b.WriteByte('"')
}

// Float is f as Python's repr writes a float, which json.dumps uses: the
// shortest digits that read back as f, in positional notation with at
// least one decimal (1.0, 0.0001) when the exponent is from -5 to 15, else
// in scientific notation with a signed two-digit exponent (1e-05, 1e+16);
// Infinity, -Infinity and NaN as json.dumps writes them.
func Float(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	sign := ""
	if mant[0] == '-' {
		sign, mant = "-", mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	point := x + 1 // digits are 0.DIGITS × 10^point
	switch {
	case point <= -4 || point > 16:
		out := sign + digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		esign := "+"
		if x < 0 {
			esign, x = "-", -x
		}
		return fmt.Sprintf("%se%s%02d", out, esign, x)
	case point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
	}
	return sign + digits[:point] + "." + digits[point:]
}
