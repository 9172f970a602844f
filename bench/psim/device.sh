#!/bin/bash
# The partitioned simulator's scaling on a many-core machine that has none of memspy's
# dependencies (the lent device machine): `prepare` records the kernels here and puts memspy,
# its shared libraries and their loader with the recordings into DIR; `run` (on the other
# machine, DIR carried there) re-simulates each recording with P = 1 2 4 8 15 simulator
# threads, N runs each (default 3), and prints the median wall and CPU seconds; results go to
# $OUT when set. RS and PS narrow the recordings and thread counts; B names another memspy
# binary in DIR to run (e.g. one copied there as memspy-base, for a before/after on one machine).
# usage: bench/psim/device.sh prepare BUILD_BIN_DIR DIR | bench/psim/device.sh run DIR
set -eu
if [ "$1" = prepare ]; then
    BIN=$(cd "$2" && pwd); D=$3; SRC=$(cd "$(dirname "$0")/../.." && pwd)
    mkdir -p "$D/lib" "$D/rec"
    for l in $(ldd "$BIN/memspy" | awk '/=>/{print $3} /ld-linux/{print $1}'); do cp -L "$l" "$D/lib/"; done
    cp "$BIN/memspy" "$D/"
    while read -r name src args; do
        "$BIN/memspy-cc" -O2 -o "$D/$name" "$SRC/$src"
        rm -rf "$D/rec/$name"
        # shellcheck disable=SC2086
        "$BIN/memspy" run --record "$D/rec/$name" --json /dev/null -o /dev/null -- "$D/$name" $args >/dev/null 2>&1
        rm -f "$D/$name"
    done <<'K'
stencil bench/kernels/stencil.c 2048 20
blkmatmul examples/blkmatmul/blkmatmul.c 400 64
K
    du -sh "$D"
    exit 0
fi
cd "$2"
OUT=${OUT:-.}
B=${B:-memspy}
M="./lib/ld-linux-x86-64.so.2 --library-path ./lib ./$B"
echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for r in ${RS:-stencil blkmatmul}; do
    for p in ${PS:-1 2 4 8 15}; do
        : > t
        TIMEFORMAT='%R %U %S'
        for _ in $(seq "${N:-3}"); do
            { time $M resim --sim-threads "$p" --json "$OUT/$B-$r-$p.json" -o /dev/null "rec/$r" >/dev/null 2>&1; } 2>> t
        done
        k=$(( (${N:-3} + 1) / 2 ))
        echo "$B $r P=$p wall $(cut -d' ' -f1 t | sort -n | sed -n ${k}p) cpu $(awk '{print $2+$3}' t | sort -n | sed -n ${k}p)" | tee -a "$OUT/psim.txt"
    done
done
