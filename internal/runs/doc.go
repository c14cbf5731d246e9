// Package runs is a run's life, from its Spec to its finished directory: the
// plan (models × variants × cases × repeats, shards, hosts), the one builder
// of run.json (Meta), the one rule of what a resume may change, the
// execution through internal/runner, and the finish (run.json's status, the
// reports, the gates, and the error that decides the exit status).
//
// It is what `toolgrade run` does once its flags are read; the catalogs a
// run sends and the reports it writes are reached through two seams
// (Toolbox, Reporter), so the packages that own them stay apart.
package runs
