#!/bin/sh
# Multithreaded overhead: native time and memspy's slowdown with coherence and every
# classification on, in ccSIM's two interleavings (interleaved, piped) and the timed order
# (the default for threaded programs), on 4-thread examples; median of RUNS (default 5), every
# mode of a case measured in the same pass. Issue 10 asks for <= 40x native interleaved on
# nbf, counters and ptri.
# usage: sh bench/threads/run.sh [BUILD_DIR] [RUNS]   -> markdown table on stdout
#   MODES="interleaved timed" (default: interleaved piped timed), CASES="nbf-original ptri"
#   (default: all), CG=0 (no Cachegrind column)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init thr "${1:-}"
RUNS=${2:-5}
MODES=${MODES:-interleaved piped timed}
CASES=${CASES:-}
CG=${CG:-1}
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

head="| program (4 threads) | native s"
rule="|---|---:"
for mode in $MODES; do
    head="$head | $mode s | $mode slowdown"
    rule="$rule|---:|---:"
done
[ "$CG" = 0 ] || { head="$head | Cachegrind s | Cachegrind slowdown"; rule="$rule|---:|---:"; }
echo "$head |"
echo "$rule|"
cases | while read -r name src flag args; do
    [ -z "$CASES" ] || case " $CASES " in *" $name "*) ;; *) continue ;; esac
    gcc -O2 -g "$flag" -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" -O2 "$flag" -o "$WORK/$name.memspy" "$ROOT/$src"
    : >"$WORK/t.native"; : >"$WORK/t.cg"
    for mode in $MODES; do : >"$WORK/t.$mode"; done
    i=0
    while [ $i -lt "$RUNS" ]; do
        (cd "$WORK" && seconds "./$name.native" $args) >>"$WORK/t.native"
        [ "$CG" = 0 ] || (cd "$WORK" && seconds valgrind --tool=cachegrind --cache-sim=yes \
            --cachegrind-out-file=/dev/null "./$name.native" $args) >>"$WORK/t.cg"
        for mode in $MODES; do
            (cd "$WORK" && seconds "$BUILD/bin/memspy" run --no-report --interleave $mode \
                --result "$name.result" -- "./$name.memspy" $args) >>"$WORK/t.$mode"
        done
        i=$((i + 1))
    done
    n=$(median <"$WORK/t.native")
    row="| $name | $n"
    for mode in $MODES; do
        row="$row$(median <"$WORK/t.$mode" | awk -v n="$n" '{ printf " | %.2f | %.1fx", $1, $1 / n }')"
    done
    [ "$CG" = 0 ] || row="$row$(median <"$WORK/t.cg" | awk -v n="$n" '{ printf " | %.2f | %.1fx", $1, $1 / n }')"
    echo "$row |"
done
