#!/bin/sh
# Two builds side by side with Cachegrind, in one pass (so that the load of a shared machine
# weighs on all of them alike): for each bench kernel, RUNS rounds of
#   simbench of BASE and of NEW, each on its own recording of the kernel (decode and simulation timed apart, CPU time),
#   Cachegrind --cache-sim=yes and --cache-sim=no on the native binary,
#   the native binary, `memspy run` of BASE and of NEW (default preset, every statistic, the
#   simulator thread included, no recording),
# medians of the CPU (user + system) and wall seconds. simbench's checksums of the two builds
# must agree (the same counters).
# usage: sh bench/stages/side.sh BASE_BUILD NEW_BUILD [RUNS]   -> markdown tables on stdout
#        (KERNELS="stencil spmv matmul blkmatmul" as in cases.sh)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
. "$ROOT/bench/stages/cases.sh"
bench_init side "$2"
NEW=$BUILD
BASE=$(cd "$1" && pwd)
RUNS=${3:-5}
for b in BASE NEW; do
    eval "d=\$$b"
    gcc -O2 -g -I "$ROOT/src" -o "$WORK/simbench.$b" "$ROOT/bench/stages/simbench.c" \
        "$d/lib/memspy/libmemspy_replay.a" "$d/lib/memspy/libmemspy_sim.a" "$d/lib/memspy/libmemspy_util.a" -lzstd -lz
done
CG="valgrind --tool=cachegrind --cachegrind-out-file=/dev/null"

# timed FILE CMD...: append "cpu wall" seconds of one run to FILE
timed() {
    f=$1; shift
    /usr/bin/time -f "%U %S %e" -o "$WORK/time" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    awk '{ printf "%.4f %.4f\n", $1 + $2, $3 }' "$WORK/time" >>"$f"
}
med() { awk -v c="$2" '{ print $c }' "$1" | median; }

echo "| kernel | references | memspy simulation ns/ref base | new | Cachegrind whole run ns/data ref | Cachegrind simulation only | new / Cachegrind's whole | native s | Cachegrind cpu / wall s | memspy run base cpu / wall s | new cpu / wall s | new / Cachegrind (cpu, wall) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|"
cases | while read -r name src args; do
    gcc -O2 -g -o "$WORK/$name.native" "$ROOT/$src"
    for b in BASE NEW; do
        eval "d=\$$b"
        "$d/bin/memspy-cc" -O2 -o "$WORK/$name.$b" "$ROOT/$src"
    done
    for b in BASE NEW; do # each build replays its own recording (stream versions may differ)
        eval "d=\$$b"
        (cd "$WORK" && rm -rf "rec.$name.$b" && "$d/bin/memspy" run --db "$WORK/db" --no-report \
            --record "rec.$name.$b" -- "./$name.$b" $args >/dev/null 2>&1)
    done
    for f in sb.BASE sb.NEW cy cn nat run.BASE run.NEW; do : >"$WORK/$f"; done
    i=0
    while [ $i -lt "$RUNS" ]; do
        for b in BASE NEW; do "$WORK/simbench.$b" "$WORK/rec.$name.$b" >>"$WORK/sb.$b"; done
        (cd "$WORK" && timed "$WORK/cy" $CG --cache-sim=yes --D1=32768,8,64 --LL=8388608,16,64 "./$name.native" $args)
        (cd "$WORK" && timed "$WORK/cn" $CG --cache-sim=no "./$name.native" $args)
        (cd "$WORK" && timed "$WORK/nat" "./$name.native" $args)
        for b in BASE NEW; do
            eval "d=\$$b"
            (cd "$WORK" && timed "$WORK/run.$b" "$d/bin/memspy" run --db "$WORK/db" --no-report -- "./$name.$b" $args)
        done
        i=$((i + 1))
    done
    [ "$(awk '{ print $8 }' "$WORK/sb.BASE" | sort -u)" = "$(awk '{ print $8 }' "$WORK/sb.NEW" | sort -u)" ] ||
        echo "$name: the two builds' simulations differ" >&2
    drefs=$(cd "$WORK" && $CG --cache-sim=yes "./$name.native" $args 2>&1 >/dev/null |
            awk '/D +refs:/ { gsub(",", "", $4); print $4 }')
    refs=$(awk 'NR == 1 { print $2 }' "$WORK/sb.NEW")
    awk -v name="$name" -v refs="$refs" -v r="$drefs" \
        -v sb="$(awk '{ print $6 }' "$WORK/sb.BASE" | median)" -v sn="$(awk '{ print $6 }' "$WORK/sb.NEW" | median)" \
        -v cy="$(med "$WORK/cy" 1)" -v cyw="$(med "$WORK/cy" 2)" -v cn="$(med "$WORK/cn" 1)" -v nat="$(med "$WORK/nat" 1)" \
        -v rb="$(med "$WORK/run.BASE" 1)" -v rbw="$(med "$WORK/run.BASE" 2)" \
        -v rn="$(med "$WORK/run.NEW" 1)" -v rnw="$(med "$WORK/run.NEW" 2)" 'BEGIN {
        w = 1e9 * cy / r; sim = 1e9 * (cy - cn) / r
        printf "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.3f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f, %.2f |\n",
            name, refs, sb, sn, w, sim, sn / w, nat, cy, cyw, rb, rbw, rn, rnw, rn / cy, rnw / cyw }'
done
