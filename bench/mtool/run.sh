#!/bin/sh
# memspy mtool against native (issue 13 item 4): wall time of the native binary (gcc -O2 -g)
# and of `memspy mtool` on the memspy-cc binary (the whole command: the counting run, the
# timing run, llvm-mca's block costs from its cache, the clock calibration, the analysis, the
# database), median of RUNS (default 5), after one run that fills the llvm-mca cache; plus
# MTOOL's summary and top loop of each program. Native and mtool runs alternate (native,
# mtool, native, mtool, ...), so that a load that comes and goes on a shared machine weighs on
# both columns alike; the CPU columns (user + system seconds of the command and its children,
# from /usr/bin/time) depend less on the load than the wall times. The commands read /dev/null
# (memspy mtool passes its input to the program: the list of cases would go there).
# With BASE_BUILD=DIR (an earlier build), its memspy and memspy-cc run in the same alternation
# (a third column): before and after, measured side by side.
# usage: [BASE_BUILD=DIR] sh bench/mtool/run.sh [BUILD_DIR] [RUNS] [CASES]  -> a markdown table
# CASES: a space-separated list of names below (default: all).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init mtool "${1:-}"
RUNS=${2:-5}
ONLY=${3:-}
BASE=${BASE_BUILD:+$(cd "$BASE_BUILD" && pwd)}
export XDG_CACHE_HOME="$WORK/cache"

# NAME SOURCE ARGS [FLAGS] (the examples' sizes: native runs of 0.05-0.5 s, like the kernels';
# the threaded ones with 2 threads, OMP_NUM_THREADS below; counters and migratory were 0.04 s
# native on the idle machine, at the 10 ms timer's resolution and under memspy's fixed cost of
# about 0.1 s of CPU per command: four times larger since session 12, docs/performance.md)
cases() {
    echo "matmul bench/kernels/matmul.c 384:1"
    echo "spmv bench/kernels/spmv.c 200000:16:5"
    echo "stencil bench/kernels/stencil.c 2048:20"
    echo "mtool_kernels tests/e2e/progs/mtool_kernels.c 400000:128"
    echo "blkmatmul examples/blkmatmul/blkmatmul.c 400:64"
    echo "tri examples/tri/tri.c 160000:16:400"
    echo "crossint examples/crossint/crossint.c 400000"
    echo "nbf examples/nbf/nbf.c original:131072:16 -fopenmp"
    echo "counters examples/counters/counters.c packed:16000000:8 -fopenmp"
    echo "ptri examples/ptri/ptri.c 2:800000:4:200 -pthread"
    echo "prodcons examples/prodcons/prodcons.c 1:200000 -pthread"
    echo "migratory examples/migratory/migratory.c 2:4000000 -pthread"
}
export OMP_NUM_THREADS=2

# timed OUT CMD...: append "wall cpu" of one run of CMD (in WORK) to OUT.
timed() {
    out=$1
    shift
    (cd "$WORK" && /usr/bin/time -f "%e %U %S" -o "$WORK/t" "$@" </dev/null >/dev/null 2>"$WORK/err") ||
        { echo "failed: $*" >&2; cat "$WORK/err" >&2; exit 1; }
    awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$WORK/t" >>"$out"
}

col() { awk -v c="$1" '{ print $c }' "$2" | median; }

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ -n "$BASE" ]; then
    echo "| program | native s (cpu) | before: mtool s (cpu) | ratio | after: mtool s (cpu) | ratio | predicted s | measured s | memory overhead | top loop (overhead) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
else
    echo "| program | native s (cpu) | memspy mtool s (cpu) | ratio (cpu ratio) | predicted s | measured s | memory overhead | top loop (overhead) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
fi
cases | while read -r name src args flags; do
    if [ -n "$ONLY" ] && ! echo " $ONLY " | grep -q " $name "; then continue; fi
    args=$(echo "$args" | tr : ' ')
    gcc -O2 -g $flags -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" -O2 -g $flags -o "$WORK/$name.plugin" "$ROOT/$src"
    (cd "$WORK" && "$BUILD/bin/memspy" mtool --db "$WORK/db" --json "$name.json" -- "./$name.plugin" $args </dev/null >/dev/null 2>&1)
    if [ -n "$BASE" ]; then
        "$BASE/bin/memspy-cc" -O2 -g $flags -o "$WORK/$name.base" "$ROOT/$src"
        (cd "$WORK" && "$BASE/bin/memspy" mtool --db "$WORK/db" -- "./$name.base" $args </dev/null >/dev/null 2>&1)
    fi
    : >"$WORK/n"; : >"$WORK/m"; : >"$WORK/b"
    i=0
    while [ $i -lt "$RUNS" ]; do
        timed "$WORK/n" "./$name.native" $args
        [ -z "$BASE" ] || timed "$WORK/b" "$BASE/bin/memspy" mtool --db "$WORK/db" -- "./$name.base" $args
        timed "$WORK/m" "$BUILD/bin/memspy" mtool --db "$WORK/db" -- "./$name.plugin" $args
        i=$((i + 1))
    done
    n=$(col 1 "$WORK/n"); nc=$(col 2 "$WORK/n"); m=$(col 1 "$WORK/m"); mc=$(col 2 "$WORK/m")
    summary=$(jq -r '.mtool | "\(.predicted_s) \(.measured_s) \(.memory_overhead_s)"' "$WORK/$name.json")
    top=$(jq -r '[.mtool.mobjects[] | select(.kind == "loop" and .timable)] | max_by(.measured_s - .estimated_s) |
        if . == null then "-" else "\(.function):\(.line) (\(.overhead * 100 | floor)%)" end' "$WORK/$name.json")
    if [ -n "$BASE" ]; then
        b=$(col 1 "$WORK/b"); bc=$(col 2 "$WORK/b")
        echo "$summary" | awk -v name="$name" -v n="$n" -v nc="$nc" -v m="$m" -v mc="$mc" -v b="$b" -v bc="$bc" \
            -v top="$top" '{ printf "| %s | %.3f (%.3f) | %.3f (%.3f) | %.2fx | %.3f (%.3f) | %.2fx | %.3f | %.3f | %.3f | %s |\n",
                name, n, nc, b, bc, b / n, m, mc, m / n, $1, $2, $3, top }'
    else
        echo "$summary" | awk -v name="$name" -v n="$n" -v nc="$nc" -v m="$m" -v mc="$mc" -v top="$top" '{
            printf "| %s | %.3f (%.3f) | %.3f (%.3f) | %.2fx (%.2fx) | %.3f | %.3f | %.3f | %s |\n",
                name, n, nc, m, mc, m / n, (nc > 0 ? mc / nc : 0), $1, $2, $3, top }'
    fi
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
