package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp"},
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"https://mcp.example.com/mcp?api_key=SECRET", "https://mcp.example.com/mcp?api_key=xxxxx"},
		{"https://h/mcp?a=1&token=SECRET&flag", "https://h/mcp?a=xxxxx&token=xxxxx&xxxxx"},
		{"https://user:hunter22@h:8080/mcp", "https://user:xxxxx@h:8080/mcp"},
		{"https://user@h/mcp", "https://user@h/mcp"},
		{"https://user:pw@h/sse?key=v%20w", "https://user:xxxxx@h/sse?key=xxxxx"},
		{"not a url?secret=1", "not a url?xxxxx"},
		{"", ""},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	raw := "http://u:pa55word@127.0.0.1:9/mcp?api_key=SECRET-KEY&x=ab%2Fcd"
	texts := []string{
		fmt.Sprintf(`Post %q: dial tcp: connection refused`, raw),
		`Post "http://u:***@127.0.0.1:9/mcp?api_key=SECRET-KEY&x=ab%2Fcd": EOF`,
		"the key SECRET-KEY was refused; x was ab/cd",
	}
	for _, text := range texts {
		got := Text(text, raw)
		for _, secret := range []string{"pa55word", "SECRET-KEY", "ab/cd", "ab%2Fcd"} {
			if strings.Contains(got, secret) {
				t.Errorf("Text(%q) = %q still holds %q", text, got, secret)
			}
		}
	}
	if got := Text("plain message", "http://h/mcp"); got != "plain message" {
		t.Errorf("Text changed a message without the URL: %q", got)
	}
}

func TestError(t *testing.T) {
	base := fs.ErrNotExist
	raw := "https://h/mcp?api_key=SECRET"
	err := Error(fmt.Errorf("connect %s: %w", raw, base), raw)
	if strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "api_key=xxxxx") {
		t.Errorf("message %q", err)
	}
	if !errors.Is(err, base) {
		t.Error("the redacted error no longer unwraps to its cause")
	}
	plain := errors.New("x")
	if Error(plain, "https://h/mcp") != plain || Error(nil, raw) != nil {
		t.Error("an error without secrets, or nil, was wrapped")
	}
}
