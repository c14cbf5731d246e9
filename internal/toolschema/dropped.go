package toolschema

import (
	"encoding/json"
	"math"
)

// Severity ranks a dropped schema keyword by what its loss costs the model.
type Severity string

const (
	// SeverityLost: the model is missing information that decides whether a
	// call is valid: a oneOf or allOf that could not be rewritten, a
	// top-level anyOf (Ollama's parameters have no anyOf), the
	// required list of a nested object, a const, the value type of a map
	// (additionalProperties with a schema), a format, a cut $ref.
	SeverityLost Severity = "lost"
	// SeverityMinor: a constraint or annotation the model would do well to
	// know (minLength, pattern, default, title, ...), but whose loss rarely
	// changes the shape of a call.
	SeverityMinor Severity = "minor"
	// SeverityBenign: a drop that tells the model nothing it needs: the
	// top-level additionalProperties: false every zod-built server emits,
	// and integer bounds at JavaScript's ±MAX_SAFE_INTEGER (2^53−1).
	SeverityBenign Severity = "benign"
)

// Drop is one entry of Tool.Dropped with its severity.
type Drop struct {
	Path     string   `json:"path"`
	Severity Severity `json:"severity"`
}

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER, which zod writes
// as the bound of every unbounded int(): a benign drop, and no hint worth a
// token.
const maxSafeInteger = 1<<53 - 1

// lostKeywords are the keywords whose loss is SeverityLost wherever they are
// dropped.
var lostKeywords = map[string]bool{
	"oneOf": true, "anyOf": true, "allOf": true, "const": true, "format": true, "required": true,
	"$ref": true, "not": true, "if": true, "then": true, "else": true,
	"patternProperties": true, "dependentRequired": true, "dependentSchemas": true,
}

// severityOf classifies dropping keyword key with value v, at the top level
// of the input schema or below it.
func severityOf(key string, v any, top bool) Severity {
	switch {
	case lostKeywords[key]:
		return SeverityLost
	case key == "additionalProperties":
		if b, ok := v.(bool); ok {
			if !b && top {
				return SeverityBenign
			}
			return SeverityMinor
		}
		return SeverityLost // a schema: the type of every map value
	case key == "maximum" || key == "minimum" || key == "exclusiveMaximum" || key == "exclusiveMinimum":
		if isMaxSafe(v) {
			return SeverityBenign
		}
	}
	return SeverityMinor
}

func isMaxSafe(v any) bool {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return false
		}
	default:
		return false
	}
	return math.Abs(f) == maxSafeInteger
}

// classifyDrops pairs every dropped path with the severity the converter
// found for it; paths it did not classify (malformed values, false
// properties) are minor.
func classifyDrops(dropped []string, sev map[string]Severity) []Drop {
	if len(dropped) == 0 {
		return nil
	}
	out := make([]Drop, len(dropped))
	for i, p := range dropped {
		s, ok := sev[p]
		if !ok {
			s = SeverityMinor
		}
		out[i] = Drop{Path: p, Severity: s}
	}
	return out
}
