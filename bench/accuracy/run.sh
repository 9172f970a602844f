#!/bin/sh
# Accuracy: memspy's simulated D1/LL misses against Cachegrind's, same geometry
# (D1 32 KiB 8-way 64 B, LL 1 MiB 16-way 64 B = memspy preset "x86-l2"), per kernel function,
# on heap and global data. Both binaries are built with -O2 -fno-inline -fno-tree-vectorize
# so that both tools see the same loads and stores in the same function.
# usage: sh bench/accuracy/run.sh [BUILD_DIR]   -> markdown table on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/memspy-acc.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FLAGS="-O2 -g -fno-inline -fno-tree-vectorize"
CG="valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,16,64 --I1=32768,8,64"

# case NAME SOURCE FUNCTION ARGS...
cases() {
    echo "blkmatmul examples/blkmatmul/blkmatmul.c BlkMultiply 295 64"
    echo "tri examples/tri/tri.c Solve 40000 16 400"
    echo "crossint examples/crossint/crossint.c Axpy 200"
    echo "matmul bench/kernels/matmul.c multiply 256 1"
    echo "stencil bench/kernels/stencil.c sweep 1024 4"
    echo "spmv bench/kernels/spmv.c spmv 100000 16 2"
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print (a == 0 ? "0.00" : "inf"); else printf "%+.2f", 100.0 * (a - b) / b }'; }

echo "| program | function | Cachegrind D1 misses | memspy L1 misses | diff | Cachegrind LL misses | memspy L2 misses | diff |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
cases | while read -r name src fn args; do
    gcc $FLAGS -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" $FLAGS -o "$WORK/$name.memspy" "$ROOT/$src"
    (cd "$WORK" && $CG --cachegrind-out-file="$name.cg" "./$name.native" $args >/dev/null 2>&1)
    (cd "$WORK" && "$BUILD/bin/memspy" run --preset x86-l2 --no-report --result "$name.result" \
        --json "$name.json" -- "./$name.memspy" $args >/dev/null)
    # Cachegrind: sum D1mr+D1mw and DLmr+DLmw over the lines of function fn.
    set -- $(awk -v want="$fn" '
        /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
        /^fn=/ { infn = (substr($0, 4) == want) ; next }
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
    echo "| $name | $fn | $cg_d1 | $ms_l1 | $(pct "$ms_l1" "$cg_d1")% | $cg_ll | $ms_l2 | $(pct "$ms_l2" "$cg_ll")% |"
done
