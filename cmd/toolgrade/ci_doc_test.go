package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/toolgrade/toolgrade/internal/record"
)

// ciDocBlocks are the YAML blocks of docs/ci.md, parsed (every document of
// each).
func ciDocBlocks(t *testing.T) [][]map[string]any {
	t.Helper()
	b, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]map[string]any
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		var docs []map[string]any
		dec := yaml.NewDecoder(strings.NewReader(m[1]))
		for {
			var d map[string]any
			if err := dec.Decode(&d); err != nil {
				if err.Error() == "EOF" {
					break
				}
				t.Fatalf("docs/ci.md: a YAML block does not parse: %v\n%s", err, m[1])
			}
			docs = append(docs, d)
		}
		blocks = append(blocks, docs)
	}
	if len(blocks) != 3 {
		t.Fatalf("docs/ci.md has %d YAML blocks, want the two workflows and the manifest", len(blocks))
	}
	return blocks
}

// dig follows keys (string for maps, int for lists) into v.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("docs/ci.md: no %q in %v", k, v)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("docs/ci.md: no item %d in %v", k, v)
			}
			v = l[k]
		}
	}
	return v
}

// toolgradeLines are the lines of s that run toolgrade.
func toolgradeLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "toolgrade ") {
			out = append(out, l)
		}
	}
	return out
}

// shellFields splits a command line as sh would for these simple lines:
// blanks separate, single and double quotes group, $NAME expands from env,
// and a word with * is globbed.
func shellFields(t *testing.T, line string, env map[string]string) []string {
	t.Helper()
	var out []string
	for _, w := range regexp.MustCompile(`'[^']*'|"[^"]*"|\S+`).FindAllString(line, -1) {
		if strings.HasPrefix(w, "'") {
			out = append(out, strings.Trim(w, "'"))
			continue
		}
		w = os.Expand(strings.Trim(w, `"`), func(k string) string { return env[k] })
		if strings.Contains(w, "*") {
			m, err := filepath.Glob(w)
			if err != nil || len(m) == 0 {
				t.Fatalf("%s: %q matches nothing", line, w)
			}
			out = append(out, m...)
			continue
		}
		out = append(out, w)
	}
	return out
}

// TestCIDocRunsAgainstTheFake: the Kubernetes manifest of docs/ci.md parses,
// has the shape the engine needs, and the toolgrade commands it runs, taken
// from the doc, do the documented thing against the fake Ollama: every
// shard runs, the merge joins them, the gate judges the merged run (the
// demo's weak model fails pass>=0.9: exit 4). The doc's GitHub workflows use
// the action, whose tests (internal/action) run them.
func TestCIDocRunsAgainstTheFake(t *testing.T) {
	blocks := ciDocBlocks(t)
	_, url := fakeOllama(t, nil)
	suite := docsSuite(t)

	// Kubernetes: an Indexed Job whose pods run the shard from
	// JOB_COMPLETION_INDEX, then the merge Job.
	k := blocks[2]
	if len(k) != 2 || k[0]["kind"] != "Job" || dig(t, k[0], "spec", "completionMode") != "Indexed" {
		t.Fatalf("the manifest is not an Indexed Job then a Job: %v", k)
	}
	n := dig(t, k[0], "spec", "completions").(int)
	side := dig(t, k[0], "spec", "template", "spec", "initContainers", 0)
	if dig(t, side, "restartPolicy") != "Always" {
		t.Error("the Ollama sidecar is not a native sidecar (restartPolicy: Always)")
	}
	ctr := dig(t, k[0], "spec", "template", "spec", "containers", 0)
	env := map[string]string{}
	for _, e := range dig(t, ctr, "env").([]any) {
		env[yamlString(dig(t, e, "name"))] = yamlString(dig(t, e, "value"))
	}
	kdir := t.TempDir()
	ksub := func(l string) string {
		l = strings.ReplaceAll(l, "/suite/docs.yaml", suite)
		l = strings.ReplaceAll(l, "/results/", kdir+"/")
		return strings.ReplaceAll(l, "http://127.0.0.1:11434", url)
	}
	podLines := toolgradeLines(dig(t, ctr, "command", 2).(string))
	for i := range n {
		env["JOB_COMPLETION_INDEX"] = yamlString(i)
		for k, v := range env {
			t.Setenv(k, v)
		}
		runDocFlow(t, podLines, ksub, env)
	}
	mergeLines := toolgradeLines(dig(t, k[1], "spec", "template", "spec", "containers", 0, "command", 2).(string))
	os.Unsetenv("JOB_COMPLETION_INDEX")
	runDocFlow(t, mergeLines, ksub, nil)
	checkMerged(t, filepath.Join(kdir, "merged"), n)
}

// runDocFlow runs the doc's toolgrade lines in order; a --gate line must
// fail as the demo's weak model does (exit 4).
func runDocFlow(t *testing.T, lines []string, sub func(string) string, env map[string]string) {
	t.Helper()
	for _, l := range lines {
		args := shellFields(t, sub(l), env)
		r := runCLI(t, context.Background(), args[1:]...)
		if slices.Contains(args, "--gate") {
			if r.code != exitGate {
				t.Errorf("%s: exit %d (%v), want the gate's 4\n%s", strings.Join(args, " "), r.code, r.err, r.stderr)
			}
			continue
		}
		if r.err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), r.err, r.stderr)
		}
	}
}

func checkMerged(t *testing.T, dir string, shards int) {
	t.Helper()
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Shard != nil || meta.Status != "complete" || meta.Repeat != 3 {
		t.Errorf("%s: run.json shard %v status %s repeat %d", dir, meta.Shard, meta.Status, meta.Repeat)
	}
	if n := len(readTrialKeys(t, dir)); n != 2*25*3 {
		t.Errorf("%s: %d trials from %d shards, want %d", dir, n, shards, 2*25*3)
	}
}

// yamlString is a scalar of the doc as the engine passes it on: a string
// as is, a number in its decimal form.
func yamlString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(b))
}
