#!/bin/sh
# Run each fuzz target for SECONDS seconds from the fixed corpus in tests/fuzz/corpus/NAME
# (left unchanged: new inputs go to a scratch copy). Crashes are kept in BUILD/fuzz-crashes.
#   sh tests/fuzz/run.sh BUILD SECONDS
set -eu
BUILD=$1
SECONDS_EACH=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$BUILD/fuzz-crashes"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/memspy-fuzz.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
status=0
for name in raw json stream; do
    mkdir -p "$SCRATCH/$name"
    echo "fuzz_$name: ${SECONDS_EACH}s from $(ls "$HERE/corpus/$name" | wc -l) corpus inputs"
    if ! "$BUILD/bin/fuzz_$name" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -print_final_stats=0 \
        -artifact_prefix="$BUILD/fuzz-crashes/$name-" "$SCRATCH/$name" "$HERE/corpus/$name" \
        >"$SCRATCH/$name.log" 2>&1; then
        tail -40 "$SCRATCH/$name.log"
        echo "fuzz_$name FAILED: the input is in $BUILD/fuzz-crashes/"
        status=1
    else
        grep -E "^#[0-9]+ *DONE" "$SCRATCH/$name.log" || tail -1 "$SCRATCH/$name.log"
    fi
done
exit $status
