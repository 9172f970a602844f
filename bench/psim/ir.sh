#!/bin/sh
# Instructions per reference of `memspy resim --sim-threads 1` by stage (Cachegrind's Ir, exact
# on a loaded machine; every thread counted), and by the thread that does the stage with the
# decoding done ahead (the default where the process may use more than one CPU):
#   decompress  zstd (functions without symbols, ???) and memcpy      decoder's reader thread
#   crc         crc32                                                  parser threads
#   parse       src/replay/stream_reader.c but ms_stream_reader_next,  parser threads
#               src/format/stream.h
#   hand-off    ms_stream_reader_next (in order; each chunk's base)    replay thread
#               (where decode_chunk is not a function of its own, an older memspy decoding on
#               the replay's thread: parse)
#   replay      src/replay/replay*.c                                   replay thread
#   route       src/drive/replay_sim.c, psim.c/h but ms_psim_apply     replay thread (producer)
#   filter      ms_psim_apply (a worker's pass over each batch)        simulation workers
#   simulate    src/sim but psim.c                                     simulation workers
#   other       the rest (reading profile.raw, analysis, storing)
# usage: bench/psim/ir.sh MEMSPY RECORDING_DIR [OUT_PREFIX]
set -eu
M=$1; R=$2; O=${3:-/tmp/memspy-psim-ir}
valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$O.cg" "$M" resim --sim-threads 1 \
    --json "$O.json" -o /dev/null "$R" >/dev/null 2>"$O.log"
refs=$(jq '.totals.reads + .totals.writes' "$O.json")
cg_annotate "$O.cg" | awk -v refs="$refs" '
    /^-- Auto-annotated/ { exit }
    /^ *[0-9,]+ \( *[0-9.]+%\)  / {
        ir = $1; gsub(",", "", ir); f = $NF
        if ($0 ~ /PROGRAM TOTALS/) next
        s = "other"
        if (f ~ /^\?\?\?:crc32/) s = "crc"
        else if (f ~ /^\?\?\?:\?\?\?/ || f ~ /memmove|memcpy/) s = "decompress"
        else if (f ~ /stream_reader\.c:ms_stream_reader_next$/) s = "next"
        else if (f ~ /stream_reader\.c:|format\/stream\.h:/) s = "parse"
        else if (f ~ /src\/replay\/replay/) s = "replay"
        else if (f ~ /psim\.c:ms_psim_apply/) s = "filter"
        else if (f ~ /replay_sim\.c:|psim\.[ch]:|:sink_access/) s = "route"
        else if (f ~ /src\/sim\//) s = "simulate"
        sum[s] += ir; total += ir
        if (f ~ /stream_reader\.c:decode_chunk/) apart = 1
    }
    END {
        # ms_stream_reader_next: the hand-off where decode_chunk is a function of its own (the
        # parsers call it), else (an older memspy) the whole decoding inlined
        sum[apart ? "hand-off" : "parse"] += sum["next"]
        printf "%d references, %.0f Ir in all (%.1f per reference)\n", refs, total, total / refs
        n = split("decompress crc parse hand-off replay route filter simulate other", order, " ")
        for (i = 1; i <= n; i++) printf "%-10s %7.1f Ir/ref\n", order[i], sum[order[i]] / refs
    }'
