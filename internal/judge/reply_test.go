package judge

import (
	"errors"
	"testing"
)

// TestRead: the JSON asked for, and the lenient readings where the verdict
// is unambiguous; everything else has no verdict.
func TestRead(t *testing.T) {
	for _, tc := range []struct {
		reply, verdict, reason, how string
	}{
		{`{"verdict":"pass","reason":"grounded"}`, "pass", "grounded", ""},
		{` {"verdict": "FAIL", "reason": "invents a price"} `, "fail", "invents a price", ""},
		{"```json\n{\"verdict\": \"fail\", \"reason\": \"no hours\"}\n```", "fail", "no hours", ReadFence},
		{"Here is my grade:\n```\n{\"verdict\":\"pass\",\"reason\":\"ok\"}\n```\nThanks.", "pass", "ok", ReadFence},
		{`My verdict: {"verdict": "pass", "reason": "it says 9-5"} as asked.`, "pass", "it says 9-5", ReadEmbedded},
		{`{"verdict":"pass"} and again {"verdict":"pass","reason":"x"}`, "pass", "", ReadEmbedded},
		{"PASS", "pass", "", ReadWord},
		{"**Fail**: the answer names a file the tool never listed.", "fail", "the answer names a file the tool never listed.", ReadWord},
		{"passed - every claim is in the result", "pass", "every claim is in the result", ReadWord},
	} {
		v, r, how, err := Read(tc.reply)
		if err != nil || v != tc.verdict || r != tc.reason || how != tc.how {
			t.Errorf("Read(%q) = %q, %q, %q, %v; want %q, %q, %q", tc.reply, v, r, how, err, tc.verdict, tc.reason, tc.how)
		}
	}
	for _, reply := range []string{
		"",
		"I think it is mostly fine, maybe.",
		`{"verdict":"maybe","reason":"unsure"}`,
		`{"verdict":"pass"} but also {"verdict":"fail"}`,
		"The answer does not pass: FAIL.",
		"PASS or FAIL? Hard to say.",
		`{"verdict": true}`,
	} {
		v, _, how, err := Read(reply)
		var nv *NoVerdictError
		if !errors.As(err, &nv) {
			t.Errorf("Read(%q) = %q (%s), %v; want a NoVerdictError", reply, v, how, err)
		}
	}
}
