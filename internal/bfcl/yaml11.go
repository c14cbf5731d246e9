package bfcl

import "regexp"

// yaml11Implicit matches the plain scalars a YAML 1.1 parser resolves to
// something other than a string: the implicit resolvers of PyYAML
// (yaml/resolver.py: bool, float, int, merge, null, timestamp, value),
// with the single-letter booleans y, Y, n, N that the 1.1 type repository
// adds. yaml.v3 writes the YAML 1.2 core schema, where most of these are
// plain strings, so a suite it writes can read differently in PyYAML: a
// plain = is the value tag and stops the parser, on becomes true, 1:20 a
// number, 2024-01-05 a date.
var yaml11Implicit = regexp.MustCompile(`^(?:` +
	// bool
	`yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|y|Y|n|N` +
	// float
	`|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?` +
	`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)` +
	// int
	`|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+` +
	// merge, null, value
	`|<<|~|null|Null|NULL|=` +
	// timestamp
	`|[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]` +
	`|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?` +
	`)$`)

// readsOtherwiseIn11 reports whether s, written plain, would not read as
// the string s in YAML 1.1 (the empty string reads as null there too).
func readsOtherwiseIn11(s string) bool {
	return s == "" || yaml11Implicit.MatchString(s)
}
