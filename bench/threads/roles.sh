#!/bin/sh
# Where `memspy resim` of a threaded recording spends its instructions, by memspy's threads:
# 4-thread recordings of examples/counters (packed), examples/nbf and examples/ptri (the sizes
# of bench/threads/decode.sh) replayed in each order, in instructions per simulated reference
# (Callgrind's Ir, exact on a loaded machine), each role inclusive of what it calls:
#   reader   ahead_reader: the decode-ahead threads' zstd decompression and chunk copy
#   parser   ahead_parser: their chunk checks and event decoding
#   replay   ms_replay_run on the replay's own thread: schedule, sync events, the hand-over to
#            the simulator (and the pre-scan's share on that thread)
#   scan     scan_stream: the pre-scan (the sync index's check, or a scan without one)
#   worker   worker_main: the simulation (its spin-waits count: Callgrind runs the threads one
#            at a time, so the worker's column moves from run to run)
#   total    every thread of memspy, the analysis and output included
# With BASE=DIR (another build) each cell is "base -> this build"; each build replays a
# recording it made itself (a build need not read a newer stream version), so the two differ
# in the events only where the program's schedule does (ptri's spin-waits, counters' and nbf's
# OpenMP scheduling: the reference counts are shown for both).
# usage: [BASE=BUILD_DIR] [MODES="interleaved piped"] [CASES="nbf ..."] sh bench/threads/roles.sh [BUILD_DIR]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init throles "${1:-}"
MODES=${MODES:-interleaved piped}
CASES=${CASES:-}
export OMP_NUM_THREADS=4
export MEMSPY_DB="$WORK/memspy.db"

. "$ROOT/bench/threads/small_cases.sh"
cases() { small_cases; }

# roles BUILD TAG NAME MODE: "refs reader parser replay scan worker total" per reference
roles() {
    valgrind --tool=callgrind --callgrind-out-file="$WORK/clg" \
        "$1/bin/memspy" resim --no-report --interleave "$4" --json "$WORK/$3.$4.$2.json" \
        "$WORK/rec.$3.$2" >/dev/null 2>&1
    refs=$(jq '.totals.reads + .totals.writes' "$WORK/$3.$4.$2.json")
    callgrind_annotate --inclusive=yes --threshold=100 "$WORK/clg" 2>/dev/null | awk -v refs="$refs" '
        function n() { v = $1; gsub(",", "", v); return v }
        /PROGRAM TOTALS/ { tot = n() }
        / [^ ]*:ahead_reader / { rd = n() }
        / [^ ]*:ahead_parser / { pa = n() }
        / [^ ]*:ms_replay_run / { rp = n() }
        / [^ ]*:scan_stream / { sc = n() }
        / [^ ]*:worker_main / { wk = n() }
        END { printf "%d %.1f %.1f %.1f %.1f %.1f %.1f\n", refs, rd / refs, pa / refs, rp / refs, sc / refs,
                     wk / refs, tot / refs }'
}

echo "| recording (4 threads) | mode | references | reader | parser | **replay** | scan | worker | total |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
BASE=${BASE:+$(cd "$BASE" && pwd)}
cases | while read -r name src flag args; do
    [ -z "$CASES" ] || case " $CASES " in *" $name "*) ;; *) continue ;; esac
    for tag in new ${BASE:+base}; do
        b=$BUILD
        [ "$tag" = new ] || b=$BASE
        "$b/bin/memspy-cc" -O2 "$flag" -o "$WORK/$name.$tag" "$ROOT/$src"
        (cd "$WORK" && "$b/bin/memspy" run --no-report --record "rec.$name.$tag" -- "./$name.$tag" $args >/dev/null 2>&1)
    done
    for mode in $MODES; do
        set -- $(roles "$BUILD" new "$name" "$mode")
        if [ -n "$BASE" ]; then
            a="$*"
            b=$(roles "$BASE" base "$name" "$mode")
            set -- $(echo "$b $a" | awk '{ for (i = 1; i <= 7; i++) printf "%s->%s ", $i, $(i + 7); print "" }')
        fi
        echo "| $name | $mode | $1 | $2 | $3 | **$4** | $5 | $6 | $7 |"
    done
done
