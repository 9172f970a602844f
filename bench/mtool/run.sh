#!/bin/sh
# memspy mtool against native (issue 13 item 4): wall time of the native binary (gcc -O2 -g)
# and of `memspy mtool` on the memspy-cc binary (the whole command: the timed counting run,
# llvm-mca's block costs from its cache, the analysis), median of RUNS (default 3), after one
# run that fills the llvm-mca cache; plus MTOOL's summary and top loop of each program.
# usage: sh bench/mtool/run.sh [BUILD_DIR] [RUNS]   -> a markdown table on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init mtool "${1:-}"
RUNS=${2:-3}
export XDG_CACHE_HOME="$WORK/cache"

# NAME SOURCE ARGS
cases() {
    echo "matmul bench/kernels/matmul.c 384:1"
    echo "spmv bench/kernels/spmv.c 200000:16:5"
    echo "stencil bench/kernels/stencil.c 2048:20"
    echo "mtool_kernels tests/e2e/progs/mtool_kernels.c 400000:128"
}

echo "| program | native s | memspy mtool s | ratio | predicted s | measured s | memory overhead | top loop (overhead) |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
cases | while read -r name src args; do
    args=$(echo "$args" | tr : ' ')
    gcc -O2 -g -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" -O2 -g -o "$WORK/$name.plugin" "$ROOT/$src"
    (cd "$WORK" && "$BUILD/bin/memspy" mtool --json "$name.json" -- "./$name.plugin" $args >/dev/null)
    : >"$WORK/n"; : >"$WORK/m"
    i=0
    while [ $i -lt "$RUNS" ]; do
        (cd "$WORK" && seconds "./$name.native" $args) >>"$WORK/n"
        (cd "$WORK" && seconds "$BUILD/bin/memspy" mtool -- "./$name.plugin" $args) >>"$WORK/m"
        i=$((i + 1))
    done
    n=$(median <"$WORK/n"); m=$(median <"$WORK/m")
    summary=$(jq -r '.mtool | "\(.predicted_s) \(.measured_s) \(.memory_overhead_s)"' "$WORK/$name.json")
    top=$(jq -r '[.mtool.mobjects[] | select(.kind == "loop" and .timable)] | max_by(.measured_s - .estimated_s) |
        "\(.function):\(.line) (\(.overhead * 100 | floor)%)"' "$WORK/$name.json")
    echo "$summary" | awk -v name="$name" -v n="$n" -v m="$m" -v top="$top" '{
        printf "| %s | %.3f | %.3f | %.2fx | %.3f | %.3f | %.3f | %s |\n", name, n, m, m / n, $1, $2, $3, top }'
done
