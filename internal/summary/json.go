package summary

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/record"
)

// WriteJSON writes the summary as indented JSON: summary.json.
func WriteJSON(w io.Writer, s *Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// ReadJSON reads a summary.json written by WriteJSON; name names it in
// errors. One written in a newer major format is refused (record.FormatError);
// fields a newer minor format added are ignored.
func ReadJSON(r io.Reader, name string) (*Summary, error) {
	var s Summary
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := record.CheckFormat(s.Format); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}
