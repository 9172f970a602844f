#!/bin/sh
# Where `memspy resim` of a threaded recording spends its instructions, stream decoding split
# out: 4-thread recordings of examples/counters (packed), examples/nbf and examples/ptri
# replayed in each order, in instructions per simulated reference (Callgrind's Ir, every thread
# counted: exact on a loaded machine; Callgrind rather than Cachegrind because it names the
# shared object of functions without symbols, so libzstd, zlib's CRC and the symbolizer's
# zlib inflate of compressed debug sections are told apart). Stages, by each function's own
# instructions:
#   zstd       libzstd (decompression)
#   crc        zlib's crc32 (the chunks' checksums)
#   parse      src/replay/stream_reader.c and src/format/stream.h (chunks, varints, events)
#   copy       memcpy/memmove (mostly the decoder's chunk copies)
#   replay     src/replay (scheduling, sync semantics), the drive's sinks, the waiting-time
#              collector (timed order)
#   sim        src/sim
#   other      reading the raw profile, analysis (symbolization, bins), storing, start-up
#   pre-scan   of decode (zstd + crc + parse + copy): the replay's scan of every stream for
#              CREATE, ATOMIC and WORK events before it starts (scan_stream, inclusive; in
#              builds before 27 Nov 2026 ms_stream_reader_next called from ms_replay_run)
# With BASE=DIR (another build) each cell is "base -> this build", and the `memspy resim`
# JSON of both builds is compared (the run's time and wall seconds blanked).
# usage: [BASE=BUILD_DIR] [MODES="interleaved piped timed"] [CASES="nbf ..."] sh bench/threads/decode.sh [BUILD_DIR]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init thrdecode "${1:-}"
MODES=${MODES:-interleaved piped timed}
CASES=${CASES:-}
export OMP_NUM_THREADS=4
export MEMSPY_DB="$WORK/memspy.db"

. "$ROOT/bench/threads/small_cases.sh"
cases() { small_cases; }

# stages BUILD TAG NAME MODE: "refs decode zstd crc parse copy prescan replay sim other total"
# per reference; the JSON goes to WORK/NAME.MODE.TAG.json
stages() {
    valgrind --tool=callgrind --callgrind-out-file="$WORK/clg" \
        "$1/bin/memspy" resim --no-report --interleave "$4" --json "$WORK/$3.$4.$2.json" \
        "$WORK/rec.$3" >/dev/null 2>&1
    refs=$(jq '.totals.reads + .totals.writes' "$WORK/$3.$4.$2.json")
    # the pre-scan: scan_stream inclusive (since 27 Nov 2026: one call per stream, on the
    # pre-scan's threads), else (older builds) ms_stream_reader_next as called from ms_replay_run
    pre=$(callgrind_annotate --inclusive=yes "$WORK/clg" 2>/dev/null |
        awk '/^ *[0-9,]+ .*replay\.c:scan_stream( |$)/ { n = $1; gsub(",", "", n); print n; exit }')
    [ -n "$pre" ] || pre=$(callgrind_annotate --inclusive=yes --tree=caller "$WORK/clg" 2>/dev/null | awk '
        /^ *[0-9,]+ .*< .*replay\.c:ms_replay_run( |$)/ { n = $1; gsub(",", "", n); cand = n; next }
        /^ *[0-9,]+ .*\* .*stream_reader\.c:ms_stream_reader_next( |$)/ { print cand + 0; found = 1; exit }
        NF == 0 { cand = 0 }
        END { if (!found) print 0 }')
    callgrind_annotate "$WORK/clg" 2>/dev/null | awk -v refs="$refs" -v pre="$pre" '
        /file:function/ { table = 1; next }
        table && /^-+$/ { next }
        table && NF == 0 { table = 0; next }
        table && /^ *[0-9,]+ / {
            n = $1; gsub(",", "", n)
            if ($0 ~ /libzstd/) s = "zstd"
            else if ($0 ~ /crc32/) s = "crc"
            else if ($0 ~ /stream_reader\.c|format\/stream\.h/) s = "parse"
            else if ($0 ~ /memcpy|memmove/) s = "copy"
            else if ($0 ~ /src\/replay\/|replay_sim\.c|waiting_collect\.c/) s = "replay"
            else if ($0 ~ /src\/sim\//) s = "sim"
            else s = "other"
            sum[s] += n; total += n
        }
        END {
            dec = sum["zstd"] + sum["crc"] + sum["parse"] + sum["copy"]
            printf "%d %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", refs, dec / refs,
                   sum["zstd"] / refs, sum["crc"] / refs, sum["parse"] / refs, sum["copy"] / refs,
                   pre / refs, sum["replay"] / refs, sum["sim"] / refs, sum["other"] / refs, total / refs }'
}

echo "| recording (4 threads) | mode | references | **decode** | zstd | crc | parse | copy | of which pre-scan | replay | simulation | other | total |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
cases | while read -r name src flag args; do
    [ -z "$CASES" ] || case " $CASES " in *" $name "*) ;; *) continue ;; esac
    "$BUILD/bin/memspy-cc" -O2 "$flag" -o "$WORK/$name" "$ROOT/$src"
    (cd "$WORK" && "$BUILD/bin/memspy" run --no-report --record "rec.$name" -- "./$name" $args >/dev/null 2>&1)
    for mode in $MODES; do
        set -- $(stages "$BUILD" new "$name" "$mode")
        if [ -n "${BASE:-}" ]; then
            b=$(stages "$(cd "$BASE" && pwd)" base "$name" "$mode")
            a="$*"
            set -- $(echo "$b $a" | awk '{ printf "%s", $1; for (i = 2; i <= 11; i++) printf " %s->%s", $i, $(i + 11); print "" }')
            same_json "$WORK/$name.$mode.base.json" "$WORK/$name.$mode.new.json" "$name $mode"
        fi
        echo "| $name | $mode | $1 | **$2** | $3 | $4 | $5 | $6 | $7 | $8 | $9 | ${10} | ${11} |"
    done
done
