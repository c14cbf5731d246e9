package serversfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// TrialDirPlaceholder is replaced, in a per-trial server's args, env and
// cwd, by the trial's own temporary directory (see Server.PerTrial).
const TrialDirPlaceholder = "${trialDir}"

// placeholders checks the ${...} of the strings at n (a string, a list or a
// mapping of them) other than ${env:NAME}: only TrialDirPlaceholder is one,
// so a misspelt ${trialdir} or ${trial_dir} is an error at its place rather
// than a literal folder name a server would create.
func (p *parser) placeholders(n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := p.placeholders(srcpos.Deref(c), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := p.placeholders(srcpos.Deref(n.Content[i+1]), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
		return nil
	case yaml.ScalarNode:
		rest := n.Value
		for {
			i := strings.Index(rest, "${")
			if i < 0 {
				return nil
			}
			rest = rest[i:]
			j := strings.IndexByte(rest, '}')
			if j < 0 {
				return nil // expandEnv reports an unterminated ${env:
			}
			name := rest[:j+1]
			rest = rest[j+1:]
			if strings.HasPrefix(name, "${env:") || name == TrialDirPlaceholder {
				continue
			}
			msg := "unknown placeholder " + name + ": the placeholders are ${trialDir} (a per-trial server's directory) and ${env:NAME}"
			if looksLikeTrialDir(name) {
				msg = "unknown placeholder " + name + " (did you mean ${trialDir}?)"
			}
			return p.errAt(n, path, "%s", msg)
		}
	}
	return nil
}

// looksLikeTrialDir reports whether a ${...} is ${trialDir} misspelt.
func looksLikeTrialDir(name string) bool {
	inner := strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.Trim(name, "${}")))
	return strings.Contains(inner, "trial") || srcpos.Suggest(strings.Trim(name, "${}"), []string{"trialDir"}) != ""
}

// perTrial checks perTrial and trialTemplate of a stdio server s: the
// template only with perTrial, resolved against the file's folder and
// required to be a folder; ${trialDir} only in a per-trial server.
func (p *parser) perTrial(s *Server, e *serverEntry, path string) error {
	if kn, ok := e.keys["trialTemplate"]; ok {
		if !s.PerTrial {
			return p.errAt(kn, join(path, "trialTemplate"), `only applies with "perTrial": true`)
		}
		if !filepath.IsAbs(s.TrialTemplate) {
			s.TrialTemplate = filepath.Join(p.dir, s.TrialTemplate)
		}
		if fi, err := os.Stat(s.TrialTemplate); err != nil || !fi.IsDir() {
			return p.errAt(kn, join(path, "trialTemplate"), "%s is not a folder: give the folder copied into each trial directory, relative to this file", s.TrialTemplate)
		}
	}
	if s.PerTrial {
		return nil
	}
	for _, f := range []string{"args", "env", "cwd"} {
		if kn, ok := e.keys[f]; ok && usesTrialDir(s, f) {
			return p.errAt(kn, join(path, f), `uses ${trialDir}, which only a per-trial server has: add "perTrial": true`)
		}
	}
	return nil
}

func usesTrialDir(s *Server, field string) bool {
	switch field {
	case "args":
		for _, a := range s.Args {
			if strings.Contains(a, TrialDirPlaceholder) {
				return true
			}
		}
	case "env":
		for _, v := range s.Env {
			if strings.Contains(v, TrialDirPlaceholder) {
				return true
			}
		}
	case "cwd":
		return strings.Contains(s.Cwd, TrialDirPlaceholder)
	}
	return false
}

// ForTrial is s started for one trial in dir: TrialDirPlaceholder
// replaced by dir in its args, env and cwd.
func (s Server) ForTrial(dir string) Server {
	out := s
	out.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		out.Args[i] = strings.ReplaceAll(a, TrialDirPlaceholder, dir)
	}
	if s.Env != nil {
		out.Env = make(map[string]string, len(s.Env))
		for k, v := range s.Env {
			out.Env[k] = strings.ReplaceAll(v, TrialDirPlaceholder, dir)
		}
	}
	out.Cwd = strings.ReplaceAll(s.Cwd, TrialDirPlaceholder, dir)
	return out
}
