#!/bin/sh
# CPU time of MTOOL's counting run alone (MEMSPY_MODE=count, as `memspy mtool` runs it) against
# the native binary's, at 4-8 times bench/mtool/run.sh's sizes (native runs of 0.2-0.5 s of CPU:
# /usr/bin/time counts hundredths): median of RUNS user + system seconds,
# native and counting runs alternating (and, with BASE_BUILD=DIR, an earlier build's counting
# run in the same alternation). CPU time depends less on a shared machine's load than wall time.
# usage: [BASE_BUILD=DIR] sh bench/mtool/countrun.sh [BUILD_DIR] [RUNS] [CASES]  -> a markdown table
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init mtool-count "${1:-}"
RUNS=${2:-5}
ONLY=${3:-}
BASE=${BASE_BUILD:+$(cd "$BASE_BUILD" && pwd)}
export OMP_NUM_THREADS=2
cases() {
    echo "matmul bench/kernels/matmul.c 768:1"
    echo "spmv bench/kernels/spmv.c 200000:16:40"
    echo "stencil bench/kernels/stencil.c 2048:30"
    echo "blkmatmul examples/blkmatmul/blkmatmul.c 800:64"
    echo "tri examples/tri/tri.c 160000:16:2400"
    echo "crossint examples/crossint/crossint.c 2000000"
    echo "nbf examples/nbf/nbf.c original:524288:16 -fopenmp"
    echo "counters examples/counters/counters.c packed:20000000:8 -fopenmp"
    echo "ptri examples/ptri/ptri.c 2:800000:4:1000 -pthread"
    echo "migratory examples/migratory/migratory.c 2:5000000 -pthread"
}
# cpu OUT [MODE] PROG ARGS: append the user + system seconds of one run to OUT.
cpu() {
    out=$1
    shift
    mode=
    case "$1" in count) mode=$1; shift ;; esac
    mkdir -p "$WORK/raw"
    (cd "$WORK" && env ${mode:+MEMSPY_MODE=$mode MEMSPY_RAW_DIR=$WORK/raw} /usr/bin/time -f "%U %S" -o "$WORK/t" \
        "$@" </dev/null >/dev/null 2>&1) || { echo "failed: $*" >&2; exit 1; }
    rm -f "$WORK/raw"/*
    awk '{ printf "%.3f\n", $1 + $2 }' "$WORK/t" >>"$out"
}
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| program | native cpu s | ${BASE:+before: counting run cpu s | ratio | }counting run cpu s | ratio |"
echo "|---|---:|${BASE:+---:|---:|}---:|---:|"
cases | while read -r name src args flags; do
    if [ -n "$ONLY" ] && ! echo " $ONLY " | grep -q " $name "; then continue; fi
    args=$(echo "$args" | tr : ' ')
    gcc -O2 -g $flags -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" -O2 -g $flags -o "$WORK/$name.plugin" "$ROOT/$src"
    [ -z "$BASE" ] || "$BASE/bin/memspy-cc" -O2 -g $flags -o "$WORK/$name.base" "$ROOT/$src"
    : >"$WORK/n"; : >"$WORK/m"; : >"$WORK/b"
    i=0
    while [ $i -lt "$RUNS" ]; do
        cpu "$WORK/n" "./$name.native" $args
        [ -z "$BASE" ] || cpu "$WORK/b" count "./$name.base" $args
        cpu "$WORK/m" count "./$name.plugin" $args
        i=$((i + 1))
    done
    n=$(median <"$WORK/n"); m=$(median <"$WORK/m"); b=$(median <"$WORK/b")
    if [ -n "$BASE" ]; then
        awk -v name="$name" -v n="$n" -v m="$m" -v b="$b" 'BEGIN {
            printf "| %s | %.3f | %.3f | %.2fx | %.3f | %.2fx |\n", name, n, b, b / n, m, m / n }'
    else
        awk -v name="$name" -v n="$n" -v m="$m" 'BEGIN { printf "| %s | %.3f | %.3f | %.2fx |\n", name, n, m, m / n }'
    fi
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
