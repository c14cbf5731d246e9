// Package runs is a run's life, from its Spec to its finished directory: the
// plan (models × variants × cases × repeats, shards, hosts), the one builder
// of run.json (Meta), the one rule of what a resume may change, the
// execution through internal/runner, and the finish (run.json's status, the
// reports, the gates, and the error that decides the exit status).
//
// It is what `toolgrade run` does once its flags are read. The catalogs a
// run sends come from internal/toolbox; the report files it leaves are
// written here (reports.go); the gates a command line adds are judged
// through one seam, Reporter.
package runs
