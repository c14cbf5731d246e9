package score

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// callNameREs pull the tool name out of the tag shapes that carry it outside
// any JSON: Llama's <function=NAME>, FunctionGemma's call:NAME{, Mistral's
// [TOOL_CALLS]NAME[ARGS], Llama 3.1's <|python_tag|>NAME.call(, DeepSeek's
// <|tool▁sep|>NAME and Kimi's functions.NAME:0.
var callNameREs = []*regexp.Regexp{
	regexp.MustCompile(`<function=([\w.\-]+)`),
	regexp.MustCompile(`<start_function_call>\s*call:([\w.\-]+)`),
	regexp.MustCompile(`(?i)\[tool_calls\]\s*([\w.\-]+)\s*\[args\]`),
	regexp.MustCompile(`<\|python_tag\|>\s*([\w.\-]+)\.call\(`),
	regexp.MustCompile(`tool▁sep\|>\s*([\w.\-]+)`),
	regexp.MustCompile(`functions\.([\w\-]+):\d+`),
}

// callPrefixNameRE is callPrefixRE with the name captured.
var callPrefixNameRE = regexp.MustCompile(`\{\s*["']name["']\s*:\s*["']([^"'\n]*)["']\s*,\s*["'](?:arguments|parameters)["']\s*:`)

// tagWindow is how far after a call tag a listed tool's name is looked for
// when the tag's shape names none the patterns above know.
const tagWindow = 200

// callNamesInText returns the tool names content writes calls to, in the
// shapes CallInText recognises, without repeats: the names tool-call tags
// carry, then the "name" of each JSON call (bare, fenced, nested or in a
// list). listed, when not nil, says which names are tools; after a tag
// whose shape carries no name it finds the first listed name written within
// tagWindow bytes.
func callNamesInText(content string, listed func(name string) bool) []string {
	var out []string
	add := func(n string) {
		if n == "" {
			return
		}
		for _, o := range out {
			if o == n {
				return
			}
		}
		out = append(out, n)
	}
	folded := strings.ReplaceAll(content, "｜", "|")
	for _, re := range callNameREs {
		for _, m := range re.FindAllStringSubmatch(folded, -1) {
			add(m[1])
		}
	}
	for _, m := range callPrefixNameRE.FindAllStringSubmatch(content, -1) {
		add(m[1])
	}
	tries := 0
	for i := 0; i < len(content) && tries < maxJSONTries; i++ {
		if content[i] != '{' && content[i] != '[' {
			continue
		}
		tries++
		var v any
		if json.NewDecoder(strings.NewReader(content[i:])).Decode(&v) == nil {
			for _, n := range jsonCallNames(v, 0) {
				add(n)
			}
		}
	}
	if listed == nil {
		return out
	}
	lower := strings.ToLower(folded)
	for _, tag := range callTags {
		for at := 0; ; {
			i := strings.Index(lower[at:], tag)
			if i < 0 {
				break
			}
			start := at + i + len(tag)
			end := min(start+tagWindow, len(folded))
			for _, w := range nameTokenRE.FindAllString(folded[start:end], -1) {
				if listed(w) {
					add(w)
					break
				}
			}
			at = start
		}
	}
	return out
}

// nameTokenRE is a word that could be a tool name.
var nameTokenRE = regexp.MustCompile(`[A-Za-z_][\w.\-]*`)

// jsonCallNames is isCall that collects the names of the calls found.
func jsonCallNames(v any, depth int) []string {
	if depth > 3 {
		return nil
	}
	var out []string
	switch x := v.(type) {
	case map[string]any:
		if n, ok := x["name"].(string); ok {
			_, args := x["arguments"]
			_, params := x["parameters"]
			if args || params {
				out = append(out, n)
			}
		}
		for _, k := range []string{"function", "tool_call", "tool_calls", "function_call"} {
			if w, ok := x[k]; ok {
				out = append(out, jsonCallNames(w, depth+1)...)
			}
		}
	case []any:
		for _, e := range x {
			out = append(out, jsonCallNames(e, depth+1)...)
		}
	}
	return out
}

// callInThinking returns the first listed tool that the thinking of a
// response of t writes a call to, for a trial that made no call: the model
// planned the call and never emitted it. A name is listed when the catalog
// resolves it; without a catalog, when the case expects a call to it.
func callInThinking(t *record.Transcript, e *suite.Expect, tools suite.Catalog) (string, bool) {
	listed := func(name string) bool {
		if tools != nil {
			_, ok := tools.Resolve(name)
			return ok
		}
		for _, w := range e.Calls {
			if name == w.Tool || (w.Exposed != "" && name == w.Exposed) {
				return true
			}
		}
		return false
	}
	for _, r := range t.Rounds {
		th := r.Response.Thinking
		if strings.TrimSpace(th) == "" || !CallInText(th) {
			continue
		}
		for _, n := range callNamesInText(th, listed) {
			if listed(n) {
				return n, true
			}
		}
	}
	return "", false
}

// thinkingDetail says which tool the thinking called, with the thinking
// around the first mention of its name.
func thinkingDetail(t *record.Transcript, name string) string {
	for _, r := range t.Rounds {
		th := r.Response.Thinking
		i := strings.Index(th, name)
		if i < 0 {
			continue
		}
		from := 0
		if i > 100 {
			// Start at a rune boundary, a little before the name.
			from = i - 100
			for from < i && !utf8.RuneStart(th[from]) {
				from++
			}
		}
		s := termtext.Excerpt(th[from:], 300)
		if from > 0 {
			s = "…" + s
		}
		return fmt.Sprintf("the thinking calls %s, but no call was made: %s", name, s)
	}
	return fmt.Sprintf("the thinking calls %s, but no call was made", name)
}
