#!/bin/sh
# Instructions of MTOOL's two runs (issue 13 item 4), exact on a loaded machine: Cachegrind's Ir
# (--cache-sim=no) of the native binary (gcc -O2 -g) and of the memspy-cc binary's counting run
# and timing run as `memspy mtool` runs them (the program alone: memspy's own analysis and
# llvm-mca not counted), at smaller sizes than bench/mtool/run.sh (Cachegrind runs 20-50x
# slower). With BASE_BUILD=DIR, an earlier build's counting and timing runs too (before and
# after side by side).
# usage: [BASE_BUILD=DIR] sh bench/mtool/ir.sh [BUILD_DIR] [CASES]  -> a markdown table
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init mtool-ir "${1:-}"
ONLY=${2:-}
BASE=${BASE_BUILD:+$(cd "$BASE_BUILD" && pwd)}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
export XDG_CACHE_HOME="$WORK/cache" MEMSPY_DB="$WORK/db" OMP_NUM_THREADS=2
cases() {
    echo "matmul bench/kernels/matmul.c 200:1"
    echo "spmv bench/kernels/spmv.c 50000:16:2"
    echo "stencil bench/kernels/stencil.c 1024:5"
    echo "mtool_kernels tests/e2e/progs/mtool_kernels.c 50000:32"
    echo "blkmatmul examples/blkmatmul/blkmatmul.c 200:64"
    echo "tri examples/tri/tri.c 40000:16:100"
    echo "crossint examples/crossint/crossint.c 100000"
    echo "nbf examples/nbf/nbf.c original:32768:16 -fopenmp"
    echo "counters examples/counters/counters.c packed:1000000:8 -fopenmp"
    echo "ptri examples/ptri/ptri.c 2:200000:4:50 -pthread"
    echo "prodcons examples/prodcons/prodcons.c 1:50000 -pthread"
    echo "migratory examples/migratory/migratory.c 2:250000 -pthread"
}
# ir TAG [MODE] PROG ARGS: Ir of one run of PROG (a single process; threads included), with
# MODE: as memspy mtool runs it (MEMSPY_MODE=count or time, the raw profile into a scratch
# directory; the timing run without its sampling timer).
ir() {
    tag=$1
    shift
    mode=
    case "$1" in count | time) mode=$1; shift ;; esac
    mkdir -p "$WORK/raw"
    (cd "$WORK" && env ${mode:+MEMSPY_MODE=$mode MEMSPY_RAW_DIR=$WORK/raw} valgrind --tool=cachegrind \
        --cache-sim=no --cachegrind-out-file="$WORK/cg.$tag" "$@" </dev/null >/dev/null 2>&1) || true
    grep -h '^summary:' "$WORK/cg.$tag" | awk '{ print $2 }'
}
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ -n "$BASE" ]; then
    echo "| program | native Ir | before: counting run Ir | ratio | after: counting run Ir | ratio | before: timing run Ir | ratio | after: timing run Ir | ratio |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
else
    echo "| program | native Ir | counting run Ir | ratio | timing run Ir | ratio |"
    echo "|---|---:|---:|---:|---:|---:|"
fi
cases | while read -r name src args flags; do
    if [ -n "$ONLY" ] && ! echo " $ONLY " | grep -q " $name "; then continue; fi
    args=$(echo "$args" | tr : ' ')
    gcc -O2 -g $flags -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" -O2 -g $flags -o "$WORK/$name.plugin" "$ROOT/$src"
    n=$(ir "$name.n" "./$name.native" $args)
    mc=$(ir "$name.mc" count "./$name.plugin" $args)
    mt=$(ir "$name.mt" time "./$name.plugin" $args)
    if [ -n "$BASE" ]; then
        "$BASE/bin/memspy-cc" -O2 -g $flags -o "$WORK/$name.base" "$ROOT/$src"
        b=$(ir "$name.b" count "./$name.base" $args)
        bt=$(ir "$name.bt" time "./$name.base" $args)
        awk -v name="$name" -v n="$n" -v b="$b" -v mc="$mc" -v mt="$mt" -v bt="$bt" 'BEGIN {
            printf "| %s | %.1fM | %.1fM | %.2fx | %.1fM | %.2fx | %.1fM | %.2fx | %.1fM | %.2fx |\n",
                name, n / 1e6, b / 1e6, b / n, mc / 1e6, mc / n, bt / 1e6, bt / n, mt / 1e6, mt / n }'
    else
        awk -v name="$name" -v n="$n" -v mc="$mc" -v mt="$mt" 'BEGIN {
            printf "| %s | %.1fM | %.1fM | %.2fx | %.1fM | %.2fx |\n", name, n / 1e6, mc / 1e6, mc / n, mt / 1e6, mt / n }'
    fi
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
