#!/bin/sh
# Partitioned simulation (--sim-threads): records each kernel once, re-simulates it with
# 1, 2, 4 and 16 simulator threads, and prints per kernel and thread count the largest share
# of a bin's misses at one level moved between capacity and conflict (all bins, and bins with
# >= 1000 misses at that level), then the resim time (median of 5, wall and CPU) for 1 and 2
# (TIMING=0 / DEVIATION=0 skip a part; timing needs the recordings of a first run).
# usage: bench/psim/run.sh BUILD_BIN_DIR [WORKDIR]
set -eu
BIN=$(cd "$1" && pwd); W=${2:-/tmp/memspy-psim-bench}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$W"; cd "$W"
kernels() {
    echo "stencil bench/kernels/stencil.c 1024 4"
    echo "spmv bench/kernels/spmv.c 100000 16 2"
    echo "matmul bench/kernels/matmul.c 256 1"
    echo "blkmatmul examples/blkmatmul/blkmatmul.c 295 64"
    echo "tri examples/tri/tri.c"
}
# largest |capacity moved| / misses over bins x levels, as a percentage; $3: minimum misses
dev() {
    jq -n --slurpfile a "$1" --slurpfile b "$2" --argjson min "$3" '
      [range(0; $a[0].bins | length) as $i | range(0; $a[0].bins[$i].levels | length) as $k
       | $a[0].bins[$i].levels[$k] as $x | $b[0].bins[$i].levels[$k] as $y
       | select($x.misses >= $min and $x.misses > 0)
       | (($x.causes.capacity - $y.causes.capacity) | fabs) / $x.misses * 100] | max // 0'
}
[ "${DEVIATION:-1}" = 1 ] && kernels | while read -r name src args; do
    "$BIN/memspy-cc" -O2 -o "$name" "$SRC/$src"
    rm -rf "rec-$name"
    # shellcheck disable=SC2086
    "$BIN/memspy" run --record "rec-$name" --json "$name.json" -o /dev/null -- ./"$name" $args >/dev/null 2>&1
    for n in 1 2 4 16; do
        "$BIN/memspy" resim --sim-threads $n --json "$name-$n.json" -o /dev/null "rec-$name" 2>/dev/null
    done
    for n in 2 4 16; do
        echo "$name P=$n max moved % of bin misses: all bins $(dev "$name-1.json" "$name-$n.json" 1)," \
             ">=1000 misses $(dev "$name-1.json" "$name-$n.json" 1000)"
    done
done
if [ "${TIMING:-1}" = 1 ]; then
    kernels | while read -r name src args; do
        for n in 1 2; do
            for i in 1 2 3 4 5; do
                /usr/bin/time -f "%e %U %S" "$BIN/memspy" resim --sim-threads $n --json /dev/null -o /dev/null \
                    "rec-$name" 2>&1 >/dev/null | tail -1
            done >times
            wall=$(sort -n times | sed -n 3p | cut -d' ' -f1)
            cpu=$(awk '{print $2 + $3}' times | sort -n | sed -n 3p)
            echo "$name sim-threads=$n median of 5: wall $wall s, cpu $cpu s"
        done
    done
fi
