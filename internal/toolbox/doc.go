// Package toolbox owns the tool catalog a model is shown: the MCP servers'
// catalog as the base (mcpclient.Catalog, the MCP client), each case's own
// tools over it (Static), the variants' description overlays, decoys and
// schema hints composed over any base, the variant set of a run (Open) and
// what run.json records of it, with its one Hash and its resume rule
// (SameCatalogs), and the catalogs rebuilt from run.json for rescoring
// (Recorded).
//
// A catalog meets two interfaces, each declared by the lowest package that
// uses it, since both sit below this one: bridge.Toolbox, what the bridge
// loop offers the model and calls, and suite.Catalog, what suite checking
// and scoring ask of the tools (names, resolve, validate; optionally
// partial validation, coercion and decoys, see suite.Catalog). Every
// catalog type here implements them, asserted at compile time.
package toolbox

import (
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// The catalogs of this package, as the loop and the checks take them.
var (
	_ bridge.Toolbox     = (*Static)(nil)
	_ suite.Catalog      = (*Static)(nil)
	_ bridge.Toolbox     = (*Decoyed)(nil)
	_ suite.Catalog      = (*Decoyed)(nil)
	_ suite.Catalog      = (*Base)(nil)
	_ suite.CaseCatalogs = (*Base)(nil)
	_ suite.Catalog      = (*Recorded)(nil)
	_ suite.CaseCatalogs = (*Recorded)(nil)
	_ bridge.Toolbox     = (*redescribed)(nil)
)
