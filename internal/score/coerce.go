package score

import (
	"encoding/json"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Coercer is a suite.Catalog that can also apply to a call's arguments the
// conversions a lenient client makes before validating them ("5" → 5 for an
// integer, "true" → true, a JSON string holding an object for an object;
// *mcpclient.Catalog documents them in toolschema.CoerceArgs). It is
// optional: a catalog without it leaves the coerced validity equal to the
// strict one.
type Coercer interface {
	// Coerce returns args converted for the tool the model sees as exposed,
	// and whether anything was converted.
	Coerce(exposed string, args json.RawMessage) (json.RawMessage, bool)
}

// validIfCoerced marks the calls whose arguments failed the tool's schema
// as sent and pass it once coerced: the calls a lenient client would have
// run. It returns nil when tools cannot coerce.
func validIfCoerced(execs []record.Execution, tools suite.Catalog) []bool {
	co, ok := tools.(Coercer)
	if !ok {
		return nil
	}
	out := make([]bool, len(execs))
	for i, x := range execs {
		if x.ErrorKind != record.ExecInvalidArgs {
			continue
		}
		exposed, ok := tools.Resolve(x.Name)
		if !ok {
			continue
		}
		args, changed := co.Coerce(exposed, x.Arguments)
		out[i] = changed && tools.ValidateArgs(exposed, args) == nil
	}
	return out
}
