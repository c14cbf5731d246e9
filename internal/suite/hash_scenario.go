package suite

import (
	"encoding/json"
)

// hashedScenario is what a scenario adds to its case's hash: every turn
// with its expect, the setup and check calls as sent and matched, the
// simulated user, and whether the case gives an expect of its own.
type hashedScenario struct {
	ExpectNone bool           `json:"expect_none,omitempty"`
	Turns      []hashedTurn   `json:"turns,omitempty"`
	Setup      []hashedState  `json:"setup,omitempty"`
	Checks     []hashedState  `json:"checks,omitempty"`
	User       *hashedSimUser `json:"user,omitempty"`
}

type hashedTurn struct {
	Ask    string          `json:"ask"`
	Expect json.RawMessage `json:"expect,omitempty"`
}

type hashedState struct {
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Result *hashedText     `json:"result,omitempty"`
}

type hashedSimUser struct {
	Goal     string `json:"goal"`
	Persona  string `json:"persona,omitempty"`
	Model    string `json:"model"`
	MaxTurns int    `json:"max_turns"`
	First    string `json:"first,omitempty"`
}

// hashScenario is c's scenario for CaseHash; nil for a case of one
// question.
func hashScenario(c *Case) *hashedScenario {
	if !c.IsScenario() {
		return nil
	}
	h := &hashedScenario{ExpectNone: c.ExpectNone}
	for _, t := range c.Turns {
		ht := hashedTurn{Ask: t.Ask}
		if t.Expect != nil {
			// The expect's hash as a case of its own: the same fields, so
			// an edited turn expect changes the case.
			sub := Case{Expect: *t.Expect}
			ht.Expect, _ = json.Marshal((&Suite{}).CaseHash(&sub))
		}
		h.Turns = append(h.Turns, ht)
	}
	state := func(calls []StateCall) []hashedState {
		var out []hashedState
		for _, sc := range calls {
			hs := hashedState{Tool: sc.Tool, Args: sc.Args}
			if m := sc.Result; m != nil {
				hs.Result = &hashedText{Kind: m.Kind, Substring: m.Substring, OneOf: m.OneOf}
				if m.Regex != nil {
					hs.Result.Regex = m.Regex.String()
				}
			}
			out = append(out, hs)
		}
		return out
	}
	h.Setup, h.Checks = state(c.Setup), state(c.Checks)
	if u := c.User; u != nil {
		h.User = &hashedSimUser{Goal: u.Goal, Persona: u.Persona, Model: u.Model, MaxTurns: u.MaxTurns, First: u.First}
	}
	return h
}
