package bfcl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// Load reads question files and possible-answer files into an Import:
// questions in file order, answers merged by id (an id answered twice is
// an error). Every problem of every file is reported at once.
func Load(questions, answers []string) (*Import, error) {
	im := &Import{}
	var errs srcpos.List
	collect := func(err error) bool {
		if err == nil {
			return true
		}
		if l, ok := err.(srcpos.List); ok {
			errs = append(errs, l...)
		} else {
			errs.Add(srcpos.Pos{}, "", "%v", err)
		}
		return false
	}
	for _, path := range questions {
		data, err := os.ReadFile(path)
		if !collect(err) {
			continue
		}
		qs, err := ReadQuestions(bytes.NewReader(data), path)
		collect(err)
		im.Questions = append(im.Questions, qs...)
		im.Sources = append(im.Sources, "  questions: "+path)
	}
	if len(answers) > 0 {
		im.Answers = map[string]Answer{}
	}
	for _, path := range answers {
		data, err := os.ReadFile(path)
		if !collect(err) {
			continue
		}
		as, err := ReadAnswers(bytes.NewReader(data), path)
		collect(err)
		for id, a := range as {
			if first, dup := im.Answers[id]; dup {
				errs.Add(a.Pos, id, "answered again (first at %s)", first.Pos)
				continue
			}
			im.Answers[id] = a
		}
		im.Sources = append(im.Sources, "  answers: "+path)
	}
	return im, errs.Err()
}

// Write encodes a suite document as YAML, two spaces deep. The cases are
// encoded one at a time: yaml.v3's emitter keeps every event of a document
// until it ends, which makes a 2,000-case suite cost most of a gigabyte
// written whole; the bytes are the same (TestWriteByCase).
func Write(w io.Writer, doc *yaml.Node) error {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode || len(root.Content) != 2 || root.Content[0].Value != "cases" || root.Content[1].Kind != yaml.SequenceNode {
		return writeWhole(w, doc)
	}
	bw := bufio.NewWriter(w)
	for _, l := range strings.Split(root.HeadComment, "\n") {
		if root.HeadComment != "" {
			bw.WriteString("# " + strings.TrimPrefix(l, "# ") + "\n")
		}
	}
	bw.WriteString("cases:\n")
	var buf bytes.Buffer
	for _, c := range root.Content[1].Content {
		buf.Reset()
		if err := writeWhole(&buf, &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{c}}); err != nil {
			return err
		}
		for _, l := range strings.SplitAfter(buf.String(), "\n") {
			if l != "" && l != "\n" {
				bw.WriteString("  ")
			}
			bw.WriteString(l)
		}
	}
	return bw.Flush()
}

func writeWhole(w io.Writer, doc *yaml.Node) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encoding the suite: %w", err)
	}
	return enc.Close()
}
