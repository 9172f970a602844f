#!/bin/sh
# Where the threaded replay's work goes: 4-thread recordings of examples/counters (packed and
# padded), examples/nbf and examples/ptri, replayed by `memspy resim` interleaved and piped on
# the default threaded hierarchy (x86: private L1/L2, one shared L3, MESI), in instructions per
# reference (Cachegrind's Ir, --cache-sim=no: the load of a shared machine does not move it).
# Stages, by the source file of each function (cg_annotate):
#   decode       the stream reader, zstd, crc32/adler32, memcpy, and every function Cachegrind
#                cannot name (???:???), which also holds the symbolizer's zlib inflate of
#                compressed debug sections and libdw: bench/threads/decode.sh splits
#                decoding by shared object (Callgrind) instead
#   replay       src/replay (the scheduler, interleaving) and the drive's sink
#   simulation   src/sim, split into coherence.c (the coherent path), sim_internal.h (its
#                inlined lookups), sim.c (the hierarchy walk of a miss), cache.c (fills,
#                invalidations), the rest of src/sim (psim.c's batches, pairs, shadows)
#   other        analysis, storing, start-up
# With BASE=DIR (another build) each cell is "base -> this build", and the `memspy resim`
# JSON of both builds is compared, the run's time and wall seconds blanked.
# usage: [BASE=BUILD_DIR] sh bench/threads/stages.sh [BUILD_DIR]   -> markdown table on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init thrstages "${1:-}"
export OMP_NUM_THREADS=4
export MEMSPY_DB="$WORK/memspy.db"

. "$ROOT/bench/threads/small_cases.sh"
cases() { # small_cases and counters' padded layout
    small_cases
    echo "counters-padded examples/counters/counters.c -fopenmp padded 200000 4"
}

# stages BUILD TAG NAME MODE: "refs decode replay sim coh inl simc cache simrest other total"
# per reference; the JSON goes to WORK/NAME.MODE.TAG.json
stages() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$WORK/cg" \
        "$1/bin/memspy" resim --no-report --interleave "$4" --json "$WORK/$3.$4.$2.json" \
        "$WORK/rec.$3" >/dev/null 2>&1
    refs=$(awk -F'"refs": ' 'NF > 1 { split($2, a, ","); print a[1]; exit }' "$WORK/$3.$4.$2.json")
    cg_annotate "$WORK/cg" 2>/dev/null | awk -v refs="$refs" '
        /file:function/ { table = 1; next }
        table && /^-+$/ { next }
        table && NF == 0 { table = 0; next }
        table && /^ *[0-9,]+ / {
            n = $1; gsub(",", "", n); fn = $NF
            if (fn ~ /src\/sim\/coherence\.c/) s = "coh"
            else if (fn ~ /src\/sim\/sim_internal\.h/) s = "inl"
            else if (fn ~ /src\/sim\/sim\.c/) s = "simc"
            else if (fn ~ /src\/sim\/cache\.c/) s = "cache"
            else if (fn ~ /src\/sim\//) s = "simrest"
            else if (fn ~ /stream_reader\.c|src\/replay\/\.\.\/format\/stream\.h|crc32|adler32|ZSTD|HUF_|FSE_|\?\?\?:\?\?\?|memmove|memcpy/) s = "decode"
            else if (fn ~ /src\/replay\/|replay_sim\.c/) s = "replay"
            else s = "other"
            sum[s] += n; total += n
        }
        END {
            sim = sum["coh"] + sum["inl"] + sum["simc"] + sum["cache"] + sum["simrest"]
            printf "%d %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", refs, sum["decode"] / refs,
                   sum["replay"] / refs, sim / refs, sum["coh"] / refs, sum["inl"] / refs, sum["simc"] / refs,
                   sum["cache"] / refs, sum["simrest"] / refs, sum["other"] / refs, total / refs }'
}

echo "| recording (4 threads) | mode | references | decode | replay | simulation | coherence.c | sim_internal.h | sim.c | cache.c | rest of src/sim | other | total |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
cases | while read -r name src flag args; do
    "$BUILD/bin/memspy-cc" -O2 "$flag" -o "$WORK/$name" "$ROOT/$src"
    (cd "$WORK" && "$BUILD/bin/memspy" run --no-report --record "rec.$name" -- "./$name" $args >/dev/null 2>&1)
    for mode in interleaved piped; do
        set -- $(stages "$BUILD" new "$name" "$mode")
        if [ -n "${BASE:-}" ]; then
            b=$(stages "$(cd "$BASE" && pwd)" base "$name" "$mode")
            a="$*"
            set -- $(echo "$b $a" | awk '{ printf "%s", $1; for (i = 2; i <= 11; i++) printf " %s->%s", $i, $(i + 11); print "" }')
            same_json "$WORK/$name.$mode.base.json" "$WORK/$name.$mode.new.json" "$name $mode"
        fi
        echo "| $name | $mode | $1 | $2 | $3 | $4 | $5 | $6 | $7 | $8 | $9 | ${10} | ${11} |"
    done
done
