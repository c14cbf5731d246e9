package servers

import (
	"encoding/json"
	"sync"
)

// Statics builds the fixed catalogs of one base catalog, each distinct list
// of tools once: the cases of a suite that list the same tools share one
// Static, so what is converted, sent and recorded once is one value. It is
// safe for concurrent use.
type Statics struct {
	base  *Catalog
	mu    sync.Mutex
	built map[string]*Static // by the tool list as JSON
}

// NewStatics returns the builder of fixed catalogs over base (see
// NewStatic).
func NewStatics(base *Catalog) *Statics {
	return &Statics{base: base, built: map[string]*Static{}}
}

// Static is the fixed catalog of tools over the base: the one built for an
// equal list before, else a new one (a list that fails is not kept).
func (ss *Statics) Static(tools []StaticTool) (*Static, error) {
	b, err := json.Marshal(tools)
	if err != nil {
		return nil, err
	}
	key := string(b)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st := ss.built[key]; st != nil {
		return st, nil
	}
	st, err := NewStatic(ss.base, tools)
	if err != nil {
		return nil, err
	}
	ss.built[key] = st
	return st, nil
}

// Len is how many distinct catalogs have been built.
func (ss *Statics) Len() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.built)
}
