package cli

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
	"time"
)

func flags(name string) (*flag.FlagSet, *bytes.Buffer) {
	var out bytes.Buffer
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(&out)
	fs.Int("repeat", 1, "runs of each case")
	fs.String("out", "", "results `DIR`")
	fs.Duration("tool-timeout", time.Minute, "time one tool call may take")
	fs.Float64("alpha", 0.05, "significance level")
	fs.Bool("stop-early", false, "stop early")
	fs.String("max-result-bytes", "", "bytes")
	fs.Usage = func() { Help{Command: name, Args: "SUITE.yaml", Summary: "run a suite"}.Write(&out, fs) }
	return fs, &out
}

func TestParseTakesFlagsAnywhere(t *testing.T) {
	fs, out := flags("run")
	pos, err := Parse(fs, []string{"a.yaml", "--repeat", "3", "b", "--", "--out"})
	if err != nil || !slices.Equal(pos, []string{"a.yaml", "b", "--out"}) || fs.Lookup("repeat").Value.String() != "3" {
		t.Errorf("pos %q, err %v", pos, err)
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q", out)
	}
}

func TestParseHelp(t *testing.T) {
	fs, out := flags("run")
	if _, err := Parse(fs, []string{"x", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err %v", err)
	}
	want := "Usage: toolgrade run [flags] SUITE.yaml\n\nrun a suite\n\nFlags:\n  -alpha float\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("usage:\n%s\nwant it to start\n%s", out, want)
	}
}

// TestHelpWithoutFlags: a command without flags has no [flags] and no
// empty Flags: section; More follows.
func TestHelpWithoutFlags(t *testing.T) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("fake-mcp", flag.ContinueOnError)
	Help{Command: "fake-mcp", Args: "NAME", Summary: "serve a fake", More: "Servers:\n  docs  a store\n"}.Write(&out, fs)
	want := "Usage: toolgrade fake-mcp NAME\n\nserve a fake\n\nServers:\n  docs  a store\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
	out.Reset()
	Help{Command: "version"}.Write(&out, fs)
	if out.String() != "Usage: toolgrade version\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
		want string
	}{
		{[]string{"--repat", "3"}, "repat", "run: unknown flag --repat: did you mean --repeat? (toolgrade run -h lists every flag)"},
		{[]string{"-repat=3"}, "repat", "run: unknown flag --repat: did you mean --repeat?"},
		{[]string{"--max-result", "9"}, "max-result", "unknown flag --max-result: did you mean --max-result-bytes?"},
		{[]string{"--frobnicate"}, "frobnicate", "run: unknown flag --frobnicate (toolgrade run -h lists every flag)"},
		{[]string{"x", "--out"}, "out", "run: --out needs a value: --out DIR (toolgrade run -h lists every flag)"},
		{[]string{"--repeat"}, "repeat", "run: --repeat needs a value: --repeat N"},
		{[]string{"--repeat", "3x"}, "repeat", `run: --repeat "3x": want a whole number`},
		{[]string{"--repeat", "99999999999999999999"}, "repeat", `run: --repeat "99999999999999999999": out of range`},
		{[]string{"--alpha", "low"}, "alpha", `run: --alpha "low": want a number, such as 0.5`},
		{[]string{"--tool-timeout", "5"}, "tool-timeout", `run: --tool-timeout "5": want a duration with its unit, such as 500ms, 30s, 2m or 1h30m`},
		{[]string{"--stop-early=yes"}, "stop-early", "run: --stop-early=yes: give true or false (--stop-early alone is true)"},
		{[]string{"---x"}, "", "run: bad flag syntax ---x: write -name, --name or --name=value"},
	} {
		fs, out := flags("run")
		_, err := Parse(fs, tc.args)
		var fe *FlagError
		if !errors.As(err, &fe) || fe.Flag != tc.flag || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v (flag %q)\nwant %s", tc.args, err, tc.flag, tc.want)
		}
		if out.Len() != 0 || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: wrote %q; err %q", tc.args, out, err)
		}
	}
}

// setter is a flag.Value of toolgrade's own: its error is the message.
type setter struct{}

func (setter) String() string { return "" }
func (setter) Set(v string) error {
	return errors.New(`"=>" is not a comparison: did you mean ">="?`)
}

func TestAValueOfToolgradesOwnSaysItsOwnError(t *testing.T) {
	fs, _ := flags("report")
	fs.Var(setter{}, "gate", "a gate")
	_, err := Parse(fs, []string{"--gate", "pass=>0.9"})
	if want := `report: --gate "pass=>0.9": "=>" is not a comparison: did you mean ">="?`; err == nil || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
}

// TestDurationDefaultsReadAsWritten: -h shows a duration's default as a
// person writes it, and none for a negative one, whose usage says it.
func TestDurationDefaultsReadAsWritten(t *testing.T) {
	fs := flag.NewFlagSet("fake-ollama", flag.ContinueOnError)
	fs.Duration("latency", -1, "latency before each answer (default: the script's)")
	fs.Duration("idle", 5*time.Minute, "idle timeout")
	fs.Duration("wait", 90*time.Second, "wait")
	fs.Duration("hold", 2*time.Hour, "hold")
	fs.Duration("none", 0, "none")
	var b strings.Builder
	Help{Command: "fake-ollama"}.Write(&b, fs)
	for _, want := range []string{"(default 5m)", "(default 1m30s)", "(default 2h)", "latency before each answer (default: the script's)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "ns)") || strings.Contains(b.String(), "m0s") || strings.Contains(b.String(), "h0m") {
		t.Errorf("a Go duration literal in\n%s", b.String())
	}
}
