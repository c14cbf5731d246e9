package fakemcp_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/fakes/mcp"
)

// exampleSession serves s in memory and connects a client to it.
func exampleSession(ctx context.Context, s *mcp.Server) (*mcp.ClientSession, func()) {
	tr, stop, err := fakemcp.InMemory(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0.0.1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	return cs, func() { cs.Close(); stop() }
}

// printTools prints each tool as name(arguments), optional ones marked with
// "?", followed by its description.
func printTools(ctx context.Context, cs *mcp.ClientSession) {
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		schema := tool.InputSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		required, _ := schema["required"].([]any)
		var args []string
		for name := range props {
			if !slices.Contains(required, any(name)) {
				name += "?"
			}
			args = append(args, name)
		}
		slices.Sort(args)
		fmt.Printf("%s(%s)\n  %s\n", tool.Name, strings.Join(args, ", "), tool.Description)
	}
}

func ExampleDocs() {
	ctx := context.Background()
	cs, stop := exampleSession(ctx, fakemcp.Docs())
	defer stop()
	printTools(ctx, cs)
	// Output:
	// get_document(name)
	//   Return the full text of one document from the restaurant's document store. Use this when you need a whole document, such as the complete menu; use search to find a single fact, and list_documents to see which names exist. An unknown name is an error that lists the available names.
	// list_documents()
	//   List the names of all documents in the restaurant's document store, one per line. Use this to discover what get_document can read; to find a specific fact, search is usually quicker.
	// search(query, top_k?)
	//   Search the restaurant's documents (FAQ, menu, opening hours) for lines containing the words of a query. Use this first to answer a customer's question when you do not know which document holds the answer; use get_document instead to read a whole document. Matching is case-insensitive on whole words, ignores a plural "s" and common words such as "the" or "is", and ranks lines by how many different query words they contain. Each result is one line prefixed with its document name, for example "faq.txt: ..."; the result is "no results" when no line matches.
}

func ExampleFaulty() {
	ctx := context.Background()
	cs, stop := exampleSession(ctx, fakemcp.Faulty(nil))
	defer stop()
	printTools(ctx, cs)
	// Output:
	// crash()
	//   Kill the server in the middle of the call, so that no answer ever arrives: a server process exits with status 3, an in-process server drops its connection. For testing recovery from server crashes.
	// echo(text)
	//   Return the given text unchanged. For checking that the connection works and that arguments arrive intact.
	// fail(reason?)
	//   Fail on purpose: always returns a tool error (isError) whose message contains the given reason. For testing how errors reported by a tool are handled.
	// hang()
	//   Never answer: blocks until the caller cancels the call or the connection closes. For testing client timeouts and cancellation.
	// huge(bytes?)
	//   Return one text block of exactly the requested number of bytes of ASCII text. For testing how oversized tool output is handled.
	// slow(ms?)
	//   Answer "ok" after a delay, or stop early if the caller cancels the call. For testing latency handling and timeouts.
}

func ExampleInMemory() {
	ctx := context.Background()
	tr, stop, err := fakemcp.InMemory(ctx, fakemcp.Docs())
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0.0.1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name:      "search",
		Arguments: map[string]any{"query": "Can I bring my dog?"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// faq.txt: Q: Can I bring my dog? A: Yes, dogs are welcome on the terrace.
}

func ExampleNotes() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "notes")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cs, stop := exampleSession(ctx, fakemcp.Notes(&fakemcp.NotesOptions{Dir: dir}))
	defer stop()
	printTools(ctx, cs)
	// Output:
	// add_note(text, title)
	//   Save a note with a title and a text. A note that already has this title (ignoring case) is replaced. Use read_note afterwards to check what was saved.
	// delete_note(title)
	//   Delete the note with this title (ignoring case). An unknown title is an error that lists the titles there are.
	// list_notes()
	//   List the titles of all notes, sorted, one per line; the result is "no notes" when there are none.
	// read_note(title)
	//   Return the text of the note with this title (ignoring case). An unknown title is an error that lists the titles there are.
}
