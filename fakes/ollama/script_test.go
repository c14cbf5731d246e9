package fakeollama

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseScriptFields(t *testing.T) {
	s, err := ParseScript([]byte(`
models:
  - name: m1
    capabilities: [completion, tools, thinking]
    think_levels: [high]
    family: qwen3
    parameter_size: 7.6B
    quantization: Q8_0
    num_ctx: 4096
latency: 150ms
rules:
  - model: m1:latest
    round: 2
    user: {contains: Dog, regex: '^can', equals: can I bring my dog}
    tool_result: {contains: terrace}
    tools_offered: true
    latency: 20ms
    fault: error_mid_stream
    error: boom
    reply:
      thinking: hmm
      content: yes
      chunks: 3
      done_reason: length
      tool_calls:
        - {name: search, arguments: {z: 1, a: "two", m: [1, 2], n: {k: v}}}
fallback: {content: no idea}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Latency != 150*time.Millisecond || len(s.Models) != 1 || s.Models[0].NumCtx != 4096 || s.Models[0].ThinkLevels[0] != "high" {
		t.Errorf("script %+v", s)
	}
	r := s.Rules[0]
	if r.Latency == nil || *r.Latency != 20*time.Millisecond || r.ToolsOffered == nil || !*r.ToolsOffered ||
		r.Round != 2 || r.Fault != FaultErrorMidStream || r.Error != "boom" || r.User.Regex != "^can" || r.ToolResult.Contains != "terrace" {
		t.Errorf("rule %+v", r)
	}
	args := r.Reply.ToolCalls[0].Arguments
	var keys []string
	for _, a := range args {
		keys = append(keys, a.Key)
	}
	if strings.Join(keys, ",") != "z,a,m,n" {
		t.Errorf("argument order %v, want z,a,m,n", keys)
	}
	if s.Fallback == nil || s.Fallback.Content != "no idea" {
		t.Errorf("fallback %+v", s.Fallback)
	}
}

func TestParseScriptErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown field", "models:\n  - name: m\nrules:\n  - usr: {contains: x}\n", []string{`t.yaml:4:5: rules[0]: unknown field "usr" (did you mean "user"?)`}},
		{"unknown nested field", "models:\n  - name: m\nrules:\n  - user: {contians: x}\n", []string{`t.yaml:4:12: rules[0].user: unknown field "contians" (did you mean "contains"?)`}},
		{"syntax", "models:\n  - name: m\n rules: [\n", []string{"t.yaml:3:2: YAML: did not find expected key", "\n    3 |  rules: [\n      |  ^"}},
		{"wrong type", "models:\n  - name: m\nlatency: soon\n", []string{"t.yaml:3:"}},
		{"bad regex", "models:\n  - name: m\nrules:\n  - user: {regex: 'a('}\n", []string{"t.yaml:4:19:", "rules[0].user.regex", "missing closing )"}},
		{"empty matcher", "models:\n  - name: m\nrules:\n  - tool_result: {}\n", []string{"t.yaml:4:18:", "rules[0].tool_result: give contains, regex or equals"}},
		{"unknown fault", "models:\n  - name: m\nrules:\n  - fault: explode\n", []string{"t.yaml:4:12:", `unknown fault "explode"`, "http_500"}},
		{"undeclared model", "models:\n  - name: m\nrules:\n  - model: other\n", []string{"t.yaml:4:12:", `model "other" is not declared`}},
		{"unknown capability", "models:\n  - name: m\n    capabilities: [completion, telepathy]\n", []string{"t.yaml:3:32:", `unknown capability "telepathy"`}},
		{"duplicate model", "models:\n  - name: m\n  - name: M:latest\n", []string{"t.yaml:3:11:", "also declared"}},
		{"no models", "rules: []\n", []string{"t.yaml:1:1:", "declare at least one model"}},
		{"bad done reason", "models:\n  - name: m\nrules:\n  - reply: {done_reason: tool_calls}\n", []string{"t.yaml:4:26:", `"tool_calls" is not stop or length`}},
		{"arguments not a mapping", "models:\n  - name: m\nrules:\n  - reply:\n      tool_calls:\n        - {name: s, arguments: [1, 2]}\n", []string{"t.yaml:6:32:", "arguments must be a mapping"}},
		{"argument twice", "models:\n  - name: m\nrules:\n  - reply:\n      tool_calls:\n        - {name: s, arguments: {a: 1, a: 2}}\n", []string{"t.yaml:6:", `"a"`}},
		{"negative latency", "models:\n  - name: m\nrules:\n  - latency: -1s\n", []string{"t.yaml:4:14:", "must not be negative"}},
		{"empty", "", []string{"t.yaml: empty script"}},
		{"unknown field far from any", "models:\n  - name: m\n    zzzz: 1\n", []string{`t.yaml:3:5: models[0]: unknown field "zzzz" (known fields: name, capabilities,`}},
		{"tools_count empty", "models:\n  - name: m\nrules:\n  - tools_count: {}\n", []string{"t.yaml:4:18: rules[0].tools_count: give min, max or both"}},
		{"tools_count reversed", "models:\n  - name: m\nrules:\n  - tools_count: {min: 30, max: 10}\n", []string{"t.yaml:4:33: rules[0].tools_count.max: is less than min (30)"}},
		{"tools_count negative", "models:\n  - name: m\nrules:\n  - tools_count: {min: -1}\n", []string{"t.yaml:4:24: rules[0].tools_count.min: must not be negative"}},
		{"seed empty", "models:\n  - name: m\nrules:\n  - seed: {}\n", []string{"t.yaml:4:11: rules[0].seed: give min, max or both"}},
		{"seed reversed", "models:\n  - name: m\nrules:\n  - seed: {min: 9, max: 3}\n", []string{"rules[0].seed.max: is less than min (9)"}},
		{"tools_count typo", "models:\n  - name: m\nrules:\n  - tools_count: {mni: 3}\n", []string{"t.yaml:4:19:", `unknown field "mni"`}},
		{"every problem at once", "models:\n  - name: m\nrules:\n  - round: -1\n    fault: explode\n", []string{"t.yaml:4:12: rules[0].round: must not be negative", "\nt.yaml:5:12: rules[0].fault:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseScript([]byte(c.yaml), "t.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadScript(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte("models:\n  - name: m\nrules:\n  - reply: {chunks: -1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadScript(p)
	if err == nil || !strings.HasPrefix(err.Error(), p+":4:") {
		t.Fatalf("error %v, want it to start with %s:4:", err, p)
	}
	if _, err := LoadScript(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Fatal("no error for a missing file")
	}
}

func TestCapturesScript(t *testing.T) {
	s, err := LoadScript("testdata/captures.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Models) != 4 || len(s.Rules) < 20 {
		t.Fatalf("captures script has %d models and %d rules", len(s.Models), len(s.Rules))
	}
}

func TestDemoScript(t *testing.T) {
	s, err := DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scripted-good", "scripted-weak", "scripted-notools", "scripted-think"} {
		if !slices.ContainsFunc(s.Models, func(m Model) bool { return m.Name == name }) {
			t.Errorf("demo script has no model %s", name)
		}
	}
}

func TestValidateGoScript(t *testing.T) {
	bad := &Script{Models: []Model{{Name: "m"}}, Rules: []Rule{{User: &Matcher{Regex: "("}}}}
	err := bad.Validate()
	if err == nil || !strings.HasPrefix(err.Error(), "rules[0].user.regex:") {
		t.Fatalf("error %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("New accepted an invalid script")
		}
	}()
	New(bad, nil)
}

func TestCallHelper(t *testing.T) {
	c := Call("search", "query", "dog", "top_k", 5)
	if c.Name != "search" || len(c.Arguments) != 2 || c.Arguments[1] != (Arg{Key: "top_k", Value: 5}) {
		t.Fatalf("%+v", c)
	}
	defer func() {
		if recover() == nil {
			t.Error("odd arguments accepted")
		}
	}()
	Call("x", "key")
}

func TestSplitWords(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want []string
	}{
		{"Here is faq.txt.", 2, []string{"Here is", " faq.txt."}},
		{"The user asks about dogs.", 2, []string{"The user asks", " about dogs."}},
		{"Yes. Dogs are welcome on the terrace.", 3, []string{"Yes. Dogs are", " welcome on", " the terrace."}},
		{"Paris.", 3, []string{"Paris."}},
		{"  lead  and trail  ", 5, []string{"  lead", "  and", " trail  "}},
		{"one", 0, []string{"one"}},
	}
	for _, c := range cases {
		got := splitWords(c.s, c.n)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("splitWords(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
