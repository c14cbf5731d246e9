package tgtest_test

import (
	"fmt"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/harness/tgtest"
)

// A description that no longer says what the weather tool is for makes the
// scripted model call add for the weather: that case fails, saying what the
// model did; the case without an ID is named by its question.
func ExampleRun() {
	script, err := fakeollama.ParseScript([]byte(script), "script.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	t := newPrinter() // in a test: the test's *testing.T
	defer t.done()
	tgtest.Run(t, newServer("Returns data."), []tgtest.Case{
		{ID: "weather", Ask: "What is the weather in Paris?", Tool: "weather",
			Args: tgtest.Args{"city": tgtest.Contains("paris")}},
		{Ask: "Please add 2 and 3.", Tool: "add",
			Args: tgtest.Args{"a": tgtest.Equals(2), "b": tgtest.Number(3, 0.01)}},
	}, &tgtest.Options{Models: []string{"small"}, Fake: script})
	// Output:
	// --- FAIL: weather
	//     tgtest: small repeat 0: wrong_tool: got "add", want "weather"
	//       calls: add({"a":1,"b":2})
	//       answer: "It is sunny in Paris."
	// --- PASS: Please_add_2_and_3.
}

// With MinPass the repeats of a case are judged together, as a gate judges
// a run: four passes of five put the pass rate's lower bound at 37.6%, above
// 30%, so the case passes, and the repeat that failed is logged.
func ExampleOptions_minPass() {
	script, err := fakeollama.ParseScript([]byte(flakyScript), "flaky.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	t := newPrinter() // in a test: the test's *testing.T
	defer t.done()
	tgtest.Run(t, flakyServer(), []tgtest.Case{
		{ID: "weather", Ask: "What is the weather in Paris?", Tool: "weather",
			Answer: tgtest.Contains("sunny")},
	}, &tgtest.Options{Models: []string{"small"}, Fake: script, Repeat: 5, MinPass: 0.3})
	// Output:
	// --- PASS: weather
	//     tgtest: small: pass 80% [37–97] (4/5): lower bound 37.6% >= 30% (Options.MinPass)
	//       repeat 2: wrong_answer: answer "I could not find out." does not contain sunny
	//         calls: weather({"city":"Paris"})
	//         answer: "I could not find out."
}

// Each matcher shows as a suite file writes it.
func ExampleMatcher() {
	fmt.Println(tgtest.Equals(5))
	fmt.Println(tgtest.Equals(map[string]any{"unit": "celsius"}))
	fmt.Println(tgtest.Contains("paris"))
	fmt.Println(tgtest.Regex("^Par"))
	fmt.Println(tgtest.OneOf("celsius", "fahrenheit"))
	fmt.Println(tgtest.Number(21.5, 0.5))
	fmt.Println(tgtest.Any())
	fmt.Println(tgtest.Absent())
	fmt.Println(tgtest.BFCL([]any{"", 5}, &tgtest.BFCLOptions{Type: "integer"}))
	// Output:
	// 5
	// {equals: {unit: celsius}}
	// {contains: paris}
	// {regex: "^Par"}
	// {one_of: [celsius, fahrenheit]}
	// {number: 21.5, tolerance: 0.5}
	// {any: true}
	// {absent: true}
	// {bfcl: ["", 5], type: integer}
}
