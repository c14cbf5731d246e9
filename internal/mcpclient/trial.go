package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// Trial is one trial's own instances of a catalog's per-trial servers
// (serversfile.Server.PerTrial): each a fresh process started in the trial's
// directory, which a call reaches when its context carries the trial
// (WithTrial). Close ends them and removes the directory.
type Trial struct {
	// Dir is the trial's directory: ${trialDir} of each of its servers, and
	// their working directory unless the file says otherwise.
	Dir     string
	servers map[string]*server
	// cat is the catalog the trial's servers are instances of: a call on
	// another catalog (a variant's servers file) keeps to its own servers.
	cat  *Catalog
	once sync.Once
}

// PerTrial reports whether any connected server is per trial, so that a
// trial must start its own instances (StartTrial) before it runs.
func (c *Catalog) PerTrial() bool {
	for _, s := range c.conns {
		if s.template.PerTrial {
			return true
		}
	}
	return false
}

// StartTrial starts, in one new directory named after name (a trial's key),
// an instance of every per-trial server: the directory gets each server's
// trialTemplate first, then the servers start there at once. Each must list
// exactly the tools the catalog's instance listed (else the model would be
// shown one catalog and call another), or StartTrial fails, leaving nothing
// behind. The error is an infrastructure failure of the trial, never the
// model's. A catalog without per-trial servers gives a Trial with no
// servers and no directory.
func (c *Catalog) StartTrial(ctx context.Context, name string) (*Trial, error) {
	var per []*server
	for _, s := range c.conns {
		if s.template.PerTrial {
			per = append(per, s)
		}
	}
	t := &Trial{servers: map[string]*server{}, cat: c}
	if len(per) == 0 {
		return t, nil
	}
	dir, err := newTrialDir(c.opts.TrialDirs, name)
	if err != nil {
		return nil, err
	}
	t.Dir = dir
	for _, s := range per {
		if s.template.TrialTemplate != "" {
			if err := copyTree(s.template.TrialTemplate, dir); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("server %q: copying its trialTemplate: %w", s.template.Name, err)
			}
		}
	}
	cctx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancel()
	errs := make([]error, len(per))
	started := make([]*server, len(per))
	var wg sync.WaitGroup
	for i, s := range per {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started[i], errs[i] = c.startInstance(cctx, s, dir)
		}()
	}
	wg.Wait()
	for i, s := range started {
		if s != nil {
			t.servers[per[i].cfg.Name] = s
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Close(false)
		return nil, err
	}
	return t, nil
}

// startInstance starts one trial's instance of the per-trial server s in
// dir and checks that it lists s's tools.
func (c *Catalog) startInstance(ctx context.Context, s *server, dir string) (*server, error) {
	cfg := s.template.ForTrial(dir)
	sc, err := connectOne(ctx, cfg, s.dir, s.stderr, c.opts.MaxFrameBytes)
	if err != nil {
		return nil, fmt.Errorf("server %q: starting its instance for the trial: %w", cfg.Name, err)
	}
	inst := &server{cfg: cfg, dir: s.dir, stderr: s.stderr, opts: &c.opts, life: s.life,
		listed: s.listed, raw: s.raw, cur: sc}
	if !sameTools(s.listed, sc.listed) {
		inst.close()
		return nil, fmt.Errorf("server %q: the trial's instance lists other tools than the instance the run's catalog was listed from (its catalog hash differs), so the model would be shown one catalog and call another: make the server list the same tools whatever its directory holds", cfg.Name)
	}
	return inst, nil
}

// Close ends the trial's server processes and removes its directory, unless
// keep is set: the directory is then left for a look, and kept is its path.
// It is safe to call more than once.
func (t *Trial) Close(keep bool) (kept string, err error) {
	if t == nil {
		return "", nil
	}
	t.once.Do(func() {
		var errs []error
		for _, s := range t.servers {
			errs = append(errs, s.close())
		}
		switch {
		case t.Dir == "":
		case keep:
			kept = t.Dir
		default:
			errs = append(errs, os.RemoveAll(t.Dir))
		}
		err = errors.Join(errs...)
	})
	return kept, err
}

type trialKey struct{}

// WithTrial returns ctx carrying t: a call made with it runs on t's
// instance of a per-trial server, not the catalog's. The bridge loop and
// the toolboxes over the catalog pass their context on to its Call, so the
// trial reaches the server through every layer (policy, overlays, decoys).
func WithTrial(ctx context.Context, t *Trial) context.Context {
	if t == nil || len(t.servers) == 0 {
		return ctx
	}
	return context.WithValue(ctx, trialKey{}, t)
}

// serverFor is the server a call to a tool of server name runs on: the
// trial's instance when ctx carries a trial that has one, else the
// catalog's.
func (c *Catalog) serverFor(ctx context.Context, name string) *server {
	if t, ok := ctx.Value(trialKey{}).(*Trial); ok && t.cat == c {
		if s := t.servers[name]; s != nil {
			return s
		}
	}
	return c.byName[name]
}

// newTrialDir makes a new directory under parent (empty: the system's
// temporary folder), its name saying what it is for.
func newTrialDir(parent, name string) (string, error) {
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '-'
	}, name)
	if len(safe) > 80 {
		safe = safe[:80]
	}
	dir, err := os.MkdirTemp(parent, "toolgrade-trial-"+safe+"-")
	if err != nil {
		return "", fmt.Errorf("making a trial directory: %w", err)
	}
	return dir, nil
}

// listingDir is the directory of the instance a per-trial server s is
// listed from: made as a trial's is, from its trialTemplate, so a server
// whose tools depend on what its folder holds lists them as a trial's
// instance will.
func listingDir(parent string, s serversfile.Server) (string, error) {
	dir, err := newTrialDir(parent, "list-"+s.Name)
	if err != nil {
		return "", err
	}
	if s.TrialTemplate != "" {
		if err := copyTree(s.TrialTemplate, dir); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("copying its trialTemplate: %w", err)
		}
	}
	return dir, nil
}

// copyTree copies the files and folders under src into dst (which exists),
// keeping their permission bits; symbolic links are copied as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case !info.Mode().IsRegular():
			return nil // sockets, devices: nothing a server's state needs
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, info.Mode().Perm())
	})
}
