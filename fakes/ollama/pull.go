package fakeollama

import (
	"cmp"
	"net/http"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// pullMissing is the error line of Ollama 0.17.4 when the registry has no
// such model (PullModel wraps os.ErrNotExist).
const pullMissing = "pull model manifest: file does not exist"

// pull answers POST /api/pull. A model of the script "downloads" in a few
// progress lines; any other model fails after "pulling manifest" with the
// error line real Ollama sends (HTTP 200, since the stream has begun).
func (s *Server) pull(w http.ResponseWriter, r *http.Request, body []byte) {
	var req api.PullRequest
	if err := decodeBody(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := model.ParseName(cmp.Or(req.Model, req.Name))
	if !name.IsValid() {
		writeError(w, http.StatusBadRequest, "invalid model name")
		return
	}
	steps := []api.ProgressResponse{{Status: "pulling manifest"}}
	m := s.findModel(name.String())
	if m != nil {
		for _, layer := range []struct {
			name string
			size int64
		}{{"model", m.size}, {"params", 32}} {
			d := m.layerDigest(layer.name)
			status := "pulling " + d[7:19]
			steps = append(steps,
				api.ProgressResponse{Status: status, Digest: d, Total: layer.size, Completed: layer.size / 2},
				api.ProgressResponse{Status: status, Digest: d, Total: layer.size, Completed: layer.size})
		}
		steps = append(steps,
			api.ProgressResponse{Status: "verifying sha256 digest"},
			api.ProgressResponse{Status: "writing manifest"},
			api.ProgressResponse{Status: "success"})
	}

	if req.Stream != nil && !*req.Stream {
		// waitForStream: only the last progress, or the error as HTTP 500.
		w.Header().Set("Content-Type", "application/json")
		if m == nil {
			writeError(w, http.StatusInternalServerError, pullMissing)
			return
		}
		writeJSON(w, http.StatusOK, steps[len(steps)-1])
		return
	}
	st := newStream(w, r)
	for _, p := range steps {
		if !st.send(p) {
			return
		}
	}
	if m == nil {
		st.sendError(pullMissing)
	}
}
