package view

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/proxy"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/store"
)

//go:embed assets
var assets embed.FS

// Handler serves the viewer over the run folders dirs, behind serve's
// origin and host guard (proxy.Guard; hosts are Host names let in beside
// loopback ones):
//
//	/                  the index page (assets/index.html)
//	/api/runs          every run's Entry, as JSON
//	/api/progress?id=  a run's status and trials done, as JSON
//	/run?id=ID         the run's report.html (rendered when absent, or
//	                   while the run is being written)
//	/compare?a=ID&b=ID the comparison of run a (base) with run b
func Handler(dirs []string, hosts []string) http.Handler {
	v := &viewer{dirs: dirs}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", v.asset("index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /view.js", v.asset("view.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /view.css", v.asset("view.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /api/runs", v.runs)
	mux.HandleFunc("GET /api/progress", v.progress)
	mux.HandleFunc("GET /run", sandboxed(v.report))
	mux.HandleFunc("GET /compare", sandboxed(v.compare))
	return proxy.Guard(secure(mux), "the viewer", hosts)
}

// pageCSP is the policy of every page made of a run's files (its
// report.html, a comparison): sandboxed without allow-same-origin, so the
// page runs in an opaque origin of its own, as Jupyter serves the files
// of a notebook folder. A report.html someone else wrote (a downloaded CI
// artifact, a shared drive) may run its own script, but cannot read
// /api/runs or another run: its requests carry Origin "null", which the
// guard refuses, and nothing answers it with CORS. It may load nothing
// and connect nowhere: a report is one self-contained file.
const pageCSP = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

// sandboxed serves h's pages under pageCSP.
func sandboxed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", pageCSP)
		h(w, r)
	}
}

// secure sets the headers every answer carries: pages and data load from
// the viewer alone, and nothing here may be framed or sniffed as another
// type. A report's own inline script and style stay allowed.
func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

type viewer struct {
	dirs []string
}

func (v *viewer) asset(name, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", ctype)
		// The viewer's own page runs its script file alone: no inline
		// script, so nothing a run holds can run even if it were
		// written into the page.
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		w.Write(b)
	}
}

func writeJSON(w http.ResponseWriter, x any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(x)
}

func (v *viewer) runs(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, Scan(v.dirs))
}

// dir is the run directory an ID names: one of the folders given, and in it
// a directory by its name alone, so no ID reaches outside them.
func (v *viewer) dir(id string) (string, error) {
	root, name, ok := strings.Cut(id, "/")
	i, err := strconv.Atoi(root)
	if !ok || err != nil || i < 0 || i >= len(v.dirs) {
		return "", fmt.Errorf("no run %q", id)
	}
	if name == "." {
		return v.dirs[i], nil
	}
	if name == "" || name == ".." || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("no run %q", id)
	}
	dir := filepath.Join(v.dirs[i], name)
	// Scan lists no link: a run linked in from elsewhere is no run here.
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("no run %q", id)
	}
	return dir, nil
}

func (v *viewer) open(id string) (*store.Reader, error) {
	dir, err := v.dir(id)
	if err != nil {
		return nil, err
	}
	if err := confined(dir, record.RunFile, record.TrialsFile, record.SummaryFile); err != nil {
		return nil, err
	}
	return store.Open(dir)
}

// Progress is what /api/progress says of a run: its status and the trials
// done of those planned.
type Progress struct {
	Status string `json:"status"`
	Done   int    `json:"done"`
	Total  int    `json:"total"`
}

// progress counts the run's trials (one per trial key, as every reader
// does); it is asked only of a run being written.
func (v *viewer) progress(w http.ResponseWriter, r *http.Request) {
	rd, err := v.open(r.URL.Query().Get("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	p := Progress{Status: rd.Run.Status, Total: planned(rd.Run)}
	if _, err := rd.Trials(func(*record.Trial) { p.Done++ }); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, p)
}

// report serves the run's report.html as the run left it, or renders it
// from the trials (as `toolgrade report --format html` does) when there is
// none or the run is still being written.
func (v *viewer) report(w http.ResponseWriter, r *http.Request) {
	rd, err := v.open(r.URL.Query().Get("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if rd.Run.Status != "running" {
		if f, err := openInside(rd.Dir, record.HTMLFile); err == nil {
			defer f.Close()
			io.Copy(w, f)
			return
		}
	}
	if err := report.WriteRunHTML(w, rd, io.Discard); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// compare renders compare's HTML page of run a (the base) against run b.
func (v *viewer) compare(w http.ResponseWriter, r *http.Request) {
	var rds []*store.Reader
	for _, k := range []string{"a", "b"} {
		rd, err := v.open(r.URL.Query().Get(k))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		rds = append(rds, rd)
	}
	sides, err := compare.ParseSides(2, "", "")
	if err == nil {
		var c *compare.Comparison
		if c, _, err = sides.Compare(rds, &compare.Options{Alpha: compare.DefaultAlpha}); err == nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			err = report.WriteCompareHTML(w, c)
			if err == nil {
				return
			}
		}
	}
	status := http.StatusInternalServerError
	if !errors.Is(err, os.ErrNotExist) {
		status = http.StatusUnprocessableEntity
	}
	http.Error(w, "compare: "+err.Error(), status)
}
