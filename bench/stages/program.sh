#!/bin/sh
# The program thread's side of `memspy run` (no recording): instructions per data reference
# by stage (Cachegrind's Ir with --cache-sim=no, the simulation kept in the program's thread
# with MEMSPY_SIM_THREAD=0, so that every stage is counted), then whole runs against
# Cachegrind in CPU time (user + system, the simulator thread included, median of RUNS), for
# one or two builds side by side (BASE: a build, or a copy of one's bin/ and lib/, to compare
# with). Stages, by the source file of each function (cg_annotate):
#   capture      the drain of the plugin's buffer and the hooks (src/rt/plugin.c, hooks.c,
#                shadowstack.c, atomics.c; ms_record's common case, inlined from rt.h, counts
#                where it is inlined: the drain; since the drain composes its records straight
#                into the simulator's chunk, its loop direct_sites and all it inlines count here:
#                read "capture + attribution" to compare with earlier builds)
#   attribution  events -> contexts, the flush (src/rt/events.c, bins.c, shadow.c and what
#                rt.h and sim/window.h inline into the flush and its loop map_window: the hit
#                window's front, filter.c; ms_compose_slow)
#   simulation   src/sim and the hand-over (src/rt/pipeline.c)
#   encode       the stream (record.c, zstd, crc32): none without --record
# usage: sh bench/stages/program.sh [BUILD_DIR] [RUNS] [BASE_DIR]   -> markdown on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
. "$ROOT/bench/stages/cases.sh"
bench_init program "${1:-}"
RUNS=${2:-5}
BASE=${3:-}
[ -z "$BASE" ] || BASE=$(cd "$BASE" && pwd)
CG="valgrind --tool=cachegrind"

builds() { [ -z "$BASE" ] || echo "before $BASE"; echo "after $BUILD"; }

# stage_sums FILE: "stage instructions" lines (cg_annotate's per-function table).
stage_sums() {
    cg_annotate "$1" 2>/dev/null | awk '
        /file:function/ { table = 1; next }
        table && /^-+$/ { next }
        table && NF == 0 { table = 0; next }
        table && /^ *[0-9,]+ / {
            n = $1; gsub(",", "", n); fn = $NF
            if (fn ~ /src\/rt\/(hooks|shadowstack|atomics|plugin)\.c|:(parse|plain_sites|direct_sites|emit)/) s = "capture"
            else if (fn ~ /src\/rt\/(shadow|events|bins|filter)\.c|src\/rt\/rt\.h:ms_events_|window\.h:ms_events_|:map_window|:ms_compose_/) s = "attribution"
            else if (fn ~ /src\/sim\/|src\/rt\/pipeline\.c/) s = "simulation"
            else if (fn ~ /src\/rt\/record\.c|:ms_rec_|crc32|ZSTD|HUF_|FSE_/) s = "encode"
            else if (fn ~ /bench\/kernels\//) s = "program"
            else s = "other"
            sum[s] += n
        }
        END { for (s in sum) printf "%s %.0f\n", s, sum[s] }'
}
get() { awk -v s="$1" '$1 == s { v = $2 } END { printf "%.0f\n", v }'; }
per() { awk -v r="$1" -v n="$2" 'BEGIN { printf "%.1f", n / r }'; }
cputime() {
    /usr/bin/time -f "%U %S" -o "$WORK/time" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    awk '{ printf "%.4f\n", $1 + $2 }' "$WORK/time"
}

cases | while read -r name src args; do
    gcc -O2 -g -o "$WORK/$name.native" "$ROOT/$src"
    builds | while read -r tag dir; do "$dir/bin/memspy-cc" -O2 -o "$WORK/$name.$tag" "$ROOT/$src"; done
done

echo "Instructions per data reference in the program's thread of \`memspy run\` (MEMSPY_SIM_THREAD=0, no recording):"
echo
echo "| kernel | build | references | program | capture | attribution | capture + attribution | simulation | encode | other |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
cases | while read -r name src args; do
    builds | while read -r tag dir; do
        rm -f "$WORK"/cg.*
        (cd "$WORK" && cp "$name.$tag" "$name.memspy" && MEMSPY_SIM_THREAD=0 $CG --cache-sim=no --trace-children=yes \
            --trace-children-skip='*llvm*,*git*,*objdump*' --cachegrind-out-file="$WORK/cg.%p" \
            "$dir/bin/memspy" run --db "$WORK/db" --no-report --json "$name.json" -- "./$name.memspy" $args >/dev/null 2>&1)
        refs=$(awk -F'"refs": ' 'NF > 1 { split($2, a, ","); print a[1]; exit }' "$WORK/$name.json")
        f=$(grep -l "^cmd: ./$name.memspy" "$WORK"/cg.*)
        stage_sums "$f" >"$WORK/sums"
        c=$(get capture <"$WORK/sums"); a=$(get attribution <"$WORK/sums")
        echo "| $name | $tag | $refs | $(per "$refs" "$(get program <"$WORK/sums")") | $(per "$refs" "$c") |" \
             "$(per "$refs" "$a") | $(per "$refs" $((c + a))) | $(per "$refs" "$(get simulation <"$WORK/sums")") |" \
             "$(per "$refs" "$(get encode <"$WORK/sums")") | $(per "$refs" "$(get other <"$WORK/sums")") |"
    done
done

echo
echo "\`memspy run\` (default: x86 preset, every statistic, the simulator thread) against Cachegrind --cache-sim=yes on the native binary, CPU seconds, median of $RUNS, all in one pass:"
echo
echo "| kernel | native | Cachegrind | $(builds | awk '{ printf "memspy run %s | / Cachegrind %s | ", $1, $1 }' | sed 's/ | $//') |"
echo "|---|---:|---:|$(builds | awk '{ printf "---:|---:|" }')"
cases | while read -r name src args; do
    : >"$WORK/n"; : >"$WORK/c"; : >"$WORK/m.before"; : >"$WORK/m.after"
    i=0
    while [ $i -lt "$RUNS" ]; do
        (cd "$WORK" && cputime "./$name.native" $args) >>"$WORK/n"
        (cd "$WORK" && cputime $CG --cache-sim=yes --cachegrind-out-file=/dev/null "./$name.native" $args) >>"$WORK/c"
        builds | while read -r tag dir; do
            (cd "$WORK" && cputime "$dir/bin/memspy" run --db "$WORK/db" --no-report -- "./$name.$tag" $args) >>"$WORK/m.$tag"
        done
        i=$((i + 1))
    done
    n=$(median <"$WORK/n"); c=$(median <"$WORK/c")
    row="| $name | $n | $c |"
    for tag in $(builds | awk '{ print $1 }'); do
        m=$(median <"$WORK/m.$tag")
        row="$row $(awk -v m="$m" -v c="$c" 'BEGIN { printf "%.2f | %.2f |", m, m / c }')"
    done
    echo "$row"
done
