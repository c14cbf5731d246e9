package bfcl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
)

// Object is a JSON object with its keys in file order: BFCL's function
// documents list the parameters in the order the model should see them, and
// an import must be byte-stable.
type Object []Member

// Member is one key of an Object.
type Member struct {
	Key   string
	Value any
}

// Members are the keys and values in order, for pyjson.
func (o Object) Members() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, m := range o {
			if !yield(m.Key, m.Value) {
				return
			}
		}
	}
}

// Get returns the value of key.
func (o Object) Get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// decodeLine reads one JSON value from a line: objects as Object, numbers
// as json.Number (so 5 and 5.0 stay apart, as they do for BFCL's Python),
// and nothing may follow it. col is the 1-based column of a syntax error.
func decodeLine(line []byte) (v any, col int, err error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	v, err = decodeValue(dec)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return nil, int(dec.InputOffset()) + 1, errors.New("data after the JSON value")
		}
		return v, 0, nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return nil, int(se.Offset), err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, len(line) + 1, errors.New("unexpected end of JSON")
	}
	return nil, int(dec.InputOffset()) + 1, err
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, Member{Key: key, Value: v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

// plain turns Objects into map[string]any, the shapes the suite's matchers
// compare; order no longer matters there.
func plain(v any) any {
	switch x := v.(type) {
	case Object:
		m := make(map[string]any, len(x))
		for _, mem := range x {
			m[mem.Key] = plain(mem.Value)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// MarshalJSON writes the object with its keys in order.
func (o Object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
