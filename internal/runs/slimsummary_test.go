package runs

import (
	"bytes"
	"io"
	"testing"

	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// TestASlimSummaryIsTheWholeOne: the summary made of slim trials, as
// Summarize reads them, is byte for byte the one made of whole trials.
func TestASlimSummaryIsTheWholeOne(t *testing.T) {
	for _, dir := range []string{"../report/testdata", "../compare/testdata/base", "../curve/testdata/sweep"} {
		run, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		slim, err := Summarize(run, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		whole := summary.NewSummarizer(run.Run.Suite.Name, run.Run.Models)
		whole.Judge = JudgeOptions(run)
		if _, err := run.Trials(whole.Add); err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if err := summary.WriteJSON(&a, slim); err != nil {
			t.Fatal(err)
		}
		if err := summary.WriteJSON(&b, whole.Summary().WithRun(run.Run)); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%s: the slim summary differs from the whole one", dir)
		}
		if a.Len() < 1000 {
			t.Errorf("%s: a summary of %d bytes", dir, a.Len())
		}
	}
}
