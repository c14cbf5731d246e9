package simuser

import (
	"errors"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		reply, msg string
		done       bool
		how        string
	}{
		{`{"message": "Save it, please.", "done": false}`, "Save it, please.", false, ""},
		{`{"message": "", "done": true}`, "", true, ""},
		{`{"message": "Thanks!", "done": "true"}`, "Thanks!", true, ""},
		{`{"message": "Bye ###STOP###", "done": false}`, "Bye", true, ""},
		{"```json\n{\"message\": \"fenced\", \"done\": false}\n```", "fenced", false, ReadFence},
		{`Here you go: {"message": "embedded", "done": false} ok`, "embedded", false, ReadEmbedded},
		{"<think>hmm {not json</think>\n###STOP###", "", true, ReadStop},
		{"'Can you read it back?'", "Can you read it back?", false, ReadText},
		{"That is all. ###STOP###", "That is all.", true, ReadStop},
		{`He said "hi"`, `He said "hi"`, false, ReadText},
	} {
		msg, done, how, err := Read(tc.reply)
		if err != nil || msg != tc.msg || done != tc.done || how != tc.how {
			t.Errorf("Read(%q) = %q, %v, %q, %v; want %q, %v, %q", tc.reply, msg, done, how, err, tc.msg, tc.done, tc.how)
		}
	}
	for _, reply := range []string{"", "  \n", `{"message": "", "done": false}`, `{"verdict": "pass"}`, "<think>only thinking</think>"} {
		var nm *NoMessageError
		if _, _, _, err := Read(reply); !errors.As(err, &nm) {
			t.Errorf("Read(%q) error %v, want a *NoMessageError", reply, err)
		}
	}
}

// FuzzRead: no reply makes Read panic; a reply read gives a message or
// ends the conversation, and never passes the stop word on.
func FuzzRead(f *testing.F) {
	for _, s := range []string{`{"message": "hi", "done": false}`, "```json\n{\"done\": true}\n```", "x {\"message\": \"y\"} z",
		"<think>a</think>###STOP###", "'quoted'", "{}", "", "{\"message\": 3}", "<think>", "\"\"", "###ST###STOP###OP###"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		msg, done, _, err := Read(reply)
		if err != nil {
			var nm *NoMessageError
			if !errors.As(err, &nm) || msg != "" || done {
				t.Fatalf("Read(%q) = %q, %v, %v", reply, msg, done, err)
			}
			return
		}
		if msg == "" && !done || strings.Contains(msg, Stop) {
			t.Fatalf("Read(%q) = %q, done %v", reply, msg, done)
		}
	})
}
