#!/bin/sh
# Accuracy: memspy's simulated D1/LL misses against Cachegrind's, same geometry, per kernel
# function, on heap and global data. Geometry "8way": D1 32 KiB 8-way 64 B + LL 1 MiB 16-way
# (memspy preset "x86-l2"); "dm": the same with a direct-mapped D1 (the MemSpy paper's L1). Both binaries are built with -O2 -fno-inline -fno-tree-vectorize
# so that both tools see the same loads and stores in the same function.
# usage: sh bench/accuracy/run.sh [BUILD_DIR]   -> markdown table on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init acc "${1:-}"
FLAGS="-O2 -g -fno-inline -fno-tree-vectorize"
CG="valgrind --tool=cachegrind --cache-sim=yes --LL=1048576,16,64 --I1=32768,8,64"

# case NAME GEOMETRY SOURCE FUNCTION ARGS...
cases() {
    echo "blkmatmul 8way examples/blkmatmul/blkmatmul.c BlkMultiply 295 64"
    echo "blkmatmul dm examples/blkmatmul/blkmatmul.c BlkMultiply 295 64"
    echo "tri 8way examples/tri/tri.c Solve 40000 16 400"
    echo "crossint 8way examples/crossint/crossint.c Axpy 200"
    echo "crossint dm examples/crossint/crossint.c Axpy 200"
    echo "matmul 8way bench/kernels/matmul.c multiply 256 1"
    echo "stencil 8way bench/kernels/stencil.c sweep 1024 4"
    echo "stencil dm bench/kernels/stencil.c sweep 1024 4"
    echo "spmv 8way bench/kernels/spmv.c spmv 100000 16 2"
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print (a == 0 ? "0.00" : "inf"); else printf "%+.2f", 100.0 * (a - b) / b }'; }

echo "| program | D1 | function | Cachegrind D1 misses | memspy L1 misses | diff | Cachegrind LL misses | memspy L2 misses | diff |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
cases | while read -r name geom src fn args; do
    if [ "$geom" = dm ]; then d1=32768,1,64 l1=32K:1:64:4; else d1=32768,8,64 l1=32K:8:64:4; fi
    gcc $FLAGS -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" $FLAGS -o "$WORK/$name.memspy" "$ROOT/$src"
    (cd "$WORK" && $CG --D1=$d1 --cachegrind-out-file="$name.cg" "./$name.native" $args >/dev/null 2>&1)
    (cd "$WORK" && "$BUILD/bin/memspy" run --cache "L1=$l1,L2=1M:16:64:14" --no-report --result "$name.result" \
        --json "$name.json" -- "./$name.memspy" $args >/dev/null)
    # Cachegrind: sum D1mr+D1mw and DLmr+DLmw over the lines of function fn.
    set -- $(awk -v want="$fn" '
        /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
        /^fn=/ { f = substr($0, 4); infn = (f == want || index(f, want ".") == 1); next }
        /^[0-9]/ && infn { d1 += $(col["D1mr"]+1) + $(col["D1mw"]+1); ll += $(col["DLmr"]+1) + $(col["DLmw"]+1) }
        END { print d1 + 0, ll + 0 }' "$WORK/$name.cg")
    cg_d1=$1 cg_ll=$2
    # memspy: L1 and L2 misses of fn's cells on heap and global data.
    set -- $(jq -r --arg fn "$fn" '
        ([.code[] | select(.name == $fn) | .id]) as $c |
        ([.data[] | select(.kind == "heap" or .kind == "global") | .id]) as $d |
        [.bins[] | select((.code as $x | $c | index($x)) and (.data as $y | $d | index($y)))] |
        "\(map(.levels[0].misses) | add // 0) \(map(.levels[1].misses) | add // 0)"' "$WORK/$name.json")
    ms_l1=$1 ms_l2=$2
    echo "| $name | $geom | $fn | $cg_d1 | $ms_l1 | $(pct "$ms_l1" "$cg_d1")% | $cg_ll | $ms_l2 | $(pct "$ms_l2" "$cg_ll")% |"
done
