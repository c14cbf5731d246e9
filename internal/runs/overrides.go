package runs

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Overrides are the settings one run gives over its suite's (run's --system,
// --max-rounds, --think, --keep-alive, -o and --servers). A nil field was
// not given and leaves the suite's value; the zero Overrides changes
// nothing.
type Overrides struct {
	System    *string
	MaxRounds *int
	Think     *string
	KeepAlive *string
	// Options are -o's key=value pairs as given; nil: none.
	Options []string
	// Servers is an mcpServers file replacing the suite's servers.
	Servers *string
	// JudgeModel and JudgeRepeat replace defaults.judge's model and
	// repeat (--judge-model, --judge-repeat).
	JudgeModel  *string
	JudgeRepeat *int
}

// flags lists the flags given, as messages name them, in the order flag
// names sort.
func (o *Overrides) flags() []string {
	var out []string
	for _, f := range []struct {
		name  string
		given bool
	}{
		{"--judge-model", o.JudgeModel != nil}, {"--judge-repeat", o.JudgeRepeat != nil},
		{"--keep-alive", o.KeepAlive != nil}, {"--max-rounds", o.MaxRounds != nil}, {"-o", o.Options != nil},
		{"--servers", o.Servers != nil}, {"--system", o.System != nil}, {"--think", o.Think != nil},
	} {
		if f.given {
			out = append(out, f.name)
		}
	}
	return out
}

// record is what run.json records of o; nil when nothing is given. The
// servers file is made absolute, so a resume from elsewhere finds it.
func (o *Overrides) record() *record.RunOverrides {
	if len(o.flags()) == 0 {
		return nil
	}
	ov := &record.RunOverrides{System: o.System, MaxRounds: o.MaxRounds, Think: deref(o.Think, ""), KeepAlive: deref(o.KeepAlive, ""), Options: o.Options,
		JudgeModel: deref(o.JudgeModel, ""), JudgeRepeat: deref(o.JudgeRepeat, 0)}
	if o.Servers != nil {
		ov.Servers = record.AbsPath(*o.Servers)
	}
	return ov
}

// check refuses what ApplyOverrides would refuse, before anything is read.
func (o *Overrides) check() error {
	if o.Servers != nil && *o.Servers == "" {
		return cli.Usagef("run: --servers needs a file")
	}
	if o.JudgeModel != nil && strings.TrimSpace(*o.JudgeModel) == "" {
		return cli.Usagef("run: --judge-model needs a model name")
	}
	if r := o.JudgeRepeat; r != nil && (*r < 1 || *r > suite.MaxJudgeRepeat) {
		return cli.Usagef("run: --judge-repeat %d: must be from 1 to %d (an odd number avoids ties, which fail)", *r, suite.MaxJudgeRepeat)
	}
	ov := o.record()
	if ov != nil {
		ov.Servers = ""
	}
	return ApplyOverrides(&suite.Suite{}, ov)
}

// ApplyOverrides sets what ov overrides in s; nil ov changes nothing. The
// values are checked here, for flags and run.json alike: a bad one is a
// cli.UsageError naming its flag.
func ApplyOverrides(s *suite.Suite, ov *record.RunOverrides) error {
	if ov == nil {
		return nil
	}
	if ov.Servers != "" {
		s.ServersPath, s.ServersNode = ov.Servers, nil
	}
	if ov.System != nil {
		s.Defaults.System = *ov.System
	}
	if ov.MaxRounds != nil {
		n := *ov.MaxRounds
		if n < 1 || n > suite.MaxRoundsLimit {
			return cli.Usagef("--max-rounds %d: must be from 1 to %d", n, suite.MaxRoundsLimit)
		}
		s.Defaults.MaxRounds = n
		for i := range s.Cases {
			s.Cases[i].MaxRounds = n
		}
	}
	if ov.Think != "" {
		if _, err := bridge.ParseThink(ov.Think); err != nil {
			return cli.AsUsage(fmt.Errorf("--%w", err))
		}
		s.Defaults.Think = ov.Think
	}
	if ov.KeepAlive != "" {
		d, err := bridge.ParseKeepAlive(ov.KeepAlive)
		if err != nil {
			return cli.AsUsage(fmt.Errorf("--%w", err))
		}
		s.Defaults.KeepAlive = &d.Duration
	}
	if err := applyJudge(s, ov); err != nil {
		return err
	}
	if len(ov.Options) > 0 {
		merged := maps.Clone(s.Defaults.Options)
		if merged == nil {
			merged = map[string]any{}
		}
		for _, kv := range ov.Options {
			k, v, err := ParseOption(kv)
			if err != nil {
				return cli.Usagef("-o %v", err)
			}
			merged[k] = v
		}
		s.Defaults.Options = merged
	}
	return nil
}

// applyJudge sets the judge model and repeat ov gives over s's
// defaults.judge.
func applyJudge(s *suite.Suite, ov *record.RunOverrides) error {
	if ov.JudgeModel != "" {
		s.Defaults.Judge.Model = ov.JudgeModel
	}
	if r := ov.JudgeRepeat; r != 0 {
		if r < 1 || r > suite.MaxJudgeRepeat {
			return cli.Usagef("--judge-repeat %d: must be from 1 to %d", r, suite.MaxJudgeRepeat)
		}
		s.Defaults.Judge.Repeat = r
	}
	return nil
}

// ParseOption reads one -o key=value model option; a value that reads as
// JSON (a number, a boolean) keeps that type, a whole number is an int64.
func ParseOption(kv string) (key string, value any, err error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", nil, fmt.Errorf("%q: want key=value", kv)
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return k, n, nil
	}
	var val any
	if err := json.Unmarshal([]byte(v), &val); err == nil {
		return k, val, nil
	}
	return k, v, nil
}
