package termtext

// Excerpt is s cut to its first n characters, with "…" after the cut, so a
// long answer, reply or tool result fits in a message; s as it is when it
// is no longer than n.
func Excerpt(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
