package rescore

import (
	"testing"
)

func TestSpecValidate(t *testing.T) {
	for _, s := range []Spec{{}, {Run: "d"}, {Suite: "s.yaml"}} {
		if err := s.Validate(); err == nil || err.Error() != "rescore: give one run directory and --suite SUITE.yaml" {
			t.Errorf("%+v: %v", s, err)
		}
	}
	if err := (&Spec{Run: "d", Suite: "s.yaml"}).Validate(); err != nil {
		t.Error(err)
	}
}
