package bfcl

import (
	"bytes"
	"fmt"
)

// Synthetic builds a synthetic BFCL question file and possible-answer
// file of n entries, cycling through simple, multiple, parallel and
// irrelevance, each function with five typed parameters (integer, float,
// string, array of strings, dict): input for benchmarks, not BFCL data. As
// in BFCL, every question brings functions of its own (their descriptions
// name the question), so an imported suite has a catalog per case.
func Synthetic(n int) (questions, answers []byte) {
	var q, a bytes.Buffer
	var i int
	fn := func(name string) string {
		return `{"name": "` + name + `", "description": "Look up things in catalog ` + fmt.Sprint(i) + ` by several criteria.", "parameters": {"type": "dict", "properties": {` +
			`"count": {"type": "integer", "description": "How many."}, "weight": {"type": "float", "description": "A weight."}, ` +
			`"city": {"type": "string", "description": "A city.", "enum": ["Paris", "Rome"]}, "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."}, ` +
			`"filter": {"type": "dict", "description": "A filter.", "properties": {"kind": {"type": "string"}, "max": {"type": "integer"}}}}, "required": ["count", "city"]}}`
	}
	gt := func(name string, i int) string {
		return fmt.Sprintf(`{"%s": {"count": [%d], "weight": [1.5, ""], "city": ["Paris", "paris, france"], "tags": [["a", "b"], ""], "filter": [{"kind": ["x"], "max": [%d, ""]}, ""]}}`, name, i, i+1)
	}
	cats := []string{"simple", "multiple", "parallel", "irrelevance"}
	for i = 0; i < n; i++ {
		cat := cats[i%len(cats)]
		id := fmt.Sprintf("%s_%d", cat, i)
		fns := fn("catalog.find")
		if cat != "simple" {
			fns += ", " + fn("catalog.count")
		}
		fmt.Fprintf(&q, `{"id": "%s", "question": [[{"role": "user", "content": "Question number %d about the catalog?"}]], "function": [%s]}`+"\n", id, i, fns)
		switch cat {
		case "simple", "multiple":
			fmt.Fprintf(&a, `{"id": "%s", "ground_truth": [%s]}`+"\n", id, gt("catalog.find", i))
		case "parallel":
			fmt.Fprintf(&a, `{"id": "%s", "ground_truth": [%s, %s]}`+"\n", id, gt("catalog.find", i), gt("catalog.count", i))
		}
	}
	return q.Bytes(), a.Bytes()
}
