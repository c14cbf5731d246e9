package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// sweepSuite copies cases/sweep.yaml into a temporary folder, its servers
// this test binary's docs server and its pool the shipped cases/decoys.
func sweepSuite(t *testing.T, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile("../../cases/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pool, err := filepath.Abs("../../cases/decoys")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "servers: servers/docs.json", "servers: "+serversFile(t, "docs"), 1)
	text = strings.Replace(text, "decoys: [decoys/]", "decoys: ["+pool+"]", 1)
	if edit != nil {
		text = edit(text)
	}
	if !strings.Contains(text, pool) || !strings.Contains(text, "sweep: {decoys: [0, 10, 30, 60]}") {
		t.Fatal("cases/sweep.yaml no longer has servers: servers/docs.json, decoys: [decoys/] and its sweep")
	}
	path := filepath.Join(t.TempDir(), "sweep.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A 60-decoy sweep against the fake: every trial carries its grid point's
// name, run.json records each catalog's point and decoys (the base too, as
// the grid's decoys=0 point), the weak model's calls to decoys are
// wrong_tool naming them and run nothing, and a resume with another grid is
// refused.
func TestSweepRunRecordsItsGrid(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suitePath := sweepSuite(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stdout, "scripted-weak (decoys=60)") {
		t.Errorf("the report does not show the grid's variants:\n%s", r.stdout)
	}
	trials := readTrialsAll(t, dir)
	if len(trials) != 4*2*4 {
		t.Fatalf("%d trials, want 4 cases × 2 models × 4 points", len(trials))
	}
	pass := map[string]int{}
	for _, tr := range trials {
		if tr.Score.Outcome == record.OutcomePass {
			pass[tr.Model+"@"+tr.Variant]++
		}
		if tr.Seed != 42 {
			t.Errorf("%+v: seed %d, want the suite's in every variant", tr.Key(), tr.Seed)
		}
		for _, x := range tr.Transcript.Executions() {
			decoy := x.ErrorKind == record.ExecDecoy
			if decoy != !slices.Contains([]string{"search", "get_document", "list_documents"}, x.Name) {
				t.Errorf("%+v: execution %s with kind %q", tr.Key(), x.Name, x.ErrorKind)
			}
			if decoy && (tr.Score.Outcome != record.OutcomeWrongTool || !strings.HasPrefix(tr.Score.Detail, "called decoy "+x.Name)) {
				t.Errorf("%+v: a decoy call scored %s %q", tr.Key(), tr.Score.Outcome, tr.Score.Detail)
			}
		}
	}
	want := map[string]int{
		"scripted-good@": 4, "scripted-good@decoys=10": 4, "scripted-good@decoys=30": 4, "scripted-good@decoys=60": 4,
		"scripted-weak@": 4, "scripted-weak@decoys=10": 4, "scripted-weak@decoys=30": 2,
	}
	if !reflect.DeepEqual(pass, want) {
		t.Errorf("passes %v, want %v (the weak model degrades with the count)", pass, want)
	}

	rd, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	meta := rd.Run
	var names []string
	drawn := map[string][]string{}
	for _, c := range meta.Catalogs {
		names = append(names, c.Variant)
		var tools api.Tools
		if err := json.Unmarshal(c.Tools, &tools); err != nil {
			t.Fatal(err)
		}
		n := map[string]int{"": 0, "decoys=10": 10, "decoys=30": 30, "decoys=60": 60}[c.Variant]
		if len(tools) != 3+n || len(c.Decoys) != n {
			t.Errorf("%s: %d tools, %d decoys recorded", c.Variant, len(tools), len(c.Decoys))
		}
		if got := c.Sweep; !reflect.DeepEqual(got, map[string]any{"decoys": float64(n)}) {
			t.Errorf("%s: sweep %v", c.Variant, got)
		}
		drawn[c.Variant] = c.Decoys
	}
	if !slices.Equal(names, []string{"", "decoys=10", "decoys=30", "decoys=60"}) {
		t.Errorf("catalogs %v", names)
	}
	// The larger draws add tools to the smaller ones, in the same order.
	for _, pair := range [][2]string{{"decoys=10", "decoys=30"}, {"decoys=30", "decoys=60"}} {
		small, big := drawn[pair[0]], drawn[pair[1]]
		var kept []string
		for _, d := range big {
			if slices.Contains(small, d) {
				kept = append(kept, d)
			}
		}
		if !slices.Equal(kept, small) {
			t.Errorf("%s %v is not %s less its later decoys (%v)", pair[0], small, pair[1], big)
		}
	}

	// Judged again offline, from run.json's catalogs, a decoy is still one.
	again := filepath.Join(t.TempDir(), "rescored")
	if r := runCLI(t, context.Background(), "rescore", dir, "--suite", suitePath, "--out", again); r.err != nil {
		t.Fatalf("rescore: %v\n%s", r.err, r.stderr)
	}
	decoyCalls := 0
	for _, tr := range readTrialsAll(t, again) {
		if strings.HasPrefix(tr.Score.Detail, "called decoy ") {
			decoyCalls++
		}
	}
	if decoyCalls != 2+4 {
		t.Errorf("rescored: %d trials name a decoy, want 6", decoyCalls)
	}

	// Another grid: the run's variants are no longer the suite's.
	os.WriteFile(suitePath, []byte(strings.Replace(mustRead(t, suitePath), "[0, 10, 30, 60]", "[0, 10, 30]", 1)), 0o644)
	r = runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "its trials would not be comparable") {
		t.Errorf("resume with another grid: code %d err %v", r.code, r.err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A named variant's options and think are recorded and part of its
// catalog's hash: a resume after they changed is refused.
func TestResumeRefusesChangedVariantOptions(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suitePath := sweepSuite(t, func(s string) string {
		s = strings.Replace(s, "sweep: {decoys: [0, 10, 30, 60]}", "sweep: {decoys: [0, 10, 30, 60]}\nvariants:\n  - {name: ctx, think: false, options: {num_ctx: 4096}}", 1)
		return strings.Replace(s, "models: [scripted-good, scripted-weak]", "models: [scripted-good]", 1)
	})
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url, "--variants", "base,ctx")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	rd, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := rd.Run.Catalogs[1]
	if c.Variant != "ctx" || c.Think != "false" || !reflect.DeepEqual(c.Options, map[string]any{"num_ctx": float64(4096)}) || c.Sweep != nil || c.Decoys != nil {
		t.Errorf("catalog %+v", c)
	}
	if base := rd.Run.Catalogs[0]; base.Hash == c.Hash {
		t.Error("the variant's hash does not cover its options")
	}
	// The same tools with other options or think: another catalog, which
	// a resume refuses even when the suite's own hash would not tell.
	var tools api.Tools
	if err := json.Unmarshal(c.Tools, &tools); err != nil {
		t.Fatal(err)
	}
	for _, v := range []suite.Variant{
		{Think: "false", Options: map[string]any{"num_ctx": int64(8192)}},
		{Think: "true", Options: map[string]any{"num_ctx": int64(4096)}},
	} {
		now, err := toolbox.VariantCatalog("ctx", &v, staticTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		if err := toolbox.SameCatalogs(dir, rd.Run, []record.RunCatalog{now}); err == nil || !strings.Contains(err.Error(), "the catalog of variant ctx changed") {
			t.Errorf("%+v: SameCatalogs = %v", v, err)
		}
	}
	same, _ := toolbox.VariantCatalog("ctx", &suite.Variant{Think: "false", Options: map[string]any{"num_ctx": int64(4096)}}, staticTools(tools))
	if err := toolbox.SameCatalogs(dir, rd.Run, []record.RunCatalog{same}); err != nil {
		t.Errorf("the same options: %v", err)
	}
	if tr := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "ctx"); !strings.Contains(tr.stdout, `variant ctx sends think false and options {"num_ctx":4096} over the suite's`) {
		t.Errorf("tools --variant ctx:\n%s%v", tr.stdout, tr.err)
	}
	os.WriteFile(suitePath, []byte(strings.Replace(mustRead(t, suitePath), "num_ctx: 4096}", "num_ctx: 8192}", 1)), 0o644)
	r = runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "its trials would not be comparable") {
		t.Errorf("code %d err %v", r.code, r.err)
	}
}

// staticTools is a Toolbox offering tools and running nothing.
type staticTools api.Tools

func (s staticTools) OllamaTools() api.Tools { return api.Tools(s) }
func (s staticTools) Call(_ context.Context, name string, args json.RawMessage, id string) record.Execution {
	return record.Execution{CallID: id, Name: name, Arguments: args, IsError: true}
}

func TestToolsShowsADecoyVariant(t *testing.T) {
	t.Parallel()
	suitePath := sweepSuite(t, nil)
	r := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "decoys=30")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stdout, "33 tools,") || !strings.Contains(r.stdout, "decoy (web)") || !strings.Contains(r.stdout, "│ search ") {
		t.Errorf("tools --variant decoys=30:\n%s", r.stdout)
	}
	j := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "decoys=30", "--json")
	rd := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "decoys=30", "--json")
	if j.err != nil || j.stdout != rd.stdout {
		t.Errorf("two listings of one draw differ: %v", j.err)
	}
	var tools api.Tools
	if err := json.Unmarshal([]byte(toolsSent(t, j.stdout)), &tools); err != nil || len(tools) != 33 {
		t.Errorf("--json: %d tools, %v", len(tools), err)
	}
}

// A {servers: FILE} pool entry: that file's servers are listed once and
// their tools offered as decoys, never called.
func TestDecoysFromServers(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.yaml")
	text := "name: s\nservers: " + serversFile(t, "docs") + "\nmodels: [scripted-good]\n" +
		"decoys: [{servers: " + serversFile(t, "faulty") + "}]\n" +
		"variants: [{name: faulty2, decoys: 2}]\n" +
		"cases:\n  - {id: dog, ask: \"Can I bring my dog?\", expect: {tool: search}}\n"
	if err := os.WriteFile(suitePath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "faulty2")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stdout, "5 tools,") || strings.Count(r.stdout, "decoy (faulty)") != 2 {
		t.Errorf("tools --variant faulty2:\n%s", r.stdout)
	}
	out := filepath.Join(dir, "run")
	r = runCLI(t, context.Background(), "run", suitePath, "--out", out, "--ollama", url)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	rd, err := store.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if c := rd.Run.Catalogs[1]; c.Variant != "faulty2" || len(c.Decoys) != 2 || c.Sweep != nil {
		t.Errorf("catalog %+v", c)
	}
	for _, tr := range readTrialsAll(t, out) {
		if tr.Score.Outcome != record.OutcomePass {
			t.Errorf("%+v: %s %s", tr.Key(), tr.Score.Outcome, tr.Score.Detail)
		}
	}
}

// Without execution a decoy call is named from the catalog, live and when
// judged again from run.json.
func TestNoExecuteSweepNamesDecoys(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suitePath := sweepSuite(t, func(s string) string {
		return strings.Replace(s, "models: [scripted-good, scripted-weak]", "models: [scripted-weak]", 1)
	})
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url, "--no-execute", "--variants", "base,decoys=60"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	again := filepath.Join(t.TempDir(), "rescored")
	if r := runCLI(t, context.Background(), "rescore", dir, "--suite", suitePath, "--out", again); r.err != nil {
		t.Fatalf("rescore: %v\n%s", r.err, r.stderr)
	}
	for _, d := range []string{dir, again} {
		trials := readTrialsAll(t, d)
		if len(trials) != 8 {
			t.Fatalf("%s: %d trials", d, len(trials))
		}
		for _, tr := range trials {
			if tr.Variant == "" {
				continue // the base offers no decoys
			}
			if !tr.Transcript.NotExecuted || tr.Score.Outcome != record.OutcomeWrongTool || !strings.HasPrefix(tr.Score.Detail, "called decoy ") {
				t.Errorf("%s %+v: %s %q", d, tr.Key(), tr.Score.Outcome, tr.Score.Detail)
			}
		}
	}
}
