package simuser

import (
	"strings"

	"github.com/ollama/ollama/api"
)

// Greeting opens every conversation the user model sees, as τ-bench's
// user simulator opens it: the assistant's first words, so the user model
// writes the first message as an answer.
const Greeting = "Hi! How can I help you today?"

// Stop is the word τ-bench's user model writes alone to end the
// conversation; a reply holding it ends it here too.
const Stop = "###STOP###"

// Format is the JSON schema of the user model's reply, sent as the
// request's format (Ollama's structured outputs).
const Format = `{"type":"object","properties":{"message":{"type":"string"},"done":{"type":"boolean"}},"required":["message","done"]}`

// rules are τ-bench's rules for its user model, in this project's words,
// with the reply asked for as JSON.
const rules = `Rules:
- Write one short message at a time, as the user would type it, in the first person. You are the user, never the assistant.
- Do not give away the whole goal at once: say only what the current step needs.
- Do not invent facts the goal does not give you. If the assistant asks for something you were not told, say you do not know it.
- Do not repeat the goal word for word; say it in your own words.
- When the assistant has done everything the goal asks, or clearly cannot do it, end the conversation with done set to true.
- Reply with one JSON object and nothing else: {"message": "what you say next", "done": false}. Use "done": true (with a short closing message or none) to end.`

// SystemPrompt is the user model's instructions for a goal and a persona
// (optional).
func SystemPrompt(goal, persona string) string {
	var b strings.Builder
	b.WriteString("You play a user who talks to an AI assistant, to test the assistant. Write the user's next message.\n\n")
	b.WriteString("Your goal: " + strings.TrimSpace(goal) + "\n")
	if p := strings.TrimSpace(persona); p != "" {
		b.WriteString("Who you are: " + p + "\n")
	}
	b.WriteString("\n" + rules)
	return b.String()
}

// Messages are the user model's conversation: the system prompt, the
// greeting, then convo with the roles swapped (the user's messages as
// assistant, the assistant's as user). Anything but user and assistant
// messages (a system prompt, tool results) is left out, and so are the
// assistant's tool calls: the user never sees the tools.
func Messages(goal, persona string, convo []api.Message) []api.Message {
	msgs := []api.Message{
		{Role: "system", Content: SystemPrompt(goal, persona)},
		{Role: "user", Content: Greeting},
	}
	for _, m := range convo {
		switch m.Role {
		case "user":
			msgs = append(msgs, api.Message{Role: "assistant", Content: m.Content})
		case "assistant":
			if m.Content == "" && len(m.ToolCalls) > 0 {
				continue // a round of calls, not an answer
			}
			msgs = append(msgs, api.Message{Role: "user", Content: m.Content})
		}
	}
	return msgs
}
