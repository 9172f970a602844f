#!/bin/sh
# Instructions (Cachegrind's Ir, every thread counted: exact on a loaded machine) of `memspy
# resim` of one recording per 4-thread example in each order, per simulated reference, and
# the wall time of the same resims (median of RUNS, default 5, the orders alternating).
# The recordings are smaller than bench/threads/run.sh's (valgrind is about 50x slower).
# usage: sh bench/threads/ir.sh [BUILD_DIR] [RUNS]   -> markdown table on stdout
#   MODES="interleaved timed" (default: interleaved timed), CASES as bench/threads/run.sh
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init thrir "${1:-}"
RUNS=${2:-5}
MODES=${MODES:-interleaved timed}
CASES=${CASES:-}
export OMP_NUM_THREADS=4
export MEMSPY_DB="$WORK/memspy.db"

cases() {
    echo "nbf-original examples/nbf/nbf.c -fopenmp original 32768 4"
    echo "counters-packed examples/counters/counters.c -fopenmp packed 1000000 2"
    echo "ptri examples/ptri/ptri.c -pthread 4 100000 4 200"
}

head="| recording (4 threads) | references"
rule="|---|---:"
for mode in $MODES; do
    head="$head | $mode Ir/ref | $mode resim s"
    rule="$rule|---:|---:"
done
echo "$head |"
echo "$rule|"
cases | while read -r name src flag args; do
    [ -z "$CASES" ] || case " $CASES " in *" $name "*) ;; *) continue ;; esac
    "$BUILD/bin/memspy-cc" -O2 "$flag" -o "$WORK/$name.memspy" "$ROOT/$src"
    rm -rf "$WORK/rec"
    (cd "$WORK" && "$BUILD/bin/memspy" run --no-report --record rec --result r.json -- "./$name.memspy" $args) \
        >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
    refs=""
    for mode in $MODES; do
        : >"$WORK/t.$mode"
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$WORK/$mode.cg" \
            "$BUILD/bin/memspy" resim --interleave $mode --no-report --json "$WORK/$mode.json" "$WORK/rec" \
            >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
        [ -n "$refs" ] || refs=$(jq '.totals.reads + .totals.writes' "$WORK/$mode.json")
    done
    i=0
    while [ $i -lt "$RUNS" ]; do
        for mode in $MODES; do
            seconds "$BUILD/bin/memspy" resim --interleave $mode --no-report "$WORK/rec" >>"$WORK/t.$mode"
        done
        i=$((i + 1))
    done
    row="| $name | $refs"
    for mode in $MODES; do
        ir=$(cg_annotate "$WORK/$mode.cg" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
        row="$row$(median <"$WORK/t.$mode" | awk -v ir="$ir" -v refs="$refs" '{ printf " | %.1f | %.2f", ir / refs, $1 }')"
    done
    echo "$row |"
done
