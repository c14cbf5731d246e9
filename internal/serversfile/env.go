package serversfile

import (
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// envNames reads "inheritEnv": a list of variable names, each a name a
// shell could set, or a prefix ending in * ("AWS_*").
func (p *parser) envNames(n *yaml.Node, path string) ([]string, error) {
	names, err := p.strList(n, path)
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		if !validEnvName(strings.TrimSuffix(name, "*")) && name != "*" {
			return nil, p.errAt(srcpos.Deref(n.Content[i]), path, `%q is not a variable name: give names such as "GITHUB_TOKEN", or a prefix such as "AWS_*"`, name)
		}
	}
	return names, nil
}

// validEnvName reports whether s is a POSIX variable name.
func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
