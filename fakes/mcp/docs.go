package fakemcp

import (
	"cmp"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed corpus/*.txt
var corpusFS embed.FS

// Tool descriptions are what a model sees; tests elsewhere hash them, so
// change them only on purpose.
const (
	docsInstructions = "Document store of a restaurant: its FAQ, menu and opening hours. " +
		"Use search to look up a fact, get_document to read a whole document, and list_documents to see which documents exist."

	searchDescription = "Search the restaurant's documents (FAQ, menu, opening hours) for lines containing the words of a query. " +
		"Use this first to answer a customer's question when you do not know which document holds the answer; " +
		"use get_document instead to read a whole document. " +
		"Matching is case-insensitive on whole words, ignores a plural \"s\" and common words such as \"the\" or \"is\", " +
		"and ranks lines by how many different query words they contain. " +
		"Each result is one line prefixed with its document name, for example \"faq.txt: ...\"; " +
		"the result is \"no results\" when no line matches."

	listDocumentsDescription = "List the names of all documents in the restaurant's document store, one per line. " +
		"Use this to discover what get_document can read; to find a specific fact, search is usually quicker."

	getDocumentDescription = "Return the full text of one document from the restaurant's document store. " +
		"Use this when you need a whole document, such as the complete menu; " +
		"use search to find a single fact, and list_documents to see which names exist. " +
		"An unknown name is an error that lists the available names."
)

const (
	defaultTopK = 3
	maxTopK     = 20
)

// The jsonschema tags are the argument descriptions a model sees; like the
// tool descriptions, change them only on purpose.

type searchArgs struct {
	Query string `json:"query" jsonschema:"Words to look for, for example 'dog terrace' or 'opening hours'; a plain-language question also works."`
	TopK  int    `json:"top_k,omitempty" jsonschema:"Maximum number of matching lines to return, from 1 to 20. Defaults to 3."`
}

type getDocumentArgs struct {
	Name string `json:"name" jsonschema:"Exact document name as returned by list_documents, for example 'menu.txt'."`
}

// noArgs is the input of tools that take no arguments.
type noArgs struct{}

// corpus is the parsed document store behind one Docs server.
type corpus struct {
	names []string          // sorted
	text  map[string]string // name -> full text
	lines []corpusLine      // all non-blank lines, in name then line order
}

type corpusLine struct {
	doc, text string
	terms     map[string]bool
}

// Docs returns the restaurant document store server with the tools search,
// list_documents and get_document over faq.txt, hours.txt and menu.txt.
func Docs() *mcp.Server {
	c := loadCorpus()
	s := newServer(&mcp.Implementation{Name: "docs", Title: "Restaurant documents (toolgrade fake)", Version: version},
		&mcp.ServerOptions{Instructions: docsInstructions})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "search",
		Description: searchDescription,
		InputSchema: inputSchema[searchArgs](func(p map[string]*jsonschema.Schema) {
			p["query"].MinLength = new(1)
			p["top_k"].Default = []byte(fmt.Sprint(defaultTopK))
			p["top_k"].Minimum = new(1.0)
			p["top_k"].Maximum = new(float64(maxTopK))
		}),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, any, error) {
		k := in.TopK
		if k <= 0 {
			k = defaultTopK
		}
		return textResult(c.search(in.Query, min(k, maxTopK))), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_documents",
		Description: listDocumentsDescription,
		InputSchema: inputSchema[noArgs](nil),
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		return textResult(strings.Join(c.names, "\n")), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_document",
		Description: getDocumentDescription,
		InputSchema: inputSchema[getDocumentArgs](nil),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in getDocumentArgs) (*mcp.CallToolResult, any, error) {
		text, ok := c.text[in.Name]
		if !ok {
			return nil, nil, fmt.Errorf("unknown document %q; available documents: %s", in.Name, strings.Join(c.names, ", "))
		}
		return textResult(text), nil, nil
	})
	return s
}

func loadCorpus() *corpus {
	entries, err := fs.ReadDir(corpusFS, "corpus")
	if err != nil {
		panic(err) // the corpus is embedded: this cannot happen
	}
	c := &corpus{text: make(map[string]string)}
	for _, e := range entries { // ReadDir sorts by name
		b, err := fs.ReadFile(corpusFS, path.Join("corpus", e.Name()))
		if err != nil {
			panic(err)
		}
		name, text := e.Name(), string(b)
		c.names = append(c.names, name)
		c.text[name] = text
		for l := range strings.Lines(text) {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			terms := make(map[string]bool)
			for _, t := range searchTerms(l) {
				terms[t] = true
			}
			c.lines = append(c.lines, corpusLine{doc: name, text: l, terms: terms})
		}
	}
	return c
}

// search returns up to k lines, formatted "doc: line", that share the most
// distinct terms with query; ties keep corpus order.
func (c *corpus) search(query string, k int) string {
	var want []string
	for _, t := range searchTerms(query) {
		if !slices.Contains(want, t) {
			want = append(want, t)
		}
	}
	type hit struct {
		line  *corpusLine
		score int
	}
	var hits []hit
	for i := range c.lines {
		l := &c.lines[i]
		score := 0
		for _, t := range want {
			if l.terms[t] {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{l, score})
		}
	}
	if len(hits) == 0 {
		return "no results"
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	var out []string
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.line.doc+": "+h.line.text)
	}
	return strings.Join(out, "\n")
}

// searchTerms splits s into lower-case words, drops common words and strips
// a plural "s", so that "Dogs" and "dog?" both yield "dog".
func searchTerms(s string) []string {
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if isStopword(w) {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		terms = append(terms, w)
	}
	return terms
}

func isStopword(w string) bool {
	switch w {
	case "a", "an", "the", "is", "are", "am", "was", "be", "i", "me", "my", "we", "our", "us",
		"you", "your", "it", "its", "to", "of", "in", "on", "at", "for", "and", "or",
		"do", "does", "did", "can", "could", "what", "when", "where", "which", "who", "how",
		"there", "this", "that", "with", "any", "have", "has":
		return true
	}
	return false
}

// inputSchema infers the input schema of T, taking property descriptions from
// its jsonschema tags, and lets tweak add defaults and bounds.
func inputSchema[T any](tweak func(map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the argument types are fixed: this cannot happen
	}
	if tweak != nil {
		tweak(s.Properties)
	}
	return s
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
