package store

import (
	"fmt"

	"github.com/toolgrade/toolgrade/internal/record"
)

// CheckResume refuses to resume the run in dir, whose run.json is old, when
// what it would run with now differs from what it began with: the suite
// file, the servers' tools, or a model's weights. The trials would not be
// comparable.
func CheckResume(dir string, old *record.Run, now Current) error {
	if now.SuiteHash != "" && now.SuiteHash != old.Suite.Hash {
		return fmt.Errorf("%s changed since the run in %s began (hash %.12s, now %.12s): its trials would not be comparable",
			old.Suite.Path, dir, old.Suite.Hash, now.SuiteHash)
	}
	if now.CatalogHash != "" && now.CatalogHash != old.CatalogHash {
		return fmt.Errorf("the servers' tools changed since the run in %s began (catalog %.12s, now %.12s): its trials would not be comparable",
			dir, old.CatalogHash, now.CatalogHash)
	}
	for _, m := range now.Models {
		for _, o := range old.Models {
			if o.Name == m.Name && o.Digest != "" && o.Digest != m.Digest {
				return fmt.Errorf("model %s changed since the run began (digest %.12s, now %.12s): its trials would not be comparable",
					m.Name, o.Digest, m.Digest)
			}
		}
	}
	return nil
}

// MergeModels keeps the models of an earlier run in their order and updates
// them with those described now (record.Model.Updated: what was measured
// before stays until measured again); models new to the run are appended.
func MergeModels(old, now []record.Model) []record.Model {
	out := append([]record.Model(nil), old...)
	for _, m := range now {
		found := false
		for i := range out {
			if out[i].Name == m.Name {
				out[i], found = out[i].Updated(m), true
			}
		}
		if !found {
			out = append(out, m)
		}
	}
	return out
}
