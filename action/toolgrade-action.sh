#!/usr/bin/env bash
# The steps of toolgrade's GitHub Action (action.yml at the repository root).
# action.yml only wires inputs to INPUT_* variables and calls this script, one
# subcommand a step, so every step runs here too, in a test, with the
# environment GitHub sets (internal/action).
#
#   toolgrade-action.sh install    go install toolgrade from the action's own tree
#   toolgrade-action.sh cache-dir  make the models directory the runner's, for actions/cache
#   toolgrade-action.sh wait       poll Ollama's /api/version until it answers
#   toolgrade-action.sh pull       pull the models (INPUT_MODELS, else the suite's)
#   toolgrade-action.sh baseline   find the baseline run (a directory, or the last
#                                  default-branch run's artifact, with gh)
#   toolgrade-action.sh run        run the suite (or merge shards: INPUT_MERGE),
#                                  compare with the baseline, write the step
#                                  summary and outputs; exit 4 on a gate
set -uo pipefail

die() {
	printf '::error title=toolgrade::%s\n' "$(escape "$*")"
	exit 2
}

# escape encodes a workflow command's message: GitHub reads %, CR and LF as
# the command's own syntax, so they go as %25, %0D and %0A.
escape() {
	local s=${1//%/%25}
	s=${s//$'\r'/%0D}
	printf '%s' "${s//$'\n'/%0A}"
}

# output sets a step output, NAME=VALUE on a line of GITHUB_OUTPUT.
output() {
	[ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
	return 0
}

# summary appends its standard input to the job's step summary.
summary() {
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat >>"$GITHUB_STEP_SUMMARY"; else cat >/dev/null; fi
}

ollama_url() {
	local u=${INPUT_OLLAMA:-${OLLAMA_HOST:-http://127.0.0.1:11434}}
	case $u in http://* | https://*) ;; *) u=http://$u ;; esac
	printf '%s' "${u%/}"
}

# workspace_path makes a relative path relative to the workspace, where the
# user's checkout is, whatever directory a step starts in.
workspace_path() {
	case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "${GITHUB_WORKSPACE:-$PWD}" "$1" ;; esac
}

cmd_install() {
	local src=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}
	local bin=${RUNNER_TEMP:?RUNNER_TEMP is not set}/toolgrade-bin
	mkdir -p "$bin"
	# The action's own tree, so the toolgrade that runs is the one the
	# workflow's `uses: toolgrade/toolgrade@REF` names.
	(cd "$src" && GOBIN=$bin go install ./cmd/toolgrade) || die "go install ./cmd/toolgrade in $src failed"
	[ -n "${GITHUB_PATH:-}" ] && echo "$bin" >>"$GITHUB_PATH"
	output toolgrade "$bin/toolgrade"
	"$bin/toolgrade" version 2>/dev/null || true
}

# cmd_cache_dir makes Ollama's model directory (INPUT_MODELS_CACHE) one the
# runner can restore the cache into. A service container that mounts it was
# started before any step, and Docker made the missing directory as root.
cmd_cache_dir() {
	local d=${INPUT_MODELS_CACHE:-} top rest
	[ -n "$d" ] || return 0
	d=${d/#\~/$HOME}
	mkdir -p "$d" 2>/dev/null && [ -w "$d" ] && return 0
	# The directory under HOME the mount made (~/.ollama), or d itself.
	top=$d rest=${d#"$HOME"/}
	[ "$rest" != "$d" ] && top=$HOME/${rest%%/*}
	if sudo -n mkdir -p "$d" && sudo -n chown -R "$(id -u):$(id -g)" "$top"; then return 0; fi
	echo "::warning title=toolgrade::$d is not writable: Ollama's models are not cached"
}

cmd_wait() {
	local url timeout start
	url=$(ollama_url)
	timeout=${INPUT_OLLAMA_WAIT:-300}
	start=$SECONDS
	until curl -fsS --max-time 5 -o /dev/null "$url/api/version" 2>/dev/null; do
		if ((SECONDS - start >= timeout)); then
			die "Ollama at $url did not answer /api/version within ${timeout}s"
		fi
		echo "waiting for Ollama at $url ..." >&2
		sleep "${TOOLGRADE_ACTION_POLL:-2}"
	done
	echo "Ollama at $url: $(curl -fsS --max-time 5 "$url/api/version")"
}

# suite_models prints the suite's top-level models, one a line, from either
# YAML form (models: [a, b] or a block list), for when INPUT_MODELS is empty.
suite_models() {
	awk '
		/^models:[ \t]*\[/ { s = $0; sub(/^models:[ \t]*\[/, "", s); sub(/\].*/, "", s)
			n = split(s, m, ","); for (i = 1; i <= n; i++) { gsub(/^[ \t"'\'']+|[ \t"'\'']+$/, "", m[i]); if (m[i] != "") print m[i] }; exit }
		/^models:[ \t]*(#.*)?$/ { block = 1; next }
		block && /^[ \t]+-/ { s = $0; sub(/^[ \t]+-[ \t]*/, "", s); sub(/[ \t]+#.*/, "", s); gsub(/["'\'']/, "", s); print s; next }
		block && /^[^ \t#]/ { exit }
	' "$1"
}

cmd_pull() {
	local url models m
	url=$(ollama_url)
	if [ -n "${INPUT_MODELS:-}" ]; then
		models=$(tr -s ', ' '\n' <<<"$INPUT_MODELS" | grep -v '^$')
	else
		[ -n "${INPUT_SUITE:-}" ] || die "the suite input is empty"
		models=$(suite_models "$(workspace_path "$INPUT_SUITE")")
	fi
	[ -n "$models" ] || die "no models to pull: give the models input or a suite with models:"
	for m in $models; do
		echo "pulling $m from $url"
		curl -fsS --max-time "${INPUT_PULL_TIMEOUT:-3600}" "$url/api/pull" \
			-d "{\"model\":\"$m\",\"stream\":false}" >/dev/null || die "pulling $m from $url failed"
	done
}

cmd_baseline() {
	local b=${INPUT_BASELINE:-}
	case $b in
	'') return 0 ;;
	default-branch) fetch_baseline ;;
	*)
		b=$(workspace_path "$b")
		if [ -f "$b/run.json" ]; then output baseline-dir "$b"; else
			echo "::warning title=toolgrade::baseline $b holds no run; not comparing"
		fi
		;;
	esac
}

# fetch_baseline downloads the artifact INPUT_ARTIFACT_NAME of the newest run
# on the default branch of this repository (not a fork's branch of the same
# name) that still has it.
fetch_baseline() {
	local repo=${GITHUB_REPOSITORY:?} branch=${INPUT_DEFAULT_BRANCH:-main}
	local name=${INPUT_ARTIFACT_NAME:-toolgrade-run} dir=${RUNNER_TEMP:?}/toolgrade-baseline id
	id=$(gh api "repos/$repo/actions/artifacts?name=$name&per_page=100" --jq \
		"[.artifacts[] | select(.expired == false and .workflow_run.head_branch == \"$branch\" and .workflow_run.head_repository_id == .workflow_run.repository_id)][0].workflow_run.id // empty")
	if [ -z "$id" ]; then
		echo "::notice title=toolgrade::no artifact $name from $branch yet: not comparing (it appears once a run on $branch uploads one)"
		return 0
	fi
	rm -rf "$dir"
	if ! gh run download "$id" --repo "$repo" --name "$name" --dir "$dir"; then
		echo "::warning title=toolgrade::could not download artifact $name of run $id; not comparing"
		return 0
	fi
	echo "baseline: artifact $name of run $id on $branch"
	output baseline-dir "$dir"
	output baseline-run-id "$id"
}

# gate_args adds to the array args a --gate for each line of INPUT_GATES,
# and --gate-on.
gate_args() {
	[ -n "${INPUT_GATE_ON:-}" ] && args+=(--gate-on "$INPUT_GATE_ON")
	local g
	while IFS= read -r g; do
		g=${g#"${g%%[![:space:]]*}"}
		[ -n "$g" ] && args+=(--gate "$g")
	done <<<"${INPUT_GATES:-}"
	return 0
}

# merge_and_gate merges the shards' run directories INPUT_MERGE names (globs,
# separated by white space) into out and judges the gates there, and the
# regressions against the baseline, as run does on a whole run.
merge_and_gate() {
	local dirs=() pat d code c
	for pat in $INPUT_MERGE; do
		# Unquoted: the pattern is meant to expand.
		for d in $(workspace_path "$pat"); do [ -f "$d/run.json" ] && dirs+=("$d"); done
	done
	[ ${#dirs[@]} -gt 0 ] || die "merge: no run directory matches $INPUT_MERGE"
	echo "toolgrade merge $out ${dirs[*]}"
	toolgrade merge "$out" "${dirs[@]}" 2>&1 | tee "$log"
	code=${PIPESTATUS[0]}
	[ "$code" = 0 ] || return "$code"
	# report appends the merged run's report to the step summary.
	args=(report "$out")
	gate_args
	toolgrade "${args[@]}" 2>&1 | tee -a "$log"
	code=${PIPESTATUS[0]}
	if [ -n "$baseline" ]; then
		toolgrade compare "$baseline" "$out" --max-regressions "${INPUT_MAX_REGRESSIONS:-0}" 2>&1 |
			grep -E '^(gate (held|failed)|toolgrade): ' | tee -a "$log"
		c=${PIPESTATUS[0]}
		[ "$code" = 0 ] && code=$c
	fi
	return "$code"
}

# run_args fills the array args with the toolgrade run command line.
run_args() {
	[ -n "${INPUT_SUITE:-}" ] || die "the suite input is empty (give a suite, or merge to merge shards)"
	args=(run "$(workspace_path "$INPUT_SUITE")" --out "$out" --ollama "$(ollama_url)")
	[ -n "${INPUT_MODELS:-}" ] && args+=(--models "$(tr -d ' ' <<<"$INPUT_MODELS")")
	[ -n "${INPUT_REPEAT:-}" ] && args+=(--repeat "$INPUT_REPEAT")
	[ -n "${INPUT_SHARD:-}" ] && args+=(--shard "$INPUT_SHARD")
	gate_args
	if [ -n "$baseline" ]; then
		args+=(--baseline "$baseline" --max-regressions "${INPUT_MAX_REGRESSIONS:-0}")
	fi
	# Further flags, split on white space like a shell's words.
	# shellcheck disable=SC2206
	[ -n "${INPUT_ARGS:-}" ] && args+=($INPUT_ARGS)
	return 0
}

cmd_run() {
	local out baseline=${INPUT_BASELINE_DIR:-} log code line args
	out=$(workspace_path "${INPUT_OUT:-toolgrade-run}")
	log=${RUNNER_TEMP:-/tmp}/toolgrade-run.log
	if [ -n "${INPUT_MERGE:-}" ]; then
		merge_and_gate
		code=$?
	else
		run_args
		echo "toolgrade ${args[*]}"
		toolgrade "${args[@]}" 2>&1 | tee "$log"
		code=${PIPESTATUS[0]}
	fi
	output run-dir "$out"
	output exit-code "$code"
	[ -f "$out/report.html" ] && output report "$out/report.html"
	write_gates "$log"
	[ -n "$baseline" ] && [ -f "$out/run.json" ] && write_compare "$baseline" "$out"
	case $code in
	0) ;;
	4)
		# A shard's gates see only its own trials: the merged run's decide.
		local level=error
		[ -n "${INPUT_SHARD:-}" ] && level=warning
		while IFS= read -r line; do
			printf '::%s title=toolgrade gate::%s\n' "$level" "$(escape "$line")"
		done < <(grep '^gate failed: ' "$log")
		[ -n "${INPUT_SHARD:-}" ] && code=0
		;;
	*) printf '::error title=toolgrade::%s\n' "$(escape "toolgrade run exited $code: $(grep '^toolgrade: ' "$log" | tail -n 3)")" ;;
	esac
	exit "$code"
}

# write_gates adds the gates' verdicts, as toolgrade printed them, to the
# step summary, after the report toolgrade itself appended.
write_gates() {
	local lines
	lines=$(grep -E '^gate (held|failed): ' "$1") || return 0
	{
		echo
		echo '### Gates'
		echo
		sed -e 's/^gate failed: /- :x: failed: /' -e 's/^gate held: /- :white_check_mark: held: /' <<<"$lines"
		echo
	} | summary
}

# write_compare compares the run with the baseline, case by case: the table
# in the step summary, the page beside the run (uploaded with the report).
write_compare() {
	local base=$1 cur=$2 table
	table=$(toolgrade compare "$base" "$cur" 2>&1)
	toolgrade compare "$base" "$cur" --format html -o "$cur-compare.html" >/dev/null 2>&1 &&
		output compare-report "$cur-compare.html"
	{
		echo
		echo '### Compared with the baseline'
		echo
		echo '<details><summary>toolgrade compare BASELINE CURRENT</summary>'
		echo
		echo '```text'
		printf '%s\n' "$table"
		echo '```'
		echo
		echo '</details>'
		echo
	} | summary
}

case ${1:-} in
install | wait | pull | baseline | run) "cmd_$1" ;;
cache-dir) cmd_cache_dir ;;
*)
	echo "usage: $0 install|cache-dir|wait|pull|baseline|run" >&2
	exit 2
	;;
esac
