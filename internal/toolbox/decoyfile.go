package toolbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/toolschema"
	"go.yaml.in/yaml/v3"
)

// LoadDecoys reads the decoys of one pool entry: a file of MCP tool
// definitions, or every *.json file of a folder in name order. Each tool is
// converted as a server's would be (see toolschema.Convert) with the given
// property order; its Server is the file's base name without extension. A
// file's errors carry file:line:col.
func LoadDecoys(path, propertyOrder string) ([]toolschema.Tool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return loadDecoyFile(path, propertyOrder)
	}
	files, err := filepath.Glob(filepath.Join(path, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.json decoy files in the folder", path)
	}
	sort.Strings(files)
	var out []toolschema.Tool
	for _, f := range files {
		tools, err := loadDecoyFile(f, propertyOrder)
		if err != nil {
			return nil, err
		}
		out = append(out, tools...)
	}
	return out, nil
}

// toolDef is one tool of a decoy file, in the MCP tools/list shape.
type toolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// loadDecoyFile reads one decoy file: {"tools": [...]} (a tools/list result
// as captured) or a bare list of tools, each with name, description and
// inputSchema.
func loadDecoyFile(path, propertyOrder string) ([]toolschema.Tool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root any
	if err := json.Unmarshal(data, &root); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, srcpos.Errorf(srcpos.Offset(path, data, int(se.Offset)), "", "%v", err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	at := decoyPositions(path, data)
	raws, err := decoyList(data, at)
	if err != nil {
		return nil, err
	}
	server := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	out, err := convertDecoys(raws, server, propertyOrder, at)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, srcpos.Errorf(at(-1, ""), "", "the file lists no tools")
	}
	return out, nil
}

// decoyPos is the position of the i-th tool of a decoy file (of its field,
// when not ""); i < 0 is the file's start.
type decoyPos func(i int, field string) srcpos.Pos

// decoyPositions reads data again as YAML nodes, for the positions of
// problems.
func decoyPositions(path string, data []byte) decoyPos {
	var doc yaml.Node
	_ = yaml.Unmarshal(data, &doc)
	list := listNode(&doc)
	return func(i int, field string) srcpos.Pos {
		n := list
		if n != nil && i >= 0 && i < len(n.Content) {
			n = n.Content[i]
			if field != "" {
				n = fieldNode(n, field)
			}
		}
		if n == nil {
			return srcpos.Pos{File: path, Line: 1, Col: 1}
		}
		return srcpos.Node(path, n)
	}
}

// decoyList is the tools of a decoy file, each as written.
func decoyList(data []byte, at decoyPos) ([]json.RawMessage, error) {
	var raws []json.RawMessage
	var err error
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(data, &raws)
	} else {
		var res struct {
			Tools *[]json.RawMessage `json:"tools"`
		}
		err = json.Unmarshal(data, &res)
		if err == nil && res.Tools == nil {
			return nil, srcpos.Errorf(at(-1, ""), "", `not a decoy file: expected {"tools": [...]} (a tools/list result) or a list of tools`)
		}
		if res.Tools != nil {
			raws = *res.Tools
		}
	}
	if err != nil {
		return nil, srcpos.Errorf(at(-1, ""), "", `not a decoy file: expected {"tools": [...]} or a list of tools: %v`, err)
	}
	return raws, nil
}

// convertDecoys converts the tools of a decoy file as server's, each
// problem an error at its place.
func convertDecoys(raws []json.RawMessage, server, propertyOrder string, at decoyPos) ([]toolschema.Tool, error) {
	var errs srcpos.List
	var out []toolschema.Tool
	seen := map[string]bool{}
	for i, raw := range raws {
		field := fmt.Sprintf("tools[%d]", i)
		var d toolDef
		if err := json.Unmarshal(raw, &d); err != nil {
			errs.Add(at(i, ""), field, "must be a tool {name, description, inputSchema}: %v", err)
			continue
		}
		if strings.TrimSpace(d.Name) == "" {
			errs.Add(at(i, ""), field, "a tool needs a name")
			continue
		}
		if seen[d.Name] {
			errs.Add(at(i, "name"), field+".name", "tool %q is listed twice in the file", d.Name)
			continue
		}
		seen[d.Name] = true
		var schema map[string]any
		if len(d.InputSchema) == 0 || json.Unmarshal(d.InputSchema, &schema) != nil || schema == nil {
			errs.Add(at(i, ""), field+".inputSchema", "tool %q needs an inputSchema object, such as {\"type\": \"object\", \"properties\": {...}}", d.Name)
			continue
		}
		t := &mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: schema}
		out = append(out, *toolschema.Convert(server, t, toolschema.Options{Raw: d.InputSchema, PropertyOrder: propertyOrder}))
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs.Err()
	}
	return out, nil
}

// listNode is the node of a decoy document's list of tools, or nil.
func listNode(doc *yaml.Node) *yaml.Node {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	n := doc.Content[0]
	if n.Kind == yaml.MappingNode {
		n = fieldNode(n, "tools")
	}
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n
}

// fieldNode is the value of key in mapping n, or n itself when there is none.
func fieldNode(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return n
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return n
}
