package report_test

import (
	"os"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report"
)

// A case that passed in one repeat of two is flaky: its testcase passes and
// carries the failing repeat as a flakyFailure.
func ExampleJUnit() {
	run := &record.Run{Suite: record.RunSuite{Name: "docs"}, Status: "complete", Models: []record.Model{{Name: "qwen3:8b"}}}
	j := report.NewJUnit(run, nil)
	for _, t := range []*record.Trial{
		{Model: "qwen3:8b", CaseID: "dog", Repeat: 0, Transcript: &record.Transcript{Wall: 1500 * time.Millisecond},
			Score: record.Score{Outcome: record.OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true}},
		{Model: "qwen3:8b", CaseID: "dog", Repeat: 1, Transcript: &record.Transcript{Wall: 2 * time.Second},
			Score: record.Score{Outcome: record.OutcomeWrongTool, Detail: `got "list", want "search"`, CallExpected: true}},
	} {
		j.Add(t)
	}
	j.Write(os.Stdout)
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <testsuites name="toolgrade docs" tests="1" failures="0" errors="0" time="3.500">
	// 	<testsuite name="qwen3:8b" tests="1" failures="0" errors="0" skipped="0" time="3.500">
	// 		<properties>
	// 			<property name="suite" value="docs"></property>
	// 			<property name="model" value="qwen3:8b"></property>
	// 			<property name="run.status" value="complete"></property>
	// 		</properties>
	// 		<testcase name="dog" classname="qwen3:8b" time="3.500">
	// 			<flakyFailure message="repeat #1: wrong_tool" type="wrong_tool">
	// 				<stackTrace>got &#34;list&#34;, want &#34;search&#34;</stackTrace>
	// 			</flakyFailure>
	// 			<system-out>flaky: 1/2 passed; failing: wrong_tool 1</system-out>
	// 		</testcase>
	// 	</testsuite>
	// </testsuites>
}
