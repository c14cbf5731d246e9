package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// CaseHash is the hex SHA-256 of what defines case c for a comparison: the
// conversation as sent (Conversation, so the suite's system prompt counts),
// the expectation with the suite defaults that change its judgement
// (strict_args, normalize_strings), the round limit, whether tools run and
// the case's own tools (each inline definition as written, each named tool
// by its name), so a changed inline tool is a changed case.
// Two runs whose case id has different hashes did not ask the same thing.
// Positions in the file are left out: moving a case does not change it.
func (s *Suite) CaseHash(c *Case) string {
	h := hashedCase{
		NoTool:     c.Expect.NoTool,
		AnyOrder:   c.Expect.AnyOrder,
		FirstOnly:  c.Expect.FirstOnly,
		StrictArgs: s.Defaults.StrictArgs,
		Normalize:  s.Defaults.NormalizeStrings,
		MaxRounds:  c.MaxRounds,
		Execute:    !c.NoExecute,
		MayFail:    c.Expect.CallMayFail,
	}
	for _, m := range s.Conversation(c) {
		h.Conversation = append(h.Conversation, hashedMessage{Role: m.Role, Content: m.Content})
	}
	if c.Expect.StrictArgs != nil {
		h.StrictArgs = *c.Expect.StrictArgs
	}
	for _, call := range c.Expect.Calls {
		hc := hashedCall{Tool: call.Tool, Args: []hashedArg{}}
		for _, a := range call.Args {
			ha := hashedArg{Key: a.Key, Kind: a.Kind, Value: a.Value, Substring: a.Substring,
				OneOf: a.OneOf, Number: a.Number, Tolerance: a.Tolerance}
			if a.Regex != nil {
				ha.Regex = a.Regex.String()
			}
			hc.Args = append(hc.Args, ha)
		}
		h.Calls = append(h.Calls, hc)
	}
	for _, t := range c.Tools {
		ht := hashedTool{Name: t.Name, Inline: t.Inline, Description: t.Description}
		if t.Inline {
			ht.Parameters = t.Parameters
		}
		h.Tools = append(h.Tools, ht)
	}
	if m := c.Expect.Answer; m != nil {
		h.Answer = &hashedText{Kind: m.Kind, Substring: m.Substring, OneOf: m.OneOf}
		if m.Regex != nil {
			h.Answer.Regex = m.Regex.String()
		}
	}
	if r := c.Expect.Judge; r != nil {
		h.Judge = r.Text
	}
	h.Scenario = hashScenario(c)
	// Every value is of JSON's own shapes (maps encode with sorted keys), so
	// the encoding is canonical; it cannot fail.
	b, _ := json.Marshal(h)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// hashedCase and the types below fix the field names and order CaseHash
// encodes, apart from the suite's Go types, so renaming a Go field does not
// change every recorded hash.
type hashedCase struct {
	Conversation []hashedMessage `json:"conversation"`
	Calls        []hashedCall    `json:"calls"`
	NoTool       bool            `json:"no_tool"`
	AnyOrder     bool            `json:"any_order"`
	FirstOnly    bool            `json:"first_only"`
	StrictArgs   bool            `json:"strict_args"`
	Normalize    bool            `json:"normalize_strings"`
	Answer       *hashedText     `json:"answer"`
	MaxRounds    int             `json:"max_rounds"`
	Execute      bool            `json:"execute"`
	// Tools is left out for a case on the suite's catalog, so the hashes of
	// such cases are those recorded before cases had tools.
	Tools []hashedTool `json:"tools,omitempty"`
	// Judge is the rubric, left out for a case without one, so their
	// hashes are those recorded before rubrics.
	Judge string `json:"judge,omitempty"`
	// MayFail is call_may_fail, left out when false, so the hashes of other
	// cases are those recorded before it.
	MayFail bool `json:"call_may_fail,omitempty"`
	// Scenario is a scenario's turns, setup, checks and simulated user,
	// left out for a case of one question, so their hashes are those
	// recorded before scenarios.
	Scenario *hashedScenario `json:"scenario,omitempty"`
}

// hashedTool is one of a case's own tools; Parameters is the schema's JSON
// with its keys in the order written, which is the order the model sees.
type hashedTool struct {
	Name        string          `json:"name"`
	Inline      bool            `json:"inline,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type hashedMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type hashedCall struct {
	Tool string      `json:"tool"`
	Args []hashedArg `json:"args"`
}

type hashedArg struct {
	Key       string      `json:"key"`
	Kind      MatcherKind `json:"kind"`
	Value     any         `json:"value,omitempty"`
	Substring string      `json:"substring,omitempty"`
	Regex     string      `json:"regex,omitempty"`
	OneOf     []any       `json:"one_of,omitempty"`
	Number    float64     `json:"number,omitempty"`
	Tolerance float64     `json:"tolerance,omitempty"`
}

type hashedText struct {
	Kind      MatcherKind `json:"kind"`
	Substring string      `json:"substring,omitempty"`
	Regex     string      `json:"regex,omitempty"`
	OneOf     []string    `json:"one_of,omitempty"`
}

// CaseHashes maps every case id to its CaseHash, as run.json records them.
func (s *Suite) CaseHashes() map[string]string {
	out := make(map[string]string, len(s.Cases))
	for i := range s.Cases {
		out[s.Cases[i].ID] = s.CaseHash(&s.Cases[i])
	}
	return out
}
