package toolbox

import (
	"maps"
	"slices"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
)

// SameCatalogs is the resume rule of catalogs: it refuses to resume the
// run in dir (whose run.json is recorded) when a variant's catalog changed
// since the run began (now is what Open made of them, Set.Catalogs), or the
// catalog it sends one of the cases that bring their own tools: its trials
// before and after would not be comparable. The error is a *cli.UsageError.
func SameCatalogs(dir string, recorded *record.Run, now []record.RunCatalog) error {
	for _, c := range now {
		for _, old := range recorded.Catalogs {
			if old.Variant != c.Variant {
				continue
			}
			if old.Hash != c.Hash {
				return cli.Usagef("--resume: the catalog of variant %s changed since the run in %s began (hash %.12s, now %.12s): its trials would not be comparable",
					displayVariant(c.Variant), dir, old.Hash, c.Hash)
			}
			if err := sameCaseCatalogs(dir, c.Variant, old.Cases, c.Cases); err != nil {
				return err
			}
		}
	}
	return nil
}

// sameCaseCatalogs is SameCatalogs for the case catalogs of one variant.
func sameCaseCatalogs(dir, variant string, old, now []record.RunCaseCatalog) error {
	was, is := caseHashes(old), caseHashes(now)
	for _, id := range slices.Sorted(maps.Keys(is)) {
		if was[id] != is[id] {
			return cli.Usagef("--resume: the tools of case %s in variant %s changed since the run in %s began (hash %.12s, now %.12s): its trials would not be comparable",
				id, displayVariant(variant), dir, orNone(was[id]), is[id])
		}
	}
	for _, id := range slices.Sorted(maps.Keys(was)) {
		if _, ok := is[id]; !ok {
			return cli.Usagef("--resume: case %s in variant %s had its own tools when the run in %s began and has none now: its trials would not be comparable",
				id, displayVariant(variant), dir)
		}
	}
	return nil
}

// caseHashes maps each case id of a variant's case catalogs to its hash.
func caseHashes(cs []record.RunCaseCatalog) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		for _, id := range c.Cases {
			out[id] = c.Hash
		}
	}
	return out
}

func orNone(h string) string {
	if h == "" {
		return "none"
	}
	return h
}
