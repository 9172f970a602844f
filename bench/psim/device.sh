#!/bin/bash
# The partitioned simulator's scaling on a many-core machine that has none of memspy's
# dependencies (the lent device machine): `prepare` records the cases here and puts memspy,
# its shared libraries and their loader with the recordings into DIR; `run` (on the other
# machine, DIR carried there) re-simulates each recording with P = 1 2 4 8 15 simulator
# threads, N runs each (default 3), prints the median wall and CPU seconds (user + system)
# and checks that every P gives the JSON of P = 1 but for the capacity/conflict split
# (docs/simulator.md, "Partitioned simulation"); results go to $OUT (psim.txt) when set.
# RS and PS narrow the recordings and thread counts; B names another memspy binary in DIR to
# run (e.g. one copied there as memspy-base, for a before/after on one machine).
# usage: bench/psim/device.sh prepare BUILD_BIN_DIR DIR | bench/psim/device.sh run DIR
set -eu
# name  compile-flags (- for none)  source  arguments; threaded cases run with 4 threads and
# are re-simulated in the interleaved order (the timed order runs one simulation worker)
cases() {
    cat <<'K'
stencil - bench/kernels/stencil.c 2048 20
blkmatmul - examples/blkmatmul/blkmatmul.c 400 64
counters -fopenmp examples/counters/counters.c packed 500000 8
K
}
if [ "$1" = prepare ]; then
    BIN=$(cd "$2" && pwd); D=$3; SRC=$(cd "$(dirname "$0")/../.." && pwd)
    mkdir -p "$D/lib" "$D/rec"
    for l in $(ldd "$BIN/memspy" | awk '/=>/{print $3} /ld-linux/{print $1}'); do cp -L "$l" "$D/lib/"; done
    cp "$BIN/memspy" "$D/"
    cases | while read -r name flags src args; do
        [ "$flags" = - ] && flags=
        # shellcheck disable=SC2086
        "$BIN/memspy-cc" -O2 $flags -o "$D/$name" "$SRC/$src"
        rm -rf "$D/rec/$name"
        # shellcheck disable=SC2086
        OMP_NUM_THREADS=4 "$BIN/memspy" run --record "$D/rec/$name" --json /dev/null -o /dev/null \
            --db "$D/prepare.db" -- "$D/$name" $args >/dev/null 2>&1
        rm -f "$D/$name"
    done
    rm -f "$D/prepare.db"
    du -sh "$D"
    exit 0
fi
cd "$2"
OUT=${OUT:-.}
B=${B:-memspy}
J=$(mktemp -d)
M="./lib/ld-linux-x86-64.so.2 --library-path ./lib ./$B"
echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" | tee -a "$OUT/psim.txt"
for r in ${RS:-stencil blkmatmul counters}; do
    [ -d "rec/$r" ] || continue
    x=; [ "$(ls "rec/$r" | grep -c "^thread-")" -gt 1 ] && x="--interleave interleaved"
    for p in ${PS:-1 2 4 8 15}; do
        : > t
        TIMEFORMAT='%R %U %S'
        for _ in $(seq "${N:-3}"); do
            # shellcheck disable=SC2086
            { time $M resim --db "$J/m.db" --sim-threads "$p" $x --json "$J/$r-$p.json" -o /dev/null "rec/$r" >/dev/null 2>&1; } 2>> t
        done
        k=$(( (${N:-3} + 1) / 2 ))
        echo "$B $r P=$p wall $(cut -d' ' -f1 t | sort -n | sed -n ${k}p) cpu $(awk '{print $2+$3}' t | sort -n | sed -n ${k}p)" | tee -a "$OUT/psim.txt"
        sed -E 's/"(time|wall_seconds)": [0-9.e+-]+/"\1": X/g; s/"(capacity|conflict)": [0-9]+/"\1": X/g' \
            "$J/$r-$p.json" > "$J/$r-$p.n"
        first=${first:-$p}
        cmp -s "$J/$r-$p.n" "$J/$r-$first.n" ||
            echo "$B $r P=$p: the JSON differs from P=$first's beyond the capacity/conflict split" | tee -a "$OUT/psim.txt"
    done
    unset first
done
rm -rf "$J" t
