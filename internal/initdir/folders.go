package initdir

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// member is one key of a JSON object with its value as written.
type member struct {
	key string
	val json.RawMessage
}

// pinFolders sets the cwd of each stdio server of mcp (an mcpServers JSON
// object) whose folder the copy would change: a server without cwd runs in
// its file's folder, so once the file is copied elsewhere its relative
// command and arguments would resolve against the new folder. from and to
// are the servers as read at the source and as they would read at the
// copy. It returns the object, its order kept, and the servers it pinned.
func pinFolders(mcp json.RawMessage, from, to *serversfile.Config) (json.RawMessage, []string, error) {
	before, after := cwds(from), cwds(to)
	ms, err := members(mcp)
	if err != nil {
		return nil, nil, err
	}
	var pinned []string
	for i, m := range ms {
		cwd := before[m.key]
		if cwd == "" || cwd == after[m.key] {
			continue
		}
		fields, err := members(m.val)
		if err != nil {
			return nil, nil, fmt.Errorf("mcpServers.%s: %w", m.key, err)
		}
		v, _ := json.Marshal(cwd)
		fields = setMember(fields, "cwd", v)
		ms[i].val = object(fields)
		pinned = append(pinned, m.key)
	}
	return object(ms), pinned, nil
}

// cwds maps each stdio server to the folder it runs in.
func cwds(c *serversfile.Config) map[string]string {
	out := map[string]string{}
	for _, s := range c.Servers {
		if s.Command != "" {
			out[s.Name] = s.Cwd
		}
	}
	return out
}

// members reads a JSON object's keys and values in order.
func members(raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	return out, nil
}

// setMember replaces key's value, or adds it last.
func setMember(ms []member, key string, v json.RawMessage) []member {
	for i := range ms {
		if ms[i].key == key {
			ms[i].val = v
			return ms
		}
	}
	return append(ms, member{key, v})
}

// object writes members as a JSON object, in their order.
func object(ms []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}
