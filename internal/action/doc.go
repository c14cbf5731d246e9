// Package action holds the tests of toolgrade's GitHub Action (action.yml at
// the repository root and action/toolgrade-action.sh, the script its steps
// call): the script run with the environment GitHub sets against the fake
// Ollama, and actionlint over action.yml and the example workflows. It has
// no code of its own: the action is YAML and bash.
package action
