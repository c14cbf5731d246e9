package main

import "strings"

// ollamaList is --ollama given any number of times, in order.
type ollamaList []string

func (l *ollamaList) String() string { return strings.Join(*l, ",") }

func (l *ollamaList) Set(s string) error {
	*l = append(*l, s)
	return nil
}
