package simuser

import (
	"errors"
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
