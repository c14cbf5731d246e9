// Package internal holds no code of its own: this test keeps the layers of
// docs/layout.md, one rule a row, so a package that reaches where it must not
// fails here with the rule it breaks.
package internal

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/toolgrade/toolgrade/"

// layerRules are the imports each package may not reach, directly or not
// (with direct, the imports it names itself). A rule either bans packages
// (a path ending in /... covers the packages below it too, as go list reads
// it) or, with only set, allows no package of the module but those listed.
var layerRules = []struct {
	pkgs   []string // as go list takes them, from this directory
	except []string // packages pkgs match that the rule leaves alone
	direct bool     // the package's own imports, not all it reaches
	why    string
	banned []string
	only   []string // module-relative; nil: no allow-list
}{{
	pkgs: []string{"./suite"},
	why: "loading a suite checks its gates with the expression leaf alone, so it never pulls in what " +
		"checks them, the summary model, the run store, comparisons or the renderers (and their table " +
		"and template libraries)",
	banned: []string{mod + "internal/report", mod + "internal/gate", mod + "internal/summary", mod + "internal/compare",
		mod + "internal/curve", mod + "internal/store", "html/template", "github.com/olekukonko/tablewriter/..."},
}, {
	pkgs: []string{"./draft"},
	why: "a draft is made from files alone, anywhere (STYLE: stages meet at files); Ollama's api " +
		"package comes in through internal/suite, for its tool types only",
	banned: []string{mod + "internal/mcpclient/...", mod + "internal/llm/...", mod + "internal/bridge/...",
		mod + "internal/proxy/...", "github.com/modelcontextprotocol/go-sdk/..."},
}, {
	pkgs: []string{"./store", "./compare", "./gate", "./report"},
	why: "report, compare and the gates read runs offline, so they may not pull in the MCP or Ollama " +
		"clients (STYLE: stages meet at files)",
	banned: []string{mod + "internal/mcpclient/...", mod + "internal/llm/...", mod + "internal/bridge/...",
		"github.com/ollama/ollama/...", "github.com/modelcontextprotocol/go-sdk/..."},
}, {
	pkgs: []string{"../harness/tgtest", "./runs"},
	why: "a go test of an MCP server links what runs a case and records it, never a renderer: runs writes " +
		"the summary and hands it to a Reporter (internal/report's, given by cmd), and shows progress " +
		"through a Progress (internal/progress's)",
	banned: []string{mod + "internal/report/...", mod + "internal/progress", "html/template",
		"github.com/olekukonko/tablewriter/...", "github.com/schollz/progressbar/..."},
}, {
	pkgs:   []string{"./..."},
	except: []string{mod + "internal/report", mod + "internal/report/browsertest"},
	direct: true,
	why: "the renderers alone draw tables and pages (internal/report, behind its registry of formats): " +
		"a package that prints a table or a page calls them",
	banned: []string{"html/template", "github.com/olekukonko/tablewriter/..."},
}, {
	pkgs: []string{"./gate/expr"},
	why:  "the expression parser is a leaf, so a suite can parse its gates without what checks them",
	only: []string{"internal/metric", "internal/srcpos", "internal/record"},
}, {
	pkgs: []string{"./serversfile"},
	why:  "reading a servers file links no client, so init and recorded catalogs do not",
	only: []string{"internal/srcpos", "internal/redact"},
}, {
	pkgs: []string{"./toolschema"},
	why:  "converting a tool's schema links no client, so decoys and recorded catalogs do not",
	only: []string{"internal/bridge", "internal/record", "internal/termtext"},
}}

// TestLayers checks every rule of layerRules against go list -deps.
func TestLayers(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	for _, r := range layerRules {
		format := `{{.ImportPath}} {{join .Deps " "}}`
		if r.direct {
			format = `{{.ImportPath}} {{join .Imports " "}}`
		}
		args := append([]string{"list", "-f", format}, r.pkgs...)
		out, err := exec.Command(goTool, args...).Output()
		if err != nil {
			t.Fatalf("go list %v: %v", r.pkgs, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if !strings.Contains(strings.Join(r.pkgs, " "), "...") && len(lines) != len(r.pkgs) {
			t.Fatalf("go list answered %d lines for %v", len(lines), r.pkgs)
		}
		for _, line := range lines {
			fields := strings.Fields(line)
			if slices.Contains(r.except, fields[0]) {
				continue
			}
			for _, dep := range fields[1:] {
				if breaks(dep, r.banned, r.only) {
					t.Errorf("%s depends on %s, and may not: %s", fields[0], dep, r.why)
				}
			}
		}
	}
}

// breaks says whether dep is one a rule with banned and only forbids.
func breaks(dep string, banned, only []string) bool {
	for _, b := range banned {
		root, below := strings.CutSuffix(b, "/...")
		if dep == root || below && strings.HasPrefix(dep, root+"/") {
			return true
		}
	}
	name, inModule := strings.CutPrefix(dep, mod)
	return only != nil && inModule && !slices.Contains(only, name)
}
