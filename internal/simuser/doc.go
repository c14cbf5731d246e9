// Package simuser is the simulated user of a scenario: a user model served
// by Ollama writes the user's messages from a goal and a persona, sees the
// conversation (never the tools) and says when the goal is met. It follows
// τ-bench's user simulator (sierra-research/tau-bench,
// tau_bench/envs/user.py): a system prompt of the instruction and rules,
// the roles swapped so the user model writes its lines as the assistant
// and reads the assistant's answers as user messages, an opening "Hi! How
// can I help you today?", and "###STOP###" to end. Unlike τ-bench it asks
// for structured output ({message, done}: Ollama's format) and reads a
// reply that is not that JSON leniently, as internal/judge reads a judge's.
package simuser
