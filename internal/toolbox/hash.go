package toolbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
)

// Hash is the one hash of a catalog, as run.json records it (catalog_hash,
// each server's, each variant's and each case catalog's hash): the sha256
// (hex) of the tools JSON exactly as sent, followed, when extra is not
// empty, by a NUL byte and extra (what a variant sends besides its tools).
// An existing run resumes only while these values stay the same.
func Hash(tools []byte, extra string) string {
	h := sha256.New()
	h.Write(tools)
	if extra != "" {
		h.Write([]byte{0})
		h.Write([]byte(extra))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CatalogHash is run.json's catalog_hash: the Hash of the servers' tools as
// sent (cat.OllamaTools), which identifies exactly what the model was
// offered.
func CatalogHash(cat *mcpclient.Catalog) string { return hashTools(cat.OllamaTools()) }

// hashTools is the Hash of tools as JSON, nil encoded as [].
func hashTools(tools api.Tools) string {
	if tools == nil {
		tools = api.Tools{}
	}
	data, err := json.Marshal(tools)
	if err != nil {
		// api.Tools always marshals; a failure here is a programming error
		// that must not pass as a real hash.
		panic(fmt.Sprintf("toolbox: marshaling tools: %v", err))
	}
	return Hash(data, "")
}

// RunServers is what run.json records of the connected servers: each
// server's name, hash and exposed tool names, in catalog order. A server's
// hash covers its tools under their own names, so it changes only when that
// server's tools (or its filter) change, not when another server's tools
// rename it; a server that offers no tool is left out.
func RunServers(cat *mcpclient.Catalog) []record.RunServer {
	var out []record.RunServer
	var own []api.Tools // each server's tools under their own names
	// A server's tools come together, servers in name order.
	for _, t := range cat.Tools() {
		if len(out) == 0 || out[len(out)-1].Name != t.Server {
			out = append(out, record.RunServer{Name: t.Server})
			own = append(own, nil)
		}
		i := len(out) - 1
		out[i].Tools = append(out[i].Tools, t.Exposed)
		o := t.Ollama
		o.Function.Name = t.Name
		own[i] = append(own[i], o)
	}
	for i := range out {
		out[i].Hash = hashTools(own[i])
	}
	return out
}
