package fakeollama

import (
	"encoding/json"

	"github.com/ollama/ollama/api"
)

// match returns the first rule that applies to a chat request for model m,
// or nil when none does.
func (s *Server) match(m *modelInfo, req *api.ChatRequest) *rule {
	msgs := mergeMessages(req.Messages)
	round, turn := 1, 0
	var lastUser, lastTool, turnTool *string
	for i := range msgs {
		switch msgs[i].Role {
		case "assistant":
			round++
		case "user":
			turn++
			lastUser, turnTool = &msgs[i].Content, nil
		case "tool":
			lastTool, turnTool = &msgs[i].Content, &msgs[i].Content
		}
	}
	offered := len(req.Tools) > 0
	var toolsJSON *string
	for _, r := range s.rules {
		if r.tools != nil && toolsJSON == nil {
			b, _ := json.Marshal(req.Tools)
			text := string(b)
			toolsJSON = &text
		}
		switch {
		case r.model != nil && r.model != m,
			r.Round != 0 && r.Round != round,
			r.Turn != 0 && r.Turn != turn,
			r.ToolsOffered != nil && *r.ToolsOffered != offered,
			r.ToolsCount != nil && !r.ToolsCount.match(len(req.Tools)),
			r.Seed != nil && !seedIn(req, r.Seed),
			r.user != nil && (lastUser == nil || !r.user.match(*lastUser)),
			r.tool != nil && (lastTool == nil || !r.tool.match(*lastTool)),
			r.turnTool != nil && (turnTool == nil || !r.turnTool.match(*turnTool)),
			r.tools != nil && (!offered || !r.tools.match(*toolsJSON)):
			continue
		}
		return r
	}
	return nil
}

// mergeMessages joins consecutive messages of the same role with a blank
// line, as Ollama's template collation does before prompting (tool messages
// are never merged).
func mergeMessages(in []api.Message) []api.Message {
	out := make([]api.Message, 0, len(in))
	for _, m := range in {
		if n := len(out); n > 0 && out[n-1].Role == m.Role && m.Role != "tool" {
			out[n-1].Content += "\n\n" + m.Content
			continue
		}
		out = append(out, m)
	}
	return out
}

// seedIn reports whether the request sets options.seed within c's bounds.
func seedIn(req *api.ChatRequest, c *Count) bool {
	v, ok := req.Options["seed"]
	if !ok {
		return false
	}
	var seed int
	switch x := v.(type) {
	case float64:
		seed = int(x)
	case int:
		seed = x
	case int64:
		seed = int(x)
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			return false
		}
		seed = int(n)
	default:
		return false
	}
	return c.match(seed)
}
