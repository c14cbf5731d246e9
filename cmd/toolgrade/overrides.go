package main

import (
	"flag"
	"strings"

	"github.com/toolgrade/toolgrade/internal/runs"
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
	judge     string
	judgeK    int
}

func (o *overrideFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.system, "system", "", "system prompt `TEXT`, replacing the suite's defaults.system (cases that open with their own system message keep it)")
	fs.IntVar(&o.maxRounds, "max-rounds", 0, "round limit `N` of every case, replacing the suite's and the cases' own max_rounds (default: the suite's)")
	fs.StringVar(&o.think, "think", "", "Ollama's think, `true|false|low|medium|high`, replacing the suite's defaults.think (default: the suite's)")
	fs.StringVar(&o.keepAlive, "keep-alive", "", "how long Ollama keeps the model loaded, a duration `D` such as 10m, replacing the suite's defaults.keep_alive (default: the suite's)")
	fs.Var(&o.options, "o", "model option `key=value` (temperature, seed, num_ctx, ...) over the suite's defaults.options; repeatable")
	fs.StringVar(&o.judge, "judge-model", "", "the judge `MODEL` that grades the answers of cases with a rubric (answer: {judge: ...}), replacing the suite's defaults.judge.model")
	fs.IntVar(&o.judgeK, "judge-repeat", 1, "judge each answer `K` times with distinct seeds (the verdict is the majority, a tie fails) and report the judge's self-agreement; replaces defaults.judge.repeat")
}

// overrides are the overrides the flags given ask for; --servers is
// serverFlags' file.
func (o *overrideFlags) overrides(given map[string]bool, servers string) runs.Overrides {
	ov := runs.Overrides{
		System:    ifGiven(given, "system", o.system),
		MaxRounds: ifGiven(given, "max-rounds", o.maxRounds),
		Think:     ifGiven(given, "think", o.think),
		KeepAlive: ifGiven(given, "keep-alive", o.keepAlive),
		Servers:   ifGiven(given, "servers", servers),

		JudgeModel:  ifGiven(given, "judge-model", o.judge),
		JudgeRepeat: ifGiven(given, "judge-repeat", o.judgeK),
	}
	if given["o"] {
		ov.Options = o.options
	}
	return ov
}

// rawOptions collects -o key=value as given, so that run.json can record
// them and --resume parse them again exactly as the first run did.
type rawOptions []string

func (r *rawOptions) String() string { return strings.Join(*r, " ") }

func (r *rawOptions) Set(kv string) error {
	if _, _, err := runs.ParseOption(kv); err != nil {
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
