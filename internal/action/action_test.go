package action

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository's root: the action's own tree, GITHUB_ACTION_PATH.
var root, _ = filepath.Abs("../..")

// script is the action's script, run as action.yml's steps run it.
var script = filepath.Join(root, "action", "toolgrade-action.sh")

// binDir holds the toolgrade the script's install step built, once for all
// tests (TestMain), as the action installs it before every other step.
var binDir string

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "toolgrade-action-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		if err := install(tmp); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// install runs the script's install step and checks what it tells the
// runner: the bin directory on GITHUB_PATH and the binary as an output.
func install(tmp string) error {
	pathFile, outFile := filepath.Join(tmp, "path"), filepath.Join(tmp, "output")
	cmd := exec.Command("bash", script, "install")
	cmd.Env = append(os.Environ(), "GITHUB_ACTION_PATH="+root, "RUNNER_TEMP="+tmp,
		"GITHUB_PATH="+pathFile, "GITHUB_OUTPUT="+outFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("install: %v\n%s", err, out)
	}
	binDir = filepath.Join(tmp, "toolgrade-bin")
	if got, _ := os.ReadFile(pathFile); string(got) != binDir+"\n" {
		return fmt.Errorf("install: GITHUB_PATH = %q, want %q", got, binDir+"\n")
	}
	if got, _ := os.ReadFile(outFile); string(got) != "toolgrade="+binDir+"/toolgrade\n" {
		return fmt.Errorf("install: GITHUB_OUTPUT = %q", got)
	}
	return nil
}

// runner is one job's environment: the files GitHub gives a step and the
// variables naming them.
type runner struct {
	t                      *testing.T
	temp, summary, outputs string
	env                    []string
}

func newRunner(t *testing.T) *runner {
	t.Helper()
	temp := t.TempDir()
	r := &runner{t: t, temp: temp,
		summary: filepath.Join(temp, "step_summary.md"), outputs: filepath.Join(temp, "output")}
	r.env = append(os.Environ(),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_ACTIONS=true",
		"GITHUB_WORKSPACE="+root,
		"GITHUB_ACTION_PATH="+root,
		"GITHUB_REPOSITORY=octo/tools",
		"GITHUB_STEP_SUMMARY="+r.summary,
		"GITHUB_OUTPUT="+r.outputs,
		"RUNNER_TEMP="+temp,
		"TOOLGRADE_ACTION_POLL=0.05",
		"OLLAMA_HOST=", // only the action's input names Ollama
	)
	return r
}

// command is the script's step with the step's env (INPUT_*) added.
func (r *runner) command(step string, env ...string) *exec.Cmd {
	cmd := exec.Command("bash", script, step)
	cmd.Env = append(append([]string{}, r.env...), env...)
	return cmd
}

// step runs the script's step to its end: what it printed and its exit code.
func (r *runner) step(step string, env ...string) (string, int) {
	r.t.Helper()
	out, err := r.command(step, env...).CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		r.t.Fatalf("%s: %v", step, err)
	}
	return string(out), 0
}

// output is the step output name as GITHUB_OUTPUT holds it ("" when unset).
func (r *runner) output(name string) string {
	b, _ := os.ReadFile(r.outputs)
	val := ""
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, name+"="); ok {
			val = v
		}
	}
	return val
}

func (r *runner) stepSummary() string {
	b, _ := os.ReadFile(r.summary)
	return string(b)
}

// fakeOllama starts `toolgrade fake-ollama` on addr (127.0.0.1:0 for any
// port) and returns its URL; the test's end stops it.
func fakeOllama(t *testing.T, addr string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "toolgrade"), "fake-ollama", "--listen", addr)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Its first line says where it listens, once it does.
	line, err := bufio.NewReader(stderr).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "fake Ollama listening on ")
	if !ok {
		t.Fatalf("fake-ollama: %q %v", line, err)
	}
	go io.Copy(io.Discard, stderr)
	return url
}

func TestRunHoldsItsGates(t *testing.T) {
	r := newRunner(t)
	url := fakeOllama(t, "127.0.0.1:0")
	in := []string{"INPUT_OLLAMA=" + url, "INPUT_SUITE=cases/docs.yaml", "INPUT_MODELS=scripted-good"}
	for _, step := range []string{"wait", "pull"} {
		if out, code := r.step(step, in...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", step, code, out)
		}
	}
	dir := filepath.Join(r.temp, "run")
	out, code := r.step("run", append(in, "INPUT_OUT="+dir, "INPUT_GATES=pass>=0.9\n  selection>=0.9\n")...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "::error") {
		t.Errorf("a run whose gates held annotated an error:\n%s", out)
	}
	for name, want := range map[string]string{"run-dir": dir, "report": dir + "/report.html", "exit-code": "0"} {
		if got := r.output(name); got != want {
			t.Errorf("output %s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Error(err)
	}
	sum := r.stepSummary()
	for _, want := range []string{"## toolgrade report: docs", "| scripted-good | 25 | 100%", "### Gates",
		":white_check_mark: held: scripted-good pass 100%", ":white_check_mark: held: scripted-good tool_selection 100%"} {
		if !strings.Contains(sum, want) {
			t.Errorf("step summary lacks %q:\n%s", want, sum)
		}
	}
}

func TestFailingGateExits4WithAnAnnotation(t *testing.T) {
	r := newRunner(t)
	url := fakeOllama(t, "127.0.0.1:0")
	dir := filepath.Join(r.temp, "run")
	out, code := r.step("run", "INPUT_OLLAMA="+url, "INPUT_SUITE=cases/docs.yaml",
		"INPUT_MODELS=scripted-good, scripted-weak", "INPUT_GATES=pass>=0.9", "INPUT_OUT="+dir)
	if code != 4 {
		t.Fatalf("run: exit %d, want 4\n%s", code, out)
	}
	var errs []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "::error") {
			errs = append(errs, l)
		}
	}
	// % is escaped as %25: GitHub decodes the message back to the gate's line.
	want := "::error title=toolgrade gate::gate failed: scripted-weak pass 44%25 [26–63] < 90%25"
	if len(errs) != 1 || errs[0] != want {
		t.Errorf("annotations %q, want just %q", errs, want)
	}
	if got := r.output("exit-code"); got != "4" {
		t.Errorf("output exit-code = %q, want 4", got)
	}
	if got := r.output("report"); got != dir+"/report.html" {
		t.Errorf("output report = %q: a failed gate still leaves the report to upload", got)
	}
	sum := r.stepSummary()
	for _, want := range []string{":x: failed: scripted-weak pass 44%", ":white_check_mark: held: scripted-good pass 100%"} {
		if !strings.Contains(sum, want) {
			t.Errorf("step summary lacks %q:\n%s", want, sum)
		}
	}
}

// TestWaitForALateOllama starts the wait step before Ollama listens, and
// Ollama only once the step has said it is waiting.
func TestWaitForALateOllama(t *testing.T) {
	r := newRunner(t)
	addr := freeAddr(t)
	cmd := r.command("wait", "INPUT_OLLAMA="+addr, "INPUT_OLLAMA_WAIT=600")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() || lines.Text() != "waiting for Ollama at http://"+addr+" ..." {
		t.Fatalf("wait's first line: %q", lines.Text())
	}
	fakeOllama(t, addr)
	go io.Copy(io.Discard, stderr)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("wait: %v\n%s", err, stdout.String())
	}
	if want := "Ollama at http://" + addr + `: {"version":`; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("wait said %q, want it to start %q", stdout.String(), want)
	}
}

func TestWaitGivesUp(t *testing.T) {
	r := newRunner(t)
	addr := freeAddr(t)
	out, code := r.step("wait", "INPUT_OLLAMA=http://"+addr+"/", "INPUT_OLLAMA_WAIT=0")
	want := "::error title=toolgrade::Ollama at http://" + addr + " did not answer /api/version within 0s"
	if code != 2 || !strings.Contains(out, want) {
		t.Errorf("exit %d, output:\n%s\nwant exit 2 and %q", code, out, want)
	}
}

// freeAddr is a loopback address nothing listens on (a port the kernel gave
// and took back).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestPullTheSuitesModels(t *testing.T) {
	r := newRunner(t)
	url := fakeOllama(t, "127.0.0.1:0")
	block := filepath.Join(r.temp, "suite.yaml")
	os.WriteFile(block, []byte("name: x\nmodels:   # the two\n  - scripted-good\n  - \"scripted-weak\"  # weak\ncases: []\n"), 0o644)
	for _, suite := range []string{"cases/docs.yaml", block} {
		out, code := r.step("pull", "INPUT_OLLAMA="+url, "INPUT_SUITE="+suite)
		want := "pulling scripted-good from " + url + "\npulling scripted-weak from " + url + "\n"
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, output %q, want %q", suite, code, out, want)
		}
	}
	out, code := r.step("pull", "INPUT_OLLAMA="+url, "INPUT_SUITE="+block, "INPUT_MODELS=no-such-model")
	if code != 2 || !strings.Contains(out, "::error title=toolgrade::pulling no-such-model from "+url+" failed") {
		t.Errorf("pulling a model the fake does not have: exit %d\n%s", code, out)
	}
}

// fakeGH is a gh on PATH that logs its arguments, answers the artifacts API
// with artifacts.json through the real jq (so the action's filter is what
// picks the run) and "downloads" an artifact by copying the directory in
// FAKE_GH_ARTIFACT.
const fakeGH = `#!/usr/bin/env bash
echo "$*" >>"$FAKE_GH_LOG"
case $1 in
api) jq -r "$4" "$FAKE_GH_API" ;;
run)
	while [ $# -gt 0 ]; do [ "$1" = --dir ] && dir=$2; shift; done
	mkdir -p "$dir" && cp -R "$FAKE_GH_ARTIFACT"/. "$dir" ;;
esac
`

// artifacts is the artifacts API's answer, newest first: a fork's main, an
// expired one, a pull request's branch, then the one to take.
const artifacts = `{"artifacts": [
 {"id": 1, "expired": false, "workflow_run": {"id": 9001, "head_branch": "main", "head_repository_id": 7, "repository_id": 1}},
 {"id": 2, "expired": true, "workflow_run": {"id": 9002, "head_branch": "main", "head_repository_id": 1, "repository_id": 1}},
 {"id": 3, "expired": false, "workflow_run": {"id": 9003, "head_branch": "feature", "head_repository_id": 1, "repository_id": 1}},
 {"id": 4, "expired": false, "workflow_run": {"id": 4242, "head_branch": "main", "head_repository_id": 1, "repository_id": 1}}
]}`

func TestBaselineFromTheDefaultBranch(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("the fake gh needs jq (apt-get install jq)")
	}
	url := fakeOllama(t, "127.0.0.1:0")
	in := []string{"INPUT_OLLAMA=" + url, "INPUT_SUITE=cases/docs.yaml", "INPUT_MODELS=scripted-good"}
	first := newRunner(t)
	base := filepath.Join(first.temp, "main-run")
	if out, code := first.step("run", append(in, "INPUT_OUT="+base)...); code != 0 {
		t.Fatalf("the default branch's run: exit %d\n%s", code, out)
	}

	r := newRunner(t)
	log := withFakeGH(t, r, artifacts, base)
	out, code := r.step("baseline", "INPUT_BASELINE=default-branch", "INPUT_DEFAULT_BRANCH=main", "INPUT_ARTIFACT_NAME=evals")
	if code != 0 {
		t.Fatalf("baseline: exit %d\n%s", code, out)
	}
	calls, _ := os.ReadFile(log)
	if got, want := strings.Split(string(calls), "\n")[1], "run download 4242 --repo octo/tools --name evals --dir "+r.temp+"/toolgrade-baseline"; got != want {
		t.Errorf("gh %s, want gh %s (all calls:\n%s)", got, want, calls)
	}
	if !strings.HasPrefix(string(calls), "api repos/octo/tools/actions/artifacts?name=evals&per_page=100 --jq ") {
		t.Errorf("gh calls:\n%s", calls)
	}
	baseDir := r.output("baseline-dir")
	if baseDir != r.temp+"/toolgrade-baseline" || r.output("baseline-run-id") != "4242" {
		t.Fatalf("outputs baseline-dir %q, baseline-run-id %q", baseDir, r.output("baseline-run-id"))
	}

	cur := filepath.Join(r.temp, "pr-run")
	out, code = r.step("run", append(in, "INPUT_OUT="+cur, "INPUT_BASELINE_DIR="+baseDir)...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, " --baseline "+baseDir+" --max-regressions 0") {
		t.Errorf("the run was not given the baseline:\n%s", out)
	}
	sum := r.stepSummary()
	for _, want := range []string{"### Compared with the baseline", "toolgrade compare BASELINE CURRENT",
		":white_check_mark: held: scripted-good regressions 0 <= 0"} {
		if !strings.Contains(sum, want) {
			t.Errorf("step summary lacks %q:\n%s", want, sum)
		}
	}
	if page := r.output("compare-report"); page != cur+"-compare.html" {
		t.Errorf("output compare-report = %q", page)
	} else if b, err := os.ReadFile(page); err != nil || !bytes.Contains(b, []byte("<html")) {
		t.Errorf("the comparison page: %v", err)
	}
}

func TestNoBaselineYet(t *testing.T) {
	r := newRunner(t)
	withFakeGH(t, r, artifacts, "")
	out, code := r.step("baseline", "INPUT_BASELINE=default-branch", "INPUT_DEFAULT_BRANCH=trunk")
	if code != 0 || !strings.Contains(out, "::notice title=toolgrade::no artifact toolgrade-run from trunk yet") {
		t.Errorf("exit %d\n%s", code, out)
	}
	out, code = r.step("baseline", "INPUT_BASELINE="+r.temp)
	if code != 0 || !strings.Contains(out, "::warning title=toolgrade::baseline "+r.temp+" holds no run") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if got := r.output("baseline-dir"); got != "" {
		t.Errorf("output baseline-dir = %q with no baseline", got)
	}
}

// TestAShardsGateWarns: a shard judges the gates on its own trials, so a
// failed one is a warning and the merge's gate decides.
func TestAShardsGateWarns(t *testing.T) {
	r := newRunner(t)
	url := fakeOllama(t, "127.0.0.1:0")
	out, code := r.step("run", "INPUT_OLLAMA="+url, "INPUT_SUITE=cases/docs.yaml", "INPUT_SHARD=1/2",
		"INPUT_GATES=pass>=0.9", "INPUT_OUT="+filepath.Join(r.temp, "shard-1"))
	if code != 0 {
		t.Fatalf("shard: exit %d, want 0\n%s", code, out)
	}
	if strings.Contains(out, "::error") || !strings.Contains(out, "::warning title=toolgrade gate::gate failed: scripted-weak pass") {
		t.Errorf("want the failed gate as a warning:\n%s", out)
	}
	if got := r.output("exit-code"); got != "4" {
		t.Errorf("output exit-code = %q, want toolgrade's 4", got)
	}
}

func TestCacheDir(t *testing.T) {
	r := newRunner(t)
	home := t.TempDir()
	r.env = append(r.env, "HOME="+home)
	if out, code := r.step("cache-dir", "INPUT_MODELS_CACHE=~/.ollama/models"); code != 0 || out != "" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if fi, err := os.Stat(filepath.Join(home, ".ollama", "models")); err != nil || !fi.IsDir() {
		t.Fatalf("the models directory: %v", err)
	}

	// A directory the runner cannot make (here: a file in its way, as a
	// root-owned mount would be) is made and handed over with sudo.
	home = t.TempDir()
	os.WriteFile(filepath.Join(home, ".ollama"), nil, 0o644)
	sudoDir := t.TempDir()
	log := filepath.Join(sudoDir, "log")
	os.WriteFile(filepath.Join(sudoDir, "sudo"), []byte("#!/bin/sh\necho \"$*\" >>\"$SUDO_LOG\"\n"), 0o755)
	r.env = append(r.env, "HOME="+home, "SUDO_LOG="+log, "PATH="+sudoDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, code := r.step("cache-dir", "INPUT_MODELS_CACHE=~/.ollama/models"); code != 0 || out != "" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	got, _ := os.ReadFile(log)
	want := fmt.Sprintf("-n mkdir -p %[1]s/.ollama/models\n-n chown -R %[2]d:%[3]d %[1]s/.ollama\n", home, os.Getuid(), os.Getgid())
	if string(got) != want {
		t.Errorf("sudo ran\n%s\nwant\n%s", got, want)
	}
}

// TestMergeShards runs two shards through the action, then merges them with
// it, where the gates (and the baseline) are judged on the whole run.
func TestMergeShards(t *testing.T) {
	url := fakeOllama(t, "127.0.0.1:0")
	shards := t.TempDir()
	for _, i := range []string{"0", "1"} {
		r := newRunner(t)
		if out, code := r.step("run", "INPUT_OLLAMA="+url, "INPUT_SUITE=cases/docs.yaml", "INPUT_SHARD="+i+"/2",
			"INPUT_OUT="+filepath.Join(shards, "shard-"+i)); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", i, code, out)
		}
	}
	r := newRunner(t)
	merged := filepath.Join(r.temp, "merged")
	out, code := r.step("run", "INPUT_MERGE="+shards+"/shard-*", "INPUT_OUT="+merged,
		"INPUT_GATES=pass>=0.9", "INPUT_BASELINE_DIR="+filepath.Join(shards, "shard-0"))
	if code != 4 {
		t.Fatalf("merge: exit %d, want 4\n%s", code, out)
	}
	for _, want := range []string{
		"toolgrade merge " + merged + " " + shards + "/shard-0 " + shards + "/shard-1\n",
		"::error title=toolgrade gate::gate failed: scripted-weak pass 44%25 [26–63] < 90%25",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("merge's output lacks %q:\n%s", want, out)
		}
	}
	if r.output("report") != merged+"/report.html" || r.output("exit-code") != "4" {
		t.Errorf("outputs report %q, exit-code %q", r.output("report"), r.output("exit-code"))
	}
	sum := r.stepSummary()
	for _, want := range []string{"## toolgrade report: docs", "| scripted-weak | 25 | 44%",
		":x: failed: scripted-weak pass 44%", "### Compared with the baseline",
		":white_check_mark: held: scripted-weak regressions 0 <= 0"} {
		if !strings.Contains(sum, want) {
			t.Errorf("step summary lacks %q:\n%s", want, sum)
		}
	}
}

func TestRunWithoutASuite(t *testing.T) {
	r := newRunner(t)
	out, code := r.step("run", "INPUT_OUT="+filepath.Join(r.temp, "run"))
	if code != 2 || !strings.HasPrefix(out, "::error title=toolgrade::the suite input is empty") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestRunWithoutOllama: an exit other than a gate's is an error annotation
// carrying toolgrade's own lines, and the step fails with toolgrade's code.
func TestRunWithoutOllama(t *testing.T) {
	r := newRunner(t)
	out, code := r.step("run", "INPUT_OLLAMA="+freeAddr(t), "INPUT_SUITE=cases/docs.yaml",
		"INPUT_OUT="+filepath.Join(r.temp, "run"), "INPUT_ARGS=--ollama-timeout 5s")
	if code != 3 || !strings.Contains(out, "::error title=toolgrade::toolgrade run exited 3: toolgrade: ") {
		t.Errorf("exit %d, want 3 with an error annotation\n%s", code, out)
	}
	if r.output("exit-code") != "3" || r.output("report") != "" {
		t.Errorf("outputs exit-code %q, report %q", r.output("exit-code"), r.output("report"))
	}
}
