package bfclfake

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// pyYAML is a python3 that has PyYAML (Debian's python3-yaml, which make
// sysdeps installs): the YAML 1.1 parser BFCL's own tooling uses.
func pyYAML(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import yaml").Run() == nil {
			return py
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no python3 with PyYAML: make sysdeps installs python3-yaml")
	}
	t.Skip("no python3 with PyYAML (apt-get install python3-yaml, or make sysdeps)")
	return ""
}

// TestSuiteReadsTheSameInYAML11: the suite import bfcl writes reads the
// same in PyYAML (YAML 1.1) as in yaml.v3 (1.2): =, on, yes, y, ~, <<,
// 1:20, 012, dates and the other plain scalars 1.1 reads as another type
// are quoted, in values and keys alike.
func TestSuiteReadsTheSameInYAML11(t *testing.T) {
	py := pyYAML(t)
	src, _ := causesYAML(t)
	file := filepath.Join(t.TempDir(), "causes.yaml")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// Anything that is not JSON (a date, a set) fails the dump.
	out, err := exec.Command(py, "-c", "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", file).CombinedOutput()
	if err != nil {
		t.Fatalf("PyYAML: %v\n%s\n%s", err, out, src)
	}
	var v3 any
	if err := yaml.Unmarshal(src, &v3); err != nil {
		t.Fatal(err)
	}
	var viaV3, via11 any
	b, err := json.Marshal(v3)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &viaV3); err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&via11); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(viaV3, via11); d != "" {
		t.Errorf("YAML 1.2 (-) and 1.1 (+) read the suite differently:\n%s", d)
	}
}
