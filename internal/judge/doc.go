// Package judge is the grader of judged answers: a judge model, asked
// through the run's Ollama client, grades a trial's final answer against
// its case's rubric (answer: {judge: ...}), shown the question and the
// tool results the model saw, so "grounded in the tool result" can be
// asked. The request asks for structured output (format: a JSON schema of
// {verdict, reason}) at temperature 0 with a recorded seed; a reply that is
// not that JSON is read leniently where its verdict is unambiguous (see
// Read). A judge that fails (unreachable, an HTTP error, no clear verdict)
// is an infrastructure error of the judge, retried and then recorded on the
// trial, never the model's failure; identical requests within a run are
// sent once (Cache); with Repeat k, each answer is judged k times with
// distinct seeds and the verdict is their majority (a tie fails).
package judge
