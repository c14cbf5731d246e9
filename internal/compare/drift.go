package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// runDrift lists every setting that differs between two runs, and the
// differences of their tool catalogs.
func runDrift(a, b *record.Run) ([]Drift, []CatalogChange) {
	var d []Drift
	add := func(field, x, y string) {
		if x != y {
			d = append(d, Drift{Field: field, Base: x, Current: y})
		}
	}
	add("suite", a.Suite.Name, b.Suite.Name)
	add("suite hash", a.Suite.Hash, b.Suite.Hash)
	add("harness version", a.Harness, b.Harness)
	add("ollama version", a.Ollama.Version, b.Ollama.Version)
	ma, mb := modelMap(a), modelMap(b)
	for _, name := range unionSorted(slices.Collect(maps.Keys(ma)), slices.Collect(maps.Keys(mb))) {
		x, okx := ma[name]
		y, oky := mb[name]
		switch {
		case !okx:
			add("model "+name, "(absent)", "present")
		case !oky:
			add("model "+name, "present", "(absent)")
		default:
			add("model "+name+" digest", x.Digest, y.Digest)
			add("model "+name+" quantization", x.Quantization, y.Quantization)
		}
	}
	for _, k := range unionSorted(slices.Collect(maps.Keys(a.Options)), slices.Collect(maps.Keys(b.Options))) {
		x, okx := a.Options[k]
		y, oky := b.Options[k]
		add("option "+k, optionValue(x, okx), optionValue(y, oky))
	}
	add("think", orUnset(a.Think), orUnset(b.Think))
	add("max_rounds", strconv.Itoa(a.MaxRounds), strconv.Itoa(b.MaxRounds))
	add("base_seed", strconv.FormatInt(a.BaseSeed, 10), strconv.FormatInt(b.BaseSeed, 10))
	add("repeat", strconv.Itoa(a.Repeat), strconv.Itoa(b.Repeat))
	add("no_execute", strconv.FormatBool(a.NoExecute), strconv.FormatBool(b.NoExecute))
	add("catalog hash", a.CatalogHash, b.CatalogHash)
	if a.Judge != nil || b.Judge != nil {
		ja, jb := judgeOf(a), judgeOf(b)
		add("judge model", ja.Model, jb.Model)
		add("judge digest", ja.Digest, jb.Digest)
		add("judge repeat", strconv.Itoa(ja.Repeat), strconv.Itoa(jb.Repeat))
	}
	if d == nil {
		d = []Drift{}
	}
	return d, catalogsDiff(a.Catalogs, b.Catalogs)
}

// judgeOf is r's judge, or "(none)" for a run without one: a judged rate
// compared across judges measures the judges too.
func judgeOf(r *record.Run) record.RunJudge {
	if r.Judge == nil {
		return record.RunJudge{Model: "(none)"}
	}
	return *r.Judge
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

func optionValue(v any, ok bool) string {
	if !ok {
		return "(unset)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func unionSorted(a, b []string) []string {
	s := slices.Concat(a, b)
	slices.Sort(s)
	return slices.Compact(s)
}

// catalogsDiff compares the catalogs of two runs variant by variant. A run
// written before run.json kept its catalogs has none: then only the catalog
// hash (in the drift) can tell a change.
func catalogsDiff(a, b []record.RunCatalog) []CatalogChange {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	byName := func(cs []record.RunCatalog) (map[string]record.RunCatalog, []string) {
		m := map[string]record.RunCatalog{}
		var order []string
		for _, c := range cs {
			m[c.Variant] = c
			order = append(order, c.Variant)
		}
		return m, order
	}
	ma, oa := byName(a)
	mb, ob := byName(b)
	var out []CatalogChange
	seen := map[string]bool{}
	for _, v := range slices.Concat(oa, ob) {
		if seen[v] {
			continue
		}
		seen[v] = true
		x, okx := ma[v]
		y, oky := mb[v]
		label := VariantLabel(v)
		switch {
		case !okx:
			out = append(out, CatalogChange{Variant: label, Change: "catalog added"})
		case !oky:
			out = append(out, CatalogChange{Variant: label, Change: "catalog removed"})
		default:
			out = append(out, catalogDiff(label, x, y)...)
		}
	}
	return out
}

// variantDiff compares the catalogs two variants of one run sent.
func variantDiff(r *record.Run, a, b string) []CatalogChange {
	var x, y *record.RunCatalog
	for i := range r.Catalogs {
		switch r.Catalogs[i].Variant {
		case a:
			x = &r.Catalogs[i]
		case b:
			y = &r.Catalogs[i]
		}
	}
	if x == nil || y == nil {
		return nil
	}
	return catalogDiff(VariantLabel(a)+"→"+VariantLabel(b), *x, *y)
}

// tool is the part of an api.Tool JSON a diff reads.
type tool struct {
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type params struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// catalogDiff is the readable difference of two catalogs: tools added and
// removed, then, tool by tool in Base's order, description, parameter and
// schema changes.
func catalogDiff(variant string, a, b record.RunCatalog) []CatalogChange {
	var out []CatalogChange
	if a.System != b.System {
		out = append(out, CatalogChange{Variant: variant, Change: "system prompt", Base: a.System, Current: b.System})
	}
	if a.Hash != "" && a.Hash == b.Hash {
		return out
	}
	ta, errA := parseTools(a.Tools)
	tb, errB := parseTools(b.Tools)
	if errA != nil || errB != nil {
		if string(a.Tools) != string(b.Tools) {
			out = append(out, CatalogChange{Variant: variant, Change: "schema", Base: string(a.Tools), Current: string(b.Tools)})
		}
		return out
	}
	idx := map[string]tool{}
	for _, t := range tb {
		idx[t.Function.Name] = t
	}
	inA := map[string]bool{}
	for _, x := range ta {
		name := x.Function.Name
		inA[name] = true
		y, ok := idx[name]
		if !ok {
			out = append(out, CatalogChange{Variant: variant, Tool: name, Change: "tool removed", Base: x.Function.Description})
			continue
		}
		out = append(out, toolDiff(variant, x, y)...)
	}
	for _, y := range tb {
		if !inA[y.Function.Name] {
			out = append(out, CatalogChange{Variant: variant, Tool: y.Function.Name, Change: "tool added", Current: y.Function.Description})
		}
	}
	return out
}

func parseTools(raw json.RawMessage) ([]tool, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var ts []tool
	err := json.Unmarshal(raw, &ts)
	return ts, err
}

func toolDiff(variant string, x, y tool) []CatalogChange {
	name := x.Function.Name
	var out []CatalogChange
	if x.Function.Description != y.Function.Description {
		out = append(out, CatalogChange{Variant: variant, Tool: name, Change: "description", Base: x.Function.Description, Current: y.Function.Description})
	}
	var pa, pb params
	json.Unmarshal(x.Function.Parameters, &pa)
	json.Unmarshal(y.Function.Parameters, &pb)
	for _, p := range unionSorted(slices.Collect(maps.Keys(pa.Properties)), slices.Collect(maps.Keys(pb.Properties))) {
		sa, oka := pa.Properties[p]
		sb, okb := pb.Properties[p]
		switch {
		case !oka:
			out = append(out, CatalogChange{Variant: variant, Tool: name, Param: p, Change: "parameter added", Current: canonical(sb)})
		case !okb:
			out = append(out, CatalogChange{Variant: variant, Tool: name, Param: p, Change: "parameter removed", Base: canonical(sa)})
		default:
			da, ra := splitDescription(sa)
			db, rb := splitDescription(sb)
			if da != db {
				out = append(out, CatalogChange{Variant: variant, Tool: name, Param: p, Change: "parameter description", Base: da, Current: db})
			}
			if ra != rb {
				out = append(out, CatalogChange{Variant: variant, Tool: name, Param: p, Change: "parameter schema", Base: ra, Current: rb})
			}
		}
	}
	ra, rb := slices.Sorted(slices.Values(pa.Required)), slices.Sorted(slices.Values(pb.Required))
	if !slices.Equal(ra, rb) {
		out = append(out, CatalogChange{Variant: variant, Tool: name, Change: "required", Base: strings.Join(ra, ", "), Current: strings.Join(rb, ", ")})
	}
	// Anything else of the schema (its type, additionalProperties, $defs).
	if restA, restB := schemaRest(x.Function.Parameters), schemaRest(y.Function.Parameters); restA != restB {
		out = append(out, CatalogChange{Variant: variant, Tool: name, Change: "schema", Base: restA, Current: restB})
	}
	return out
}

// splitDescription returns a property schema's description and the rest of
// it as canonical JSON.
func splitDescription(raw json.RawMessage) (string, string) {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return "", string(raw)
	}
	d, _ := m["description"].(string)
	delete(m, "description")
	b, _ := json.Marshal(m)
	return d, string(b)
}

// schemaRest is a parameters schema without its properties and required
// list, as canonical JSON.
func schemaRest(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	delete(m, "properties")
	delete(m, "required")
	b, _ := json.Marshal(m)
	return string(b)
}

// canonical re-encodes JSON with sorted keys, so equal schemas read alike.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// RunDrift lists the settings in which run b differs from run a and the
// differences of their catalogs, as Runs reports them; `toolgrade merge`
// refuses shards that drift so.
func RunDrift(a, b *record.Run) ([]Drift, []CatalogChange) { return runDrift(a, b) }
