package fakeollama

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// modelInfo is a script model with its defaults filled in and the values
// Ollama derives from it (full name, digest, size).
type modelInfo struct {
	Model
	name    model.Name // registry.ollama.ai/library/NAME:TAG
	display string     // NAME:TAG, as /api/tags shows it
	key     string     // lower-case full name, for matching
	digest  string     // 64 hex digits, as /api/tags shows it
	params  int64      // parameter count, 0 when ParameterSize is not a number
	size    int64      // bytes on disk
	// weights is the model whose weights these are: itself, or the model
	// its SameWeights names. Models load by their weights.
	weights *modelInfo
}

// defaultNumCtx is the context length of a model whose script sets none.
const defaultNumCtx = 8192

func newModelInfo(m Model) *modelInfo {
	if len(m.Capabilities) == 0 {
		m.Capabilities = []string{string(model.CapabilityCompletion), string(model.CapabilityTools)}
	}
	if m.Family == "" {
		m.Family = "llama"
	}
	if m.ParameterSize == "" {
		m.ParameterSize = "8B"
	}
	if m.Quantization == "" {
		m.Quantization = "Q4_K_M"
	}
	if m.NumCtx == 0 {
		m.NumCtx = defaultNumCtx
	}
	m.Capabilities = slices.Clone(m.Capabilities)
	m.ThinkLevels = slices.Clone(m.ThinkLevels)
	n := model.ParseName(m.Name)
	sum := sha256.Sum256([]byte(strings.ToLower(n.String())))
	mi := &modelInfo{
		Model:   m,
		name:    n,
		display: n.DisplayShortest(),
		key:     strings.ToLower(n.String()),
		digest:  hex.EncodeToString(sum[:]),
		params:  parseParams(m.ParameterSize),
	}
	mi.size = modelSize(mi.params, m.Quantization)
	mi.weights = mi
	return mi
}

// has reports whether the model has capability c.
func (m *modelInfo) has(c model.Capability) bool {
	return slices.Contains(m.Capabilities, string(c))
}

// capabilities lists the model's capabilities as /api/show gives them.
func (m *modelInfo) capabilities() []model.Capability {
	out := make([]model.Capability, len(m.Capabilities))
	for i, c := range m.Capabilities {
		out[i] = model.Capability(c)
	}
	return out
}

// details is the details object of /api/tags, /api/show and /api/ps.
func (m *modelInfo) details() api.ModelDetails {
	return api.ModelDetails{
		Format:            "gguf",
		Family:            m.Family,
		Families:          []string{m.Family},
		ParameterSize:     m.ParameterSize,
		QuantizationLevel: m.Quantization,
	}
}

// layerDigest is the "sha256:..." digest of one of the model's blobs.
func (m *modelInfo) layerDigest(layer string) string {
	sum := sha256.Sum256([]byte(m.key + "/" + layer))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// findModel resolves a requested name the way Ollama does: a missing tag is
// "latest" and the comparison ignores case. It returns nil for an unknown
// model.
func (s *Server) findModel(name string) *modelInfo {
	n := model.ParseName(name)
	if !n.IsValid() {
		return nil
	}
	key := strings.ToLower(n.String())
	for _, m := range s.models {
		if m.key == key {
			return m
		}
	}
	return nil
}

// parseParams reads a parameter size such as "8B", "519K" or "1.5B".
func parseParams(s string) int64 {
	s = strings.TrimSpace(strings.ToUpper(s))
	if s == "" {
		return 0
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'K':
		mult = 1e3
	case 'M':
		mult = 1e6
	case 'B':
		mult = 1e9
	case 'T':
		mult = 1e12
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0
	}
	return int64(f * mult)
}

// modelSize estimates the file size of a model from its parameter count and
// quantization.
func modelSize(params int64, quant string) int64 {
	if params == 0 {
		params = 8_000_000_000
	}
	bits := map[string]float64{
		"Q4_0": 4.5, "Q4_1": 5, "Q4_K_S": 4.6, "Q4_K_M": 4.85, "Q5_0": 5.5, "Q5_K_S": 5.5, "Q5_K_M": 5.7,
		"Q6_K": 6.6, "Q8_0": 8.5, "F16": 16, "BF16": 16, "F32": 32,
	}[strings.ToUpper(quant)]
	if bits == 0 {
		bits = 4.85
	}
	return int64(float64(params)*bits/8) + 1<<20
}

// loadedSize estimates the memory the loaded model takes, which /api/ps
// lists as size: more than the file (the captured 519K-parameter model
// listed 3,497,984 bytes loaded for a 2,087,779-byte file at num_ctx 8192).
// It adds a KV cache of one byte of context a token per 62,500 parameters
// (128 KB a token for 8B, about what a llama-style model with grouped-query
// attention keeps in f16) and 1 MiB of compute buffers.
// numCtx is the context it was loaded with.
func (m *modelInfo) loadedSize(numCtx int) int64 {
	params := m.params
	if params == 0 {
		params = 8_000_000_000
	}
	return m.size + int64(numCtx)*(params/62_500) + 1<<20
}
