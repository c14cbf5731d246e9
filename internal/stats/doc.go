// Package stats holds the statistics toolgrade reports: success rates with
// Wilson intervals, pass@k and pass^k, constant-memory latency histograms,
// small integer distributions, flakiness labels, a paired McNemar test, and
// for choosing a model Tango's interval for a paired difference, the
// non-inferiority verdict at a margin, and the pairs a plan needs. A case is
// the unit of evidence: rates and paired counts tallied case by case
// (RateCases, PairedCases) carry their clusters' design effect, and every
// interval and test above runs on their effective counts (cluster.go).
//
// In the spirit of golang.org/x/perf/benchmath, the numbers live here and
// rendering lives elsewhere; every function is NaN-free and says, through a
// flag or a documented zero, when the sample cannot support a claim.
package stats
