#!/bin/sh
# Where memspy's work goes, per stage, in instructions per data reference (Cachegrind's Ir,
# which does not move with the load of a shared machine), and the simulator's speed against
# Cachegrind's in CPU time, on the bench kernels.
#
# Stages, by the source file of each function (cg_annotate):
#   memspy run (the program under memspy, the runtime recording its stream too):
#     program      the kernel's own code
#     capture      the instrumentation hooks (__tsan_*, inlined from src/rt/rt.h) and the
#                  shadow call stack (src/rt/hooks.c, shadowstack.c, atomics.c; the plugin's drain, src/rt/plugin.c)
#     attribution  address -> data bin, events -> contexts (src/rt/shadow.c, events.c, bins.c,
#                  the flush in rt.h)
#     simulation   src/sim and the runtime's window and hand-over (src/rt/filter.c, pipeline.c)
#     encode       the stream: src/rt/record.c, ms_rec_*, zstd and crc32 (functions without
#                  symbols, ???, are counted here: zstd's, and a few of other libraries)
#     other        the rest (the CLI, analysis, storing, libc, start-up)
#   memspy resim (the recording replayed, simulated and analysed again):
#     decode       src/replay/stream_reader.c (and the varint helpers it inlines), zstd, crc32,
#                  memcpy
#     replay       src/replay/replay*.c and the drive's sink (src/drive/replay_sim.c)
#     simulation   src/sim
#     other        the rest
# Then simbench (bench/stages/simbench.c) times decoding and simulating the recording apart
# (CPU time, median of RUNS), and Cachegrind runs the native kernel with its cache
# simulation on and off: its ns per data reference, whole and for the simulation alone.
# Last, whole `memspy run`s against Cachegrind runs, in CPU time.
# usage: sh bench/stages/run.sh [BUILD_DIR] [RUNS]   -> markdown tables on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
. "$ROOT/bench/stages/cases.sh"
bench_init stages "${1:-}"
RUNS=${2:-5}
LIB="$BUILD/lib/memspy"
gcc -O2 -g -I "$ROOT/src" -o "$WORK/simbench" "$ROOT/bench/stages/simbench.c" \
    "$LIB/libmemspy_replay.a" "$LIB/libmemspy_sim.a" "$LIB/libmemspy_util.a" -lzstd -lz

# stage_sums FILE...: "stage instructions" lines from cg_annotate's per-function table.
stage_sums() {
    for f in "$@"; do cg_annotate "$f" 2>/dev/null; done | awk '
        /file:function/ { table = 1; next }
        table && /^-+$/ { next }
        table && NF == 0 { table = 0; next }
        table && /^ *[0-9,]+ / {
            n = $1; gsub(",", "", n); fn = $NF
            if (fn ~ /:__tsan_|:__sanitizer_|src\/rt\/(hooks|shadowstack|atomics|plugin)\.c/) s = "capture"
            else if (fn ~ /src\/rt\/(shadow|events|bins)\.c|src\/rt\/rt\.h:ms_events_/) s = "attribution"
            else if (fn ~ /src\/sim\/|src\/rt\/(filter|pipeline)\.c/) s = "simulation"
            else if (fn ~ /src\/rt\/record\.c|:ms_rec_/) s = "encode"
            else if (fn ~ /stream_reader\.c|src\/replay\/\.\.\/format\/stream\.h/) s = "decode"
            else if (fn ~ /src\/replay\/|replay_sim\.c/) s = "replay"
            else if (fn ~ /bench\/kernels\//) s = "program"
            else if (fn ~ /crc32|adler32|ZSTD|HUF_|FSE_|\?\?\?:\?\?\?/) s = "zstd/crc"
            else if (fn ~ /memmove|memcpy/) s = "memcpy"
            else s = "other"
            sum[s] += n; total += n
        }
        END { for (s in sum) printf "%s %.0f\n", s, sum[s]; printf "total %.0f\n", total }'
}

# get STAGE < sums: the stage's instructions (0 if absent).
get() { awk -v s="$1" '$1 == s { v = $2 } END { printf "%.0f\n", v }'; }

# per REFS N: instructions per reference.
per() { awk -v r="$1" -v n="$2" 'BEGIN { printf "%.1f", n / r }'; }

CG="valgrind --tool=cachegrind"
echo "Instructions per data reference (Cachegrind Ir), memspy run -> capture and simulation stages:"
echo
echo "| kernel | references | program | capture | attribution | simulation | encode (zstd, crc) | other |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
cases | while read -r name src args; do
    gcc -O2 -g -o "$WORK/$name.native" "$ROOT/$src"
    "$BUILD/bin/memspy-cc" -O2 -o "$WORK/$name.memspy" "$ROOT/$src"
    (cd "$WORK" && rm -rf "rec.$name" && MEMSPY_SIM_THREAD=0 $CG --cache-sim=no --trace-children=yes \
        --cachegrind-out-file="$WORK/run.$name.%p" "$BUILD/bin/memspy" run --db "$WORK/db" --no-report \
        --record "rec.$name" --json "$name.json" -- "./$name.memspy" $args >/dev/null 2>&1)
    refs=$(awk -F'"refs": ' 'NF > 1 { split($2, a, ","); print a[1]; exit }' "$WORK/$name.json")
    echo "$refs" >"$WORK/refs.$name"
    stage_sums "$WORK"/run.$name.* >"$WORK/sums"
    enc=$(( $(get encode <"$WORK/sums") + $(get zstd/crc <"$WORK/sums") ))
    other=$(( $(get other <"$WORK/sums") + $(get memcpy <"$WORK/sums") + $(get decode <"$WORK/sums") + $(get replay <"$WORK/sums") ))
    echo "| $name | $refs | $(per "$refs" "$(get program <"$WORK/sums")") | $(per "$refs" "$(get capture <"$WORK/sums")") |" \
         "$(per "$refs" "$(get attribution <"$WORK/sums")") | $(per "$refs" "$(get simulation <"$WORK/sums")") |" \
         "$(per "$refs" "$enc") | $(per "$refs" "$other") |"
done

echo
echo "memspy resim of the recording -> decode, replay and simulation stages:"
echo
echo "| kernel | decode (reader) | zstd, crc | memcpy | replay | simulation | other | total |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
cases | while read -r name src args; do
    refs=$(cat "$WORK/refs.$name")
    (cd "$WORK" && $CG --cache-sim=no --cachegrind-out-file="$WORK/resim.$name" "$BUILD/bin/memspy" resim \
        --db "$WORK/db" --no-report "rec.$name" >/dev/null 2>&1)
    stage_sums "$WORK/resim.$name" >"$WORK/sums"
    echo "| $name | $(per "$refs" "$(get decode <"$WORK/sums")") | $(per "$refs" "$(get zstd/crc <"$WORK/sums")") |" \
         "$(per "$refs" "$(get memcpy <"$WORK/sums")") | $(per "$refs" "$(get replay <"$WORK/sums")") |" \
         "$(per "$refs" "$(get simulation <"$WORK/sums")") | $(per "$refs" "$(get other <"$WORK/sums")") |" \
         "$(per "$refs" "$(get total <"$WORK/sums")") |"
done

echo
echo "Simulator against Cachegrind, ns per data reference (CPU time, median of $RUNS):"
echo
echo "| kernel | memspy decode | memspy simulation | Cachegrind whole run | Cachegrind simulation (cache-sim on - off) | simulation / Cachegrind's whole | simulation / Cachegrind's simulation |"
echo "|---|---:|---:|---:|---:|---:|---:|"
cputime() {   # cputime CMD...: user + system seconds of one run
    /usr/bin/time -f "%U %S" -o "$WORK/time" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    awk '{ printf "%.4f\n", $1 + $2 }' "$WORK/time"
}
cases | while read -r name src args; do
    : >"$WORK/d"; : >"$WORK/s"; : >"$WORK/cy"; : >"$WORK/cn"
    i=0
    while [ $i -lt "$RUNS" ]; do
        "$WORK/simbench" "$WORK/rec.$name" >"$WORK/sb"
        awk '{ print $4 }' "$WORK/sb" >>"$WORK/d"
        awk '{ print $6 }' "$WORK/sb" >>"$WORK/s"
        (cd "$WORK" && cputime $CG --cache-sim=yes --D1=32768,8,64 --LL=8388608,16,64 \
            --cachegrind-out-file=/dev/null "./$name.native" $args) >>"$WORK/cy"
        (cd "$WORK" && cputime $CG --cache-sim=no --cachegrind-out-file=/dev/null "./$name.native" $args) >>"$WORK/cn"
        i=$((i + 1))
    done
    drefs=$(cd "$WORK" && $CG --cache-sim=yes --cachegrind-out-file=/dev/null "./$name.native" $args 2>&1 >/dev/null |
            awk '/D +refs:/ { gsub(",", "", $4); print $4 }')
    d=$(median <"$WORK/d"); s=$(median <"$WORK/s"); cy=$(median <"$WORK/cy"); cn=$(median <"$WORK/cn")
    awk -v name="$name" -v d="$d" -v s="$s" -v cy="$cy" -v cn="$cn" -v r="$drefs" 'BEGIN {
        w = 1e9 * cy / r; sim = 1e9 * (cy - cn) / r
        printf "| %s | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f |\n", name, d, s, w, sim, s / w, s / sim }'
done

echo
echo "memspy run (default x86 preset, every statistic, no recording) against Cachegrind, CPU seconds (user + system, the simulator thread included), median of $RUNS:"
echo
echo "| kernel | native | memspy run | Cachegrind | memspy run / Cachegrind |"
echo "|---|---:|---:|---:|---:|"
cases | while read -r name src args; do
    : >"$WORK/n"; : >"$WORK/m"; : >"$WORK/c"
    i=0
    while [ $i -lt "$RUNS" ]; do
        (cd "$WORK" && cputime "./$name.native" $args) >>"$WORK/n"
        (cd "$WORK" && cputime "$BUILD/bin/memspy" run --db "$WORK/db" --no-report -- "./$name.memspy" $args) >>"$WORK/m"
        (cd "$WORK" && cputime $CG --cache-sim=yes --cachegrind-out-file=/dev/null "./$name.native" $args) >>"$WORK/c"
        i=$((i + 1))
    done
    n=$(median <"$WORK/n"); m=$(median <"$WORK/m"); c=$(median <"$WORK/c")
    awk -v name="$name" -v n="$n" -v m="$m" -v c="$c" 'BEGIN {
        printf "| %s | %.3f | %.2f | %.2f | %.2f |\n", name, n, m, c, m / c }'
done
