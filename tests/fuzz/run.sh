#!/bin/sh
# Runs libFuzzer targets: usage  run.sh SECONDS OUTDIR BINARY...
# For each target fuzz_<name>: first replays every committed crash in
# tests/fuzz/regressions/<name>/ (each must now pass), then fuzzes for
# SECONDS from the committed seeds in tests/fuzz/corpus/<name>/.  New inputs
# go to OUTDIR/work/<name> (not committed); a crash, leak, hang or
# sanitizer report fails the run and leaves the input in OUTDIR/artifacts/,
# to be copied into regressions/<name>/ once fixed.
here=$(cd "$(dirname "$0")" && pwd)
seconds=$1 out=$2
shift 2
passed=0 failed=0
mkdir -p "$out/logs" "$out/artifacts"
for bin in "$@"; do
	name=$(basename "$bin" | sed 's/^fuzz_//')
	log="$out/logs/$name.log"
	reg="$here/regressions/$name"
	ok=1
	if [ -d "$reg" ] && [ -n "$(ls "$reg" 2>/dev/null | grep -v '^README')" ]; then
		# Files given as arguments are run once each.
		"$bin" $(ls -d "$reg"/* | grep -v '/README') >"$log" 2>&1 || {
			echo "fuzz $name: a committed regression input fails again:"; tail -n 40 "$log"; ok=0; }
	fi
	if [ $ok = 1 ]; then
		mkdir -p "$out/work/$name"
		"$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=8192 \
			-print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" \
			"$out/work/$name" "$here/corpus/$name" >"$log" 2>&1 || {
			echo "fuzz $name: FAILED after fuzzing (log $log):"; tail -n 60 "$log"; ok=0; }
	fi
	if [ $ok = 1 ]; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
		echo "fuzz $name: ok, ${runs:-?} inputs in ${seconds}s, $cov"
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed = 0 ]
