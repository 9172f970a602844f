#!/bin/sh
# Instructions (Cachegrind's Ir, every thread counted: exact on a loaded machine) of `memspy
# resim` of one recording per 4-thread example in each order, per simulated reference, and
# the wall time of the same resims (median of RUNS, default 5, the orders alternating).
# The recordings are smaller than bench/threads/run.sh's (valgrind is about 50x slower).
# usage: sh bench/threads/ir.sh [BUILD_DIR] [RUNS]   -> markdown table on stdout
#   MODES="interleaved timed" (default: interleaved timed), CASES as bench/threads/run.sh,
#   BASE=BUILD_DIR: each cell "base -> this build", the two builds' resims alternating in the
#   timed passes, and their JSON compared (the run's time and wall seconds blanked)
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
# ir BUILD MODE TAG: Ir per reference of BUILD's resim in MODE (JSON to WORK/MODE.TAG.json)
ir() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$WORK/$2.$3.cg" \
        "$1/bin/memspy" resim --interleave "$2" --no-report --json "$WORK/$2.$3.json" "$WORK/rec" \
        >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
    [ -n "$refs" ] || refs=$(jq '.totals.reads + .totals.writes' "$WORK/$2.$3.json")
    cg_annotate "$WORK/$2.$3.cg" | awk -v refs="$refs" '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%.1f", $1 / refs; exit }'
}
BASE=${BASE:+$(cd "$BASE" && pwd)}

cases | while read -r name src flag args; do
    [ -z "$CASES" ] || case " $CASES " in *" $name "*) ;; *) continue ;; esac
    "$BUILD/bin/memspy-cc" -O2 "$flag" -o "$WORK/$name.memspy" "$ROOT/$src"
    rm -rf "$WORK/rec"
    (cd "$WORK" && "$BUILD/bin/memspy" run --no-report --record rec --result r.json -- "./$name.memspy" $args) \
        >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
    refs=""
    for mode in $MODES; do
        ir "$BUILD" $mode new >"$WORK/ir.$mode"
        if [ -n "$BASE" ]; then
            ir "$BASE" $mode base >"$WORK/irb.$mode"
            same_json "$WORK/$mode.base.json" "$WORK/$mode.new.json" "$name $mode"
        fi
        : >"$WORK/t.$mode"; : >"$WORK/tb.$mode"
    done
    [ -n "$refs" ] || refs=$(jq '.totals.reads + .totals.writes' "$WORK/$(echo $MODES | cut -d' ' -f1).new.json")
    i=0
    while [ $i -lt "$RUNS" ]; do
        for mode in $MODES; do
            seconds "$BUILD/bin/memspy" resim --interleave $mode --no-report "$WORK/rec" >>"$WORK/t.$mode"
            [ -z "$BASE" ] || seconds "$BASE/bin/memspy" resim --interleave $mode --no-report "$WORK/rec" >>"$WORK/tb.$mode"
        done
        i=$((i + 1))
    done
    row="| $name | $refs"
    for mode in $MODES; do
        t=$(median <"$WORK/t.$mode")
        if [ -n "$BASE" ]; then
            row="$row | $(cat "$WORK/irb.$mode") -> $(cat "$WORK/ir.$mode") | $(median <"$WORK/tb.$mode") -> $t"
        else
            row="$row | $(cat "$WORK/ir.$mode") | $t"
        fi
    done
    echo "$row |"
done
