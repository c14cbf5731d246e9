package serversfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// jsonToNode reads a JSON document into a yaml.Node tree with exact
// line:col positions. JSON is not read with the YAML parser because YAML
// differs from JSON at the edges ("\/" escapes fail, trailing commas pass) and
// reports only the line of a syntax error.
func jsonToNode(ctx context.Context, data []byte, file string) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	b := &nodeBuilder{ctx: ctx, data: data, dec: dec, file: file, pos: srcpos.NewCursor(file, data)}
	tok, start, err := b.next()
	if err != nil {
		return nil, b.syntax(err)
	}
	n, err := b.value(tok, start)
	if err != nil {
		return nil, err
	}
	if _, start, err := b.next(); err != io.EOF {
		if err != nil {
			return nil, b.syntax(err)
		}
		return nil, b.errAt(start, "unexpected data after the top-level value")
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{n}}, nil
}

type nodeBuilder struct {
	ctx  context.Context
	data []byte
	dec  *json.Decoder
	file string
	// pos locates the tokens, which come in increasing order: each byte
	// of the file is counted once, however long its lines.
	pos *srcpos.Cursor
	// tokens counts the tokens read, so ctx is asked every 4,096.
	tokens int
}

// next returns the next token and the byte offset where it starts; once
// ctx is done, its error.
func (b *nodeBuilder) next() (json.Token, int, error) {
	if b.tokens++; b.tokens%4096 == 0 {
		if err := b.ctx.Err(); err != nil {
			return nil, 0, err
		}
	}
	start := int(b.dec.InputOffset())
	for start < len(b.data) && strings.IndexByte(" \t\r\n,:", b.data[start]) >= 0 {
		start++
	}
	tok, err := b.dec.Token()
	return tok, start, err
}

func (b *nodeBuilder) errAt(off int, format string, args ...any) error {
	return srcpos.Errorf(srcpos.Offset(b.file, b.data, off), "", format, args...)
}

func (b *nodeBuilder) syntax(err error) error {
	if cerr := b.ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return err
	}
	// The streaming decoder locates some errors at the start of the value
	// they are in; a whole-input check locates every one at the offending
	// byte (its Offset counts that byte).
	var v any
	var se *json.SyntaxError
	if uerr := json.Unmarshal(b.data, &v); errors.As(uerr, &se) {
		if se.Offset >= int64(len(b.data)) && strings.HasPrefix(se.Error(), "unexpected end") {
			return b.syntaxAt(len(b.data), "invalid JSON: unexpected end of input")
		}
		return b.syntaxAt(int(se.Offset)-1, "invalid JSON: %s", se.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return b.syntaxAt(len(b.data), "invalid JSON: unexpected end of input")
	}
	return b.syntaxAt(int(b.dec.InputOffset()), "invalid JSON: %v", err)
}

// syntaxAt is a syntax error at offset off, shown with its line and a caret.
func (b *nodeBuilder) syntaxAt(off int, format string, args ...any) error {
	return srcpos.SyntaxErrorf(b.file, b.data, off, format, args...)
}

func (b *nodeBuilder) value(tok json.Token, start int) (*yaml.Node, error) {
	pos := b.pos.Pos(start)
	n := &yaml.Node{Line: pos.Line, Column: pos.Col}
	switch v := tok.(type) {
	case json.Delim:
		n.Style = yaml.FlowStyle
		switch v {
		case '{':
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
			for b.dec.More() {
				ktok, kstart, err := b.next()
				if err != nil {
					return nil, b.syntax(err)
				}
				key, err := b.value(ktok, kstart)
				if err != nil {
					return nil, err
				}
				vtok, vstart, err := b.next()
				if err != nil {
					return nil, b.syntax(err)
				}
				val, err := b.value(vtok, vstart)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, key, val)
			}
		case '[':
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
			for b.dec.More() {
				etok, estart, err := b.next()
				if err != nil {
					return nil, b.syntax(err)
				}
				e, err := b.value(etok, estart)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, e)
			}
		default:
			return nil, b.errAt(start, "invalid JSON: unexpected %q", string(v))
		}
		// The closing delimiter.
		if _, _, err := b.next(); err != nil {
			return nil, b.syntax(err)
		}
		return n, nil
	case string:
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", v, yaml.DoubleQuotedStyle
	case json.Number:
		n.Kind, n.Value = yaml.ScalarNode, v.String()
		n.Tag = "!!int"
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(v)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	default:
		return nil, b.errAt(start, "invalid JSON: unexpected token %v", tok)
	}
	return n, nil
}
