#!/bin/sh
# An atomic hand-over (tests/e2e/progs/handover.c): 4 threads pass a record on in turn through
# a turn variable, each waiting with a load-acquire spin and passing on with a store-release.
# Built twice, with the ThreadSanitizer hooks (MEMSPY_INSTRUMENT=tsan) and with memspy's compiler
# plugin (the default), whose ordered atomics call the same hooks (docs/plugin.md): both record
# acquire/release atomics as ordering edges (stream version 4), with the same diagnoses.
# Findings, in every interleaving: the record is migratory (> 95% of its communication
# misses), the replay follows the turns (1200 hand-overs, 1200 communication misses), the spins
# collapse to one load each so that the statistics are the same from run to run; in the timed order the spin is the main waiting source (kind
# "spin", at the spin's line in worker). stamp, which the threads write in turn and never read,
# is write-only sharing: migratory (1196 write misses; the first round's 3 are cold starts),
# not multiple-producer. The plugin gives the record the same patterns as the
# hooks in every order. handover.cc does the same with C++ std::atomic (plugin build).
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
MEMSPY_INSTRUMENT=tsan cc_build handover_tsan "$SRC_DIR/tests/e2e/progs/handover.c" -pthread
MEMSPY_INSTRUMENT=plugin cc_build handover_plugin "$SRC_DIR/tests/e2e/progs/handover.c" -pthread
SPIN_LINE=$(grep -n 'atomic_load_explicit(&turn' "$SRC_DIR/tests/e2e/progs/handover.c" | cut -d: -f1)

DEFS="$JQ_DEFS"'
def bin_patterns($n): dataid($n) as $i | .patterns[] | select(.data == $i or .data == $n);
'
for inst in tsan plugin; do
    for m in interleaved piped timed; do
        for run in 1 2; do
            run_memspy $inst-$m$run.json --interleave $m -- ./handover_$inst 4 300
            grep -q "threads=4 rounds=300 balance=3000 count=1200 last=3" $inst-$m$run.json.out ||
                { echo "FAIL - program output changed"; cat $inst-$m$run.json.out; exit 1; }
        done
        check "$inst $m: the record's 1200 hand-overs are communication misses" $inst-${m}1.json \
            "$DEFS"' bin_patterns("record") | .communication_misses == 1200'
        check "$inst $m: the record is migratory (> 95%)" $inst-${m}1.json \
            "$DEFS"' bin_patterns("record") | .patterns | max_by(.share) | .pattern == "migratory" and .share > 0.95'
        check "$inst $m: stamp (written in turn, never read) is migratory: 1196 of 1199, 3 cold starts" \
            $inst-${m}1.json "$DEFS"' bin_patterns("stamp") | .communication_misses == 1199 and
            ([.patterns[] | {key: .pattern, value: .misses}] | from_entries) as $p |
            $p.migratory == 1196 and $p["cold-start"] == 3'
        check "$inst $m: identical statistics in a second run" $inst-${m}2.json \
            "$(jq -c '[.totals, .patterns]' $inst-${m}1.json) as \$a | [.totals, .patterns] == \$a"
    done
    check "$inst: the three orders replay the same references (one load per spin)" $inst-interleaved1.json \
        "$(jq -c .totals $inst-piped1.json) as \$p | $(jq -c .totals $inst-timed1.json) as \$t |
         .totals.refs == \$p.refs and .totals.refs == \$t.refs"
    check "$inst timed: the spin in worker is the largest waiting source" $inst-timed1.json \
        ".waiting.sources | max_by(.cycles) | .kind == \"spin\" and .function == \"worker\" and .line == $SPIN_LINE and
         .instances > 100"
done
# C++ std::atomic (handover.cc; the plugin only): the same hand-over, and a seq_cst fetch_add
"$BUILD_DIR/bin/memspy-c++" $OPT -o handoverxx "$SRC_DIR/tests/e2e/progs/handover.cc" -pthread
SPIN_LINE_XX=$(grep -n 'turn.load(std::memory_order_acquire)' "$SRC_DIR/tests/e2e/progs/handover.cc" | cut -d: -f1)
for m in interleaved timed; do
    for run in 1 2; do
        run_memspy xx-$m$run.json --interleave $m -- ./handoverxx 4 300
        grep -q "threads=4 rounds=300 balance=3000 count=1200 last=3 handed=1200" xx-$m$run.json.out ||
            { echo "FAIL - program output changed"; cat xx-$m$run.json.out; exit 1; }
    done
    # clang splits the static record into one global per field: the first is balance's
    check "C++ $m: the record's balance is migratory, 1200 communication misses" xx-${m}1.json \
        "$DEFS"'[.data[] | select(.name == "record" or .name == "_ZL6record") | .name][0] as $r | bin_patterns($r) |
         .communication_misses == 1200 and (.patterns | max_by(.share) | .pattern == "migratory" and .share > 0.95)'
    check "C++ $m: turn read and written once per hand-over (the spins collapse)" xx-${m}1.json \
        "$DEFS"'datacells("turn") | sum(.reads) == 1200 and sum(.writes) == 1200'
    check "C++ $m: identical statistics in a second run" xx-${m}2.json \
        "$(jq -c '[.totals, .patterns]' xx-${m}1.json) as \$a | [.totals, .patterns] == \$a"
done
check "C++ timed: the spin in worker is the largest waiting source" xx-timed1.json \
    ".waiting.sources | max_by(.cycles) | .kind == \"spin\" and (.function | startswith(\"worker\")) and
     .line == $SPIN_LINE_XX and .instances > 100"
check "the plugin names itself" plugin-timed1.json '.run.notes | any(startswith("instrumentation: memspy"))'
for m in interleaved piped timed; do
    check "$m: the plugin and the ThreadSanitizer hooks give the record the same patterns" plugin-${m}1.json \
        "$DEFS"'bin_patterns("record") as $p | '"$(jq -c "$DEFS"'bin_patterns("record")' tsan-${m}1.json)"' as $t |
         $p.communication_misses == $t.communication_misses and
         ($p.patterns | map({pattern, share})) == ($t.patterns | map({pattern, share}))'
done
finish
