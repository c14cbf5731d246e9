package confusable

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// handMade is a catalog with a near-identical pair (a weather tool and its
// renamed copy), a pair alike only in their parameters, and unrelated tools.
func handMade() []Tool {
	city := []Param{{Name: "city", Type: "string"}}
	return []Tool{
		{Name: "send_email", Description: "Send an email message to a recipient with a subject and body.",
			Params: []Param{{"to", "string"}, {"subject", "string"}, {"body", "string"}}},
		{Name: "get_weather", Description: "Get the current weather forecast for a city: temperature, wind and rain.", Params: city},
		{Name: "get_population", Description: "Look up how many people live in a city, from the latest census.", Params: city},
		{Name: "weather_now", Description: "Current weather for a city: the temperature, the wind and rain forecast.", Params: city},
		{Name: "roll_dice", Description: "Roll dice and return the numbers."},
	}
}

func TestNearIdenticalPairRanksFirstAndUnrelatedStayBelow(t *testing.T) {
	all := Rank(handMade(), 0)
	if len(all) != 10 {
		t.Fatalf("want every one of the 10 pairs at threshold 0, got %d", len(all))
	}
	if all[0].A != "get_weather" || all[0].B != "weather_now" || all[0].Score < DefaultThreshold {
		t.Fatalf("first pair %+v", all[0])
	}
	for _, w := range []string{"weather", "temperature", "wind", "rain", "forecast", "city", "current"} {
		if !slices.Contains(all[0].Words, w) {
			t.Errorf("shared words %v lack %q", all[0].Words, w)
		}
	}
	if !slices.Equal(all[0].Params, []string{"city: string"}) || all[0].Parameters != 1 {
		t.Errorf("shared params %v (%v)", all[0].Params, all[0].Parameters)
	}
	over := Rank(handMade(), DefaultThreshold)
	if len(over) != 1 {
		t.Errorf("want only the weather pair at the threshold, got %+v", over)
	}
	// Alike parameters alone do not make two tools confusable.
	for _, p := range all {
		if p.A == "get_weather" && p.B == "get_population" && p.Score >= DefaultThreshold/2 {
			t.Errorf("weather and population: %+v", p)
		}
		if (p.A == "send_email" || p.B == "roll_dice") && p.Score > 0.1 {
			t.Errorf("unrelated pair %+v", p)
		}
	}
}

func TestParameterTypesThatDifferCountHalf(t *testing.T) {
	a := Tool{Name: "a", Description: "Fetch the page at a web address.", Params: []Param{{"url", "string"}, {"timeout", "integer"}}}
	b := Tool{Name: "b", Description: "Fetch the page at a web address.", Params: []Param{{"url", "string"}, {"timeout", "string"}}}
	p := Rank([]Tool{a, b}, 0)[0]
	if p.Parameters != 0.75 || !slices.Equal(p.Params, []string{"url: string", "timeout: integer / string"}) {
		t.Errorf("%+v", p)
	}
	if p.Description != 1 || p.Score != round3(0.7+0.3*0.75) {
		t.Errorf("%+v", p)
	}
	if s := Score(a, b); s != p.Score {
		t.Errorf("Score %v, Rank %v", s, p.Score)
	}
}

func TestWordsAreNamesSplitSingularAndWithoutStopWords(t *testing.T) {
	got := wordSet("readFile list_directories: Lists the Files and prefixes of a path.", stopWords())
	want := []string{"directory", "file", "list", "path", "prefix", "read"}
	var keys []string
	for w := range got {
		keys = append(keys, w)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Errorf("words %v, want %v", keys, want)
	}
}

func TestAShortDescriptionIsNotContainedInEverything(t *testing.T) {
	short := Tool{Name: "x", Description: "Search."}
	long := Tool{Name: "y", Description: "Search the archive for invoices, receipts and contracts by customer name."}
	if s := Score(short, long); s >= DefaultThreshold {
		t.Errorf("a one-word description scores %v against a long one that uses its word", s)
	}
}

// BenchmarkRank300 ranks a catalog of 300 tools (44,850 pairs), about the
// largest a model is offered: `tools` runs it on every listing.
func BenchmarkRank300(b *testing.B) {
	words := strings.Fields("read write list search file document page user account order invoice weather city " +
		"forecast email message send create delete update project issue comment repository branch commit")
	var tools []Tool
	for i := range 300 {
		var d []string
		for j := range 12 {
			d = append(d, words[(i*7+j*5)%len(words)])
		}
		tools = append(tools, Tool{Name: fmt.Sprintf("tool_%d", i), Description: strings.Join(d, " "),
			Params: []Param{{"id", "string"}, {words[i%len(words)], "integer"}}})
	}
	b.ReportAllocs()
	for b.Loop() {
		Rank(tools, DefaultThreshold)
	}
}
