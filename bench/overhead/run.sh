#!/bin/sh
# Overhead: native time, memspy's slowdown and Cachegrind's slowdown, measured in the same
# run, median of RUNS (default 5). memspy runs with its default preset (3 levels, all bins and
# miss causes on); Cachegrind with --cache-sim=yes on the natively built binary.
# usage: sh bench/overhead/run.sh [BUILD_DIR] [RUNS]   -> markdown table on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init ovh "${1:-}"
RUNS=${2:-5}

cases() {
    echo "blkmatmul examples/blkmatmul/blkmatmul.c 295 64"
    echo "tri examples/tri/tri.c 40000 16 400"
    echo "crossint examples/crossint/crossint.c 2000"
    echo "matmul bench/kernels/matmul.c 384 1"
    echo "spmv bench/kernels/spmv.c 200000 16 5"
    echo "stencil-1s bench/kernels/stencil.c 2048 60"
}


echo "| program | native s | instrumented slowdown | memspy s | memspy slowdown | Cachegrind s | Cachegrind slowdown | memspy / Cachegrind |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
cases | while read -r name src args; do
    gcc -O2 -g -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" -O2 -o "$WORK/$name.memspy" "$ROOT/$src"
    : >"$WORK/n"; : >"$WORK/i"; : >"$WORK/m"; : >"$WORK/c"
    i=0
    while [ $i -lt "$RUNS" ]; do
        (cd "$WORK" && seconds "./$name.native" $args) >>"$WORK/n"
        (cd "$WORK" && seconds "./$name.memspy" $args) >>"$WORK/i"
        (cd "$WORK" && seconds "$BUILD/bin/memspy" run --no-report --result "$name.result" -- "./$name.memspy" $args) >>"$WORK/m"
        (cd "$WORK" && seconds valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null "./$name.native" $args) >>"$WORK/c"
        i=$((i + 1))
    done
    n=$(median <"$WORK/n"); i=$(median <"$WORK/i"); m=$(median <"$WORK/m"); c=$(median <"$WORK/c")
    awk -v name="$name" -v n="$n" -v i="$i" -v m="$m" -v c="$c" 'BEGIN {
        printf "| %s | %.3f | %.1fx | %.2f | %.1fx | %.2f | %.1fx | %.2f |\n", name, n, i / n, m, m / n, c, c / n, m / c }'
done
