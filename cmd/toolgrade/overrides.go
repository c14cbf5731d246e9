package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// overrideFlags are run's flags that replace a suite's defaults for one run
// (with --servers, which replaces the suite's servers). A flag that is not
// given leaves the suite's value.
type overrideFlags struct {
	system    string
	maxRounds int
	think     string
	keepAlive string
	options   rawOptions
}

func (o *overrideFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.system, "system", "", "system prompt, replacing the suite's defaults.system (cases that open with their own system message keep it)")
	fs.IntVar(&o.maxRounds, "max-rounds", 0, "round limit of every case, replacing the suite's and the cases' own max_rounds (default: the suite's)")
	fs.StringVar(&o.think, "think", "", "think: true, false, low, medium or high, replacing the suite's defaults.think (default: the suite's)")
	fs.StringVar(&o.keepAlive, "keep-alive", "", "how long Ollama keeps the model loaded, e.g. 10m, replacing the suite's defaults.keep_alive (default: the suite's)")
	fs.Var(&o.options, "o", "model option `key=value` (temperature, seed, num_ctx, ...) over the suite's defaults.options; repeatable")
}

// apply applies the overrides of a run to s, the run's suite: for a fresh
// run (meta nil) those of the flags given in fs, for a resumed one those its
// run.json recorded, refusing flags that would change them. It returns what
// to record in run.json; nil when nothing is overridden.
func (o *overrideFlags) apply(fs *flag.FlagSet, s *suite.Suite, meta *record.Run) (*record.RunOverrides, error) {
	// given lists the override flags on the command line, --servers (which
	// serverFlags registers) among them.
	var given []string
	ov := &record.RunOverrides{Think: o.think, KeepAlive: o.keepAlive, Options: o.options}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "system":
			ov.System = &o.system
		case "max-rounds":
			ov.MaxRounds = &o.maxRounds
		case "servers":
			ov.Servers = f.Value.String()
		case "think", "keep-alive", "o":
		default:
			return
		}
		given = append(given, dashed(f.Name))
	})
	if meta != nil {
		if len(given) > 0 {
			return nil, usageErrorf("run: %s cannot change a resumed run: it applies again the settings its %s recorded",
				strings.Join(given, ", "), record.RunFile)
		}
		return meta.Overrides, applyOverrides(s, meta.Overrides)
	}
	if len(given) == 0 {
		return nil, nil
	}
	if slices.Contains(given, "--servers") {
		if ov.Servers == "" {
			return nil, usageErrorf("run: --servers needs a file")
		}
		ov.Servers = absPath(ov.Servers)
	}
	if err := applyOverrides(s, ov); err != nil {
		return nil, err
	}
	return ov, nil
}

// applyOverrides sets what ov overrides in s; nil ov changes nothing. The
// values are checked here, for flags and run.json alike.
func applyOverrides(s *suite.Suite, ov *record.RunOverrides) error {
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
			return usageErrorf("--max-rounds %d: must be from 1 to %d", n, suite.MaxRoundsLimit)
		}
		s.Defaults.MaxRounds = n
		for i := range s.Cases {
			s.Cases[i].MaxRounds = n
		}
	}
	if ov.Think != "" {
		if _, err := bridge.ParseThink(ov.Think); err != nil {
			return asUsage(fmt.Errorf("--%w", err))
		}
		s.Defaults.Think = ov.Think
	}
	if ov.KeepAlive != "" {
		d, err := bridge.ParseKeepAlive(ov.KeepAlive)
		if err != nil {
			return asUsage(fmt.Errorf("--%w", err))
		}
		s.Defaults.KeepAlive = &d.Duration
	}
	if len(ov.Options) > 0 {
		var opts optionList
		for _, kv := range ov.Options {
			if err := opts.Set(kv); err != nil {
				return usageErrorf("-o %v", err)
			}
		}
		merged := maps.Clone(s.Defaults.Options)
		if merged == nil {
			merged = map[string]any{}
		}
		maps.Copy(merged, opts)
		s.Defaults.Options = merged
	}
	return nil
}

// rawOptions collects -o key=value as given, so that run.json can record
// them and --resume parse them again exactly as the first run did.
type rawOptions []string

func (r *rawOptions) String() string { return strings.Join(*r, " ") }

func (r *rawOptions) Set(kv string) error {
	var check optionList
	if err := check.Set(kv); err != nil {
		return err
	}
	*r = append(*r, kv)
	return nil
}

// dashed writes a flag's name the way messages and the README do: -o,
// --servers.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
