package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// variantsSuite copies cases/docs-variants.yaml into a temporary folder,
// its servers this test binary's docs server, with one more variant,
// branch, whose own servers file runs the same server under the name
// branch. It returns the suite and the branch's servers file.
func variantsSuite(t *testing.T) (suitePath, branchServers string) {
	t.Helper()
	b, err := os.ReadFile("../../cases/docs-variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	branch, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"branch": map[string]any{"command": self, "args": []string{"fake-mcp", "docs"}, "env": selfEnv(mainEnv)},
	}})
	branchServers = filepath.Join(dir, "branch.json")
	if err := os.WriteFile(branchServers, branch, 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "servers: servers/docs.json", "servers: "+serversFile(t, "docs"), 1)
	text = strings.Replace(text, "variants:\n", "variants:\n  - {name: branch, servers: branch.json}\n", 1)
	if !strings.Contains(text, "name: branch") || !strings.Contains(text, "fake-mcp") && !strings.Contains(text, "servers.json") {
		t.Fatal("cases/docs-variants.yaml no longer has servers: servers/docs.json and variants:")
	}
	suitePath = filepath.Join(dir, "docs-variants.yaml")
	if err := os.WriteFile(suitePath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return suitePath, branchServers
}

// readTrialsAll reads every trial of dir.
func readTrialsAll(t *testing.T, dir string) []*record.Trial {
	t.Helper()
	var out []*record.Trial
	if err := readTrials(dir, os.Stderr, func(tr *record.Trial) { out = append(out, tr) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRunWithVariantsIsPairedAndResumesExactly(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suitePath, _ := variantsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url, "--repeat", "2")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	full := readTrialsAll(t, dir)
	// 5 cases × 2 models × 3 variants × 2 repeats.
	if len(full) != 60 {
		t.Fatalf("%d trials, want 60", len(full))
	}
	seeds := map[record.TrialKey]int64{}
	outcome := map[string]string{}
	for _, tr := range full {
		seeds[tr.Key()] = tr.Seed
		if tr.Seed != 42+int64(tr.Repeat) {
			t.Errorf("%+v: seed %d", tr.Key(), tr.Seed)
		}
		if tr.Repeat == 0 {
			outcome[tr.Model+"/"+tr.Variant+"/"+tr.CaseID] = tr.Score.Outcome
		}
		for _, ex := range tr.Transcript.Executions() {
			want := "docs"
			if tr.Variant == "branch" {
				want = "branch"
			}
			if ex.Server != want {
				t.Errorf("%+v: a call ran on server %q, want %q", tr.Key(), ex.Server, want)
			}
		}
	}
	// The demo's weak model opens the right document only with the clearer
	// description; the controls do not move.
	for k, want := range map[string]string{
		"scripted-weak//faq-in-full":              record.OutcomeWrongTool,
		"scripted-weak/explicit-get/faq-in-full":  record.OutcomePass,
		"scripted-weak//menu-in-full":             record.OutcomeWrongArgs,
		"scripted-weak/explicit-get/menu-in-full": record.OutcomePass,
		"scripted-weak/branch/menu-in-full":       record.OutcomeWrongArgs,
		"scripted-weak//dog":                      record.OutcomeInvalidArgs,
		"scripted-weak/explicit-get/dog":          record.OutcomeInvalidArgs,
		"scripted-good/explicit-get/faq-in-full":  record.OutcomePass,
	} {
		if outcome[k] != want {
			t.Errorf("%s: %s, want %s", k, outcome[k], want)
		}
	}
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range meta.Catalogs {
		names = append(names, c.Variant)
	}
	if fmt.Sprint(names) != "[ branch explicit-get]" || meta.Catalogs[0].Hash != meta.CatalogHash {
		t.Fatalf("catalogs %v, base hash %.12s, catalog hash %.12s", names, meta.Catalogs[0].Hash, meta.CatalogHash)
	}
	if !bytes.Contains(meta.Catalogs[2].Tools, []byte("never search")) || bytes.Contains(meta.Catalogs[0].Tools, []byte("never search")) {
		t.Error("run.json does not hold each variant's own tools")
	}
	// What run.json recorded is what `tools --variant` shows. run.json is
	// indented; compacted, its tools are the bytes sent.
	tj := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "explicit-get", "--json")
	var sent bytes.Buffer
	if err := json.Compact(&sent, meta.Catalogs[2].Tools); err != nil {
		t.Fatal(err)
	}
	if tj.err != nil || toolsSent(t, tj.stdout) != sent.String() {
		t.Errorf("tools --variant --json (err %v) differs from run.json:\n%s\n---\n%s", tj.err, tj.stdout, sent.String())
	}

	// Cut the trials file part-way, through a line, as a killed run leaves it.
	path := filepath.Join(dir, record.TrialsFile)
	data, _ := os.ReadFile(path)
	cut := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for i := 0; i < 23 && sc.Scan(); i++ {
		cut += len(sc.Bytes()) + 1
	}
	if err := os.WriteFile(path, data[:cut+40], 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("resume: %v\n%s", r.err, r.stderr)
	}
	keys := readTrialKeys(t, dir)
	if len(keys) != 60 {
		t.Errorf("%d distinct trials after resuming, want 60", len(keys))
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("trial %+v appears %d times", k, n)
		}
	}
	for _, tr := range readTrialsAll(t, dir) {
		if want, ok := seeds[tr.Key()]; !ok || tr.Seed != want {
			t.Errorf("%+v: seed %d after resume, want %d", tr.Key(), tr.Seed, want)
		}
	}
	if r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url, "--variants", "base"); r.code != exitUsage {
		t.Errorf("--variants on resume: code %d err %v", r.code, r.err)
	}
}

func TestRunVariantsSubset(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suitePath, _ := variantsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url, "--models", "scripted-weak", "--variants", "explicit-get")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	trials := readTrialsAll(t, dir)
	if len(trials) != 5 {
		t.Errorf("%d trials, want 5", len(trials))
	}
	for _, tr := range trials {
		if tr.Variant != "explicit-get" {
			t.Errorf("%+v ran; only explicit-get was asked for", tr.Key())
		}
	}
	meta, _ := record.ReadRun(dir)
	if len(meta.Catalogs) != 1 || meta.Catalogs[0].Variant != "explicit-get" {
		t.Errorf("catalogs %+v", meta.Catalogs)
	}
	dir2 := filepath.Join(t.TempDir(), "run")
	r = runCLI(t, context.Background(), "run", suitePath, "--out", dir2, "--ollama", url, "--models", "scripted-weak", "--variants", "branch,base")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	got := map[string]int{}
	for _, tr := range readTrialsAll(t, dir2) {
		got[tr.Variant]++
	}
	if fmt.Sprint(got) != "map[:5 branch:5]" {
		t.Errorf("trials by variant %v", got)
	}
	if meta, _ := record.ReadRun(dir2); len(meta.Catalogs) != 2 || meta.Catalogs[0].Variant != "" || meta.Catalogs[1].Variant != "branch" {
		t.Errorf("catalogs %+v: the base is not first", meta.Catalogs)
	}
	if first := readTrialsAll(t, dir2)[0]; first.Variant != "" {
		t.Errorf("the first trial ran variant %q, not the base", first.Variant)
	}
	// A variant that names the suite's own servers file uses the base's
	// connection, its overlays checked against it.
	b, _ := os.ReadFile(suitePath)
	base := regexp.MustCompile(`(?m)^servers: (.*)$`).FindSubmatch(b)[1]
	same := strings.Replace(string(b), "variants:\n", "variants:\n  - {name: same, servers: "+string(base)+", tools: {search: {description: Same file.}}}\n", 1)
	os.WriteFile(suitePath, []byte(same), 0o644)
	dir3 := filepath.Join(t.TempDir(), "run")
	r = runCLI(t, context.Background(), "run", suitePath, "--out", dir3, "--ollama", url, "--models", "scripted-good", "--variants", "same")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if meta, _ := record.ReadRun(dir3); len(meta.Catalogs) != 1 || !bytes.Contains(meta.Catalogs[0].Tools, []byte("Same file.")) {
		t.Errorf("catalogs %+v", meta.Catalogs)
	}
	r = runCLI(t, context.Background(), "run", suitePath, "--out", filepath.Join(t.TempDir(), "x"), "--ollama", url, "--variants", "explicit-gte")
	if r.code != exitUsage || !strings.Contains(r.err.Error(), `unknown variant "explicit-gte" (did you mean "explicit-get"?)`) {
		t.Errorf("code %d err %v", r.code, r.err)
	}
}

// A resume refuses a run whose variant's catalog changed, naming it.
func TestResumeRefusesAChangedVariantCatalog(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suitePath, branchServers := variantsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url, "--models", "scripted-good")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	// The branch build loses a tool that no case expects.
	var cfg map[string]map[string]map[string]any
	b, _ := os.ReadFile(branchServers)
	json.Unmarshal(b, &cfg)
	cfg["mcpServers"]["branch"]["toolFilter"] = map[string]any{"mode": "exclude", "tools": []string{"list_documents"}}
	b, _ = json.Marshal(cfg)
	os.WriteFile(branchServers, b, 0o644)
	r = runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "the catalog of variant branch changed since the run in "+dir+" began") {
		t.Errorf("code %d err %v", r.code, r.err)
	}
}

func TestVariantLoadErrors(t *testing.T) {
	t.Parallel()
	fake, url := fakeOllama(t, nil)
	dir := t.TempDir()
	servers := serversFile(t, "docs")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	head := "name: x\nservers: " + servers + "\nmodels: [scripted-good]\n"
	cases := "cases:\n  - {id: a, ask: hi, expect: {tool: list_documents}}\n"
	tool := write("tool.yaml", head+"variants:\n  - name: v\n    tools:\n      get_documnet: {description: x}\n"+cases)
	param := write("param.yaml", head+"variants:\n  - name: v\n    tools:\n      search: {params: {qurey: x}}\n"+cases)
	missing := write("missing.yaml", head+"variants:\n  - name: v\n    servers: empty.json\n"+cases)
	write("empty.json", `{"mcpServers": {"d": {"command": "`+os.Args[0]+`", "args": ["fake-mcp", "docs"], "env": {"`+mainEnv+`": "1", "GORACE": "`+raceQuickExit()+`"}, "toolFilter": {"mode": "exclude", "tools": ["list_documents"]}}}}`)
	for _, tc := range []struct {
		file, want string
	}{
		{tool, tool + `:7:7: variants[0].tools.get_documnet: unknown tool "get_documnet" (did you mean "get_document"? tools: `},
		{param, param + `:7:25: variants[0].tools.search.params.qurey: unknown parameter "qurey" of search (did you mean "query"?)`},
		{missing, missing + `:8:37: cases[0].expect.tool: variant v: its servers (` + filepath.Join(dir, "empty.json") + `): unknown tool "list_documents"`},
	} {
		r := runCLI(t, context.Background(), "run", tc.file, "--out", filepath.Join(dir, "out"), "--ollama", url)
		if r.code != exitUsage || !strings.Contains(r.err.Error(), tc.want) {
			t.Errorf("code %d, error\n%v\nwant\n%s", r.code, r.err, tc.want)
		}
		tr := runCLI(t, context.Background(), "tools", "--suite", tc.file, "--variant", "v")
		if tc.file != missing && (tr.code != exitUsage || !strings.Contains(tr.err.Error(), tc.want)) {
			t.Errorf("tools: code %d, error %v", tr.code, tr.err)
		}
	}
	for _, req := range fake.Requests() {
		if req.Chat != nil {
			t.Errorf("a chat request was sent for a bad suite: %s", req.Body)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("a run directory was made for a bad suite")
	}
}

func TestToolsShowsAVariantsCatalog(t *testing.T) {
	t.Parallel()
	suitePath, _ := variantsSuite(t)
	base := runCLI(t, context.Background(), "tools", "--suite", suitePath)
	v := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "explicit-get")
	if base.err != nil || v.err != nil {
		t.Fatalf("%v %v\n%s%s", base.err, v.err, base.stderr, v.stderr)
	}
	if !strings.Contains(v.stdout, "Return the full text of one document: faq.txt, menu.txt or") || strings.Contains(base.stdout, "faq.txt, menu.txt or") {
		t.Errorf("the variant's description is not shown:\n%s\n---\n%s", v.stdout, base.stdout)
	}
	if !strings.Contains(base.stdout, "Return the full text of one document from the restaurant") {
		t.Errorf("base:\n%s", base.stdout)
	}
	named := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "base")
	if named.stdout != base.stdout {
		t.Errorf("--variant base differs from no --variant:\n%s", named.stdout)
	}
	bj := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--json")
	vj := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "explicit-get", "--json")
	if bj.stdout == vj.stdout || !strings.Contains(vj.stdout, "including the .txt extension") {
		t.Errorf("--json:\n%s\n---\n%s", bj.stdout, vj.stdout)
	}
	if r := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "explict-get"); r.code != exitUsage || !strings.Contains(r.err.Error(), `did you mean "explicit-get"?`) {
		t.Errorf("code %d err %v", r.code, r.err)
	}
	if r := runCLI(t, context.Background(), "tools", "--servers", serversFile(t, "docs"), "--variant", "x"); r.code != exitUsage || !strings.Contains(r.err.Error(), "--variant needs --suite") {
		t.Errorf("code %d err %v", r.code, r.err)
	}
}
