// Package runs is a run's life, from its Spec to its finished directory: the
// plan (models × variants × cases × repeats, shards, hosts), the one builder
// of run.json (Meta), the one rule of what a resume may change, the
// execution through internal/runner, and the finish (run.json's status, the
// reports, the gates, and the error that decides the exit status).
//
// It is what `toolgrade run` does once its flags are read. The catalogs a
// run sends come from internal/toolbox. It renders nothing: it writes the
// summary (summary.json) and hands it to a Reporter, which writes the
// report files and judges the gates a command line adds, and it shows
// progress through a Progress; the command gives both (internal/report's
// RunFiles, internal/progress's Printer), so harness/tgtest, which finishes
// runs too, links no renderer.
package runs
