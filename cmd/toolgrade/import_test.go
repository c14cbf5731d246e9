package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportBFCL: the command writes the suite internal/bfcl's golden file
// holds, from the same fixtures given in the same order.
func TestImportBFCL(t *testing.T) {
	t.Parallel()
	td := "../../internal/bfcl/testdata"
	qs, _ := filepath.Glob(filepath.Join(td, "BFCL_v3_*.json"))
	as, _ := filepath.Glob(filepath.Join(td, "possible_answer", "BFCL_v3_*.json"))
	out := filepath.Join(t.TempDir(), "bfcl.yaml")
	args := append([]string{"import", "bfcl"}, qs...)
	for _, a := range as {
		args = append(args, "--answers", a)
	}
	r := runCLI(t, context.Background(), append(args, "-o", out)...)
	if r.code != exitOK || !strings.Contains(r.stderr, "wrote 16 cases to "+out) {
		t.Fatalf("code %d, err %v\n%s", r.code, r.err, r.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join(td, "golden", "fixtures.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The header names the files as given; the golden file's were relative
	// to internal/bfcl.
	if g, w := afterHeader(string(got)), afterHeader(string(golden)); g != w {
		t.Errorf("the suite differs from the golden file:\n%s", got)
	}
}

func afterHeader(s string) string {
	_, rest, _ := strings.Cut(s, "\ncases:\n")
	return rest
}

func TestImportBFCLErrors(t *testing.T) {
	t.Parallel()
	td := "../../internal/bfcl/testdata"
	simple := filepath.Join(td, "BFCL_v3_simple.json")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "the only format is bfcl"},
		{[]string{"import", "squad", simple}, "the only format is bfcl"},
		{[]string{"import", "bfcl"}, "give at least one question file"},
		{[]string{"import", "bfcl", simple}, simple + ":1: simple_0: category simple needs its possible answers: give --answers"},
		{[]string{"import", "bfcl", simple, "--answers", filepath.Join(td, "possible_answer", "BFCL_v3_java.json")}, simple + ":2: simple_1: no possible answer with this id"},
		{[]string{"import", "bfcl", filepath.Join(td, "nope.json")}, "nope.json: no such file"},
	} {
		r := runCLI(t, context.Background(), tt.args...)
		if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
			t.Errorf("%v: code %d, err %v; want exit 2 and %q", tt.args, r.code, r.err, tt.want)
		}
	}
}
