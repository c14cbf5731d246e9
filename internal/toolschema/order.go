package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// Property orders.
const (
	// PropertyOrderServer lists a tool's properties in the order its server
	// wrote them in tools/list: servers put the preferred parameter first.
	PropertyOrderServer = "server"
	// PropertyOrderRequiredFirst lists the required properties first, in the
	// order of the required list, then the others by name.
	PropertyOrderRequiredFirst = "required-first"
)

// keyOrder remembers the key order of JSON objects decoded into Go maps, by
// map identity. Each entry holds its map too, so no map in the table can be
// freed and its address reused by another while the table lives.
type keyOrder map[uintptr]orderEntry

type orderEntry struct {
	m    map[string]any
	keys []string
}

func (o keyOrder) of(m map[string]any) []string {
	if o == nil || m == nil {
		return nil
	}
	return o[reflect.ValueOf(m).Pointer()].keys
}

func (o keyOrder) set(m map[string]any, keys []string) {
	if o != nil && m != nil && keys != nil {
		o[reflect.ValueOf(m).Pointer()] = orderEntry{m, keys}
	}
}

// decodeOrdered decodes a JSON object as encoding/json would into
// map[string]any (numbers as float64), recording every object's key order.
func decodeOrdered(data []byte, order keyOrder) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	v, err := decodeValue(dec, order)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("data after the schema")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema is not an object")
	}
	return m, nil
}

func decodeValue(dec *json.Decoder, order keyOrder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		m := map[string]any{}
		var keys []string
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := decodeValue(dec, order)
			if err != nil {
				return nil, err
			}
			if _, dup := m[k]; !dup {
				keys = append(keys, k)
			}
			m[k] = v // the last of duplicate keys wins, as in encoding/json
		}
		if keys == nil {
			keys = []string{}
		}
		order.set(m, keys)
		_, err := dec.Token()
		return m, err
	case '[':
		l := []any{}
		for dec.More() {
			v, err := decodeValue(dec, order)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		_, err := dec.Token()
		return l, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// orderedJSON encodes v, a decoded JSON value, with every object's keys in
// the recorded order (keys it does not know by name, after them), so that
// what Ollama passes through whole (items) keeps the server's order too.
func orderedJSON(v any, order keyOrder) json.RawMessage {
	var b bytes.Buffer
	writeOrdered(&b, v, order)
	return b.Bytes()
}

func writeOrdered(b *bytes.Buffer, v any, order keyOrder) {
	switch x := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		seen := map[string]bool{}
		n := 0
		emit := func(k string) {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			key, _ := json.Marshal(k)
			b.Write(key)
			b.WriteByte(':')
			writeOrdered(b, x[k], order)
		}
		for _, k := range order.of(x) {
			if _, ok := x[k]; ok && !seen[k] {
				seen[k] = true
				emit(k)
			}
		}
		for _, k := range sortedKeys(x) {
			if !seen[k] {
				emit(k)
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeOrdered(b, e, order)
		}
		b.WriteByte(']')
	default:
		data, err := json.Marshal(x)
		if err != nil {
			data = []byte("null") // decoded JSON always marshals
		}
		b.Write(data)
	}
}
