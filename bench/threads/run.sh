#!/bin/sh
# Multithreaded overhead: native time and memspy's slowdown with coherence and every
# classification on, in both of ccSIM's interleavings (interleaved, piped), on 4-thread
# examples; median of RUNS (default 5). Issue 3 asks for <= 30x on this 2-core machine.
# usage: sh bench/threads/run.sh [BUILD_DIR] [RUNS]   -> markdown table on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init thr "${1:-}"
RUNS=${2:-5}
export OMP_NUM_THREADS=4
export MEMSPY_DB="$WORK/memspy.db"

# name source thread-flag arguments (4 threads each)
cases() {
    echo "nbf-original examples/nbf/nbf.c -fopenmp original 131072 16"
    echo "counters-packed examples/counters/counters.c -fopenmp packed 4000000 8"
    echo "ptri examples/ptri/ptri.c -pthread 4 800000 4 200"
    echo "prodcons-1x3 examples/prodcons/prodcons.c -pthread 3 20000"
    echo "migratory examples/migratory/migratory.c -pthread 4 1000000"
}


echo "| program (4 threads) | native s | interleaved s | interleaved slowdown | piped s | piped slowdown | Cachegrind s | Cachegrind slowdown | interleaved / Cachegrind |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
cases | while read -r name src flag args; do
    gcc -O2 -g "$flag" -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" -O2 "$flag" -o "$WORK/$name.memspy" "$ROOT/$src"
    : >"$WORK/t.native"; : >"$WORK/t.interleaved"; : >"$WORK/t.piped"; : >"$WORK/t.cg"
    i=0
    while [ $i -lt "$RUNS" ]; do
        (cd "$WORK" && seconds "./$name.native" $args) >>"$WORK/t.native"
        (cd "$WORK" && seconds valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
            "./$name.native" $args) >>"$WORK/t.cg"
        for mode in interleaved piped; do
            (cd "$WORK" && seconds "$BUILD/bin/memspy" run --no-report --interleave $mode \
                --result "$name.result" -- "./$name.memspy" $args) >>"$WORK/t.$mode"
        done
        i=$((i + 1))
    done
    n=$(median <"$WORK/t.native"); il=$(median <"$WORK/t.interleaved"); p=$(median <"$WORK/t.piped")
    cg=$(median <"$WORK/t.cg")
    awk -v name="$name" -v n="$n" -v i="$il" -v p="$p" -v cg="$cg" 'BEGIN {
        printf "| %s | %.3f | %.2f | %.1fx | %.2f | %.1fx | %.2f | %.1fx | %.2f |\n",
               name, n, i, i / n, p, p / n, cg, cg / n, i / cg }'
done
