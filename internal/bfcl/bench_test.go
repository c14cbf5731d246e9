package bfcl

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkImport2000 reads a 2,000-question file and its answers, builds
// the suite and writes its YAML: the whole of toolgrade import bfcl but
// the file reads.
func BenchmarkImport2000(b *testing.B) {
	qb, ab := Synthetic(2000)
	b.SetBytes(int64(len(qb) + len(ab)))
	b.ReportAllocs()
	for b.Loop() {
		qs, err := ReadQuestions(bytes.NewReader(qb), "q.json")
		if err != nil {
			b.Fatal(err)
		}
		as, err := ReadAnswers(bytes.NewReader(ab), "a.json")
		if err != nil {
			b.Fatal(err)
		}
		doc, _, err := (&Import{Questions: qs, Answers: as}).Suite()
		if err != nil {
			b.Fatal(err)
		}
		if err := Write(io.Discard, doc); err != nil {
			b.Fatal(err)
		}
	}
}
