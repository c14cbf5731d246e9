package score

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// countIntegral counts the integral numbers in args: the numbers Ollama's
// round trip may have turned from floats into ints.
func countIntegral(args []map[string]any) int {
	n := 0
	for _, a := range args {
		walkNumbers(a, func(json.Number) any { n++; return nil })
	}
	return n
}

// eachReading calls f with each way to read n integral numbers that differs
// from reading them all as ints, until f returns false: bit i set when the
// i-th number (in walkNumbers' order) is read as a float. Every combination
// up to maxRoundTripSlots numbers; past it, all as floats, then each one
// alone as a float, then each one alone as an int. One slice is reused.
func eachReading(n int, f func(floats []bool) bool) {
	r := make([]bool, n)
	if n <= maxRoundTripSlots {
		for mask := 1; mask < 1<<n; mask++ {
			for i := range r {
				r[i] = mask&(1<<i) != 0
			}
			if !f(r) {
				return
			}
		}
		return
	}
	set := func(all bool, flip int) bool {
		for i := range r {
			r[i] = all
		}
		if flip >= 0 {
			r[flip] = !all
		}
		return f(r)
	}
	if !set(true, -1) {
		return
	}
	for i := range n {
		if !set(false, i) || !set(true, i) {
			return
		}
	}
}

// asFloats copies args with the integral numbers that floats marks read as
// floats (float64, which the BFCL matchers take for Python's float).
func asFloats(args []map[string]any, floats []bool) []map[string]any {
	i := 0
	out := make([]map[string]any, len(args))
	for k, a := range args {
		out[k] = walkNumbers(a, func(n json.Number) any {
			defer func() { i++ }()
			if floats[i] {
				f, _ := strconv.ParseFloat(string(n), 64)
				return f
			}
			return n
		}).(map[string]any)
	}
	return out
}

// walkNumbers returns a copy of v with each integral json.Number replaced
// by what f returns for it, visiting them in a fixed order (map keys
// sorted); f's result is ignored when it is nil.
func walkNumbers(v any, f func(json.Number) any) any {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err != nil {
			return x
		}
		if r := f(x); r != nil {
			return r
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = walkNumbers(e, f)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out[k] = walkNumbers(x[k], f)
		}
		return out
	}
	return v
}
