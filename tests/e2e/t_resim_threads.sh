#!/bin/sh
# Record once, simulate many, for a multithreaded program (examples/counters, 4 OpenMP
# threads): resim under the recorded options equals the run; resim in the other interleaving,
# with fewer processors or with a page coherence unit equals a fresh run with those options;
# the recorded interleave is the default, and a recording made without --interleave replays
# in the default order (timed, for more than one thread); a damaged thread's stream is reported with its
# thread and offset while the other threads are still replayed (result incomplete, exit 2).
# gcc only: with clang the program runs on libomp, which parses the environment into
# stack buffers and per-thread malloc arenas whose places depend on the environment's contents
# and on which thread allocates first, so two recordings differ in a few hundred accesses
# (docs/design-threads.md, limits).
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
need_openmp
export OMP_NUM_THREADS=4
cc_build counters "$SRC_DIR/examples/counters/counters.c" -fopenmp

same() {
    if [ "$(jq -S 'del(.run)' "$2")" = "$(jq -S 'del(.run)' "$3")" ]; then echo "ok   - $1"
    else
        echo "FAIL - $1"; FAILS=$((FAILS + 1))
        jq -S 'del(.run)' "$2" >same.a; jq -S 'del(.run)' "$3" >same.b
        diff same.a same.b | head -40
    fi
}

run_memspy rec.json --preset memspy92 --interleave piped --record rec -- ./counters packed 20000 2
expect "one stream per thread" "$(ls rec | grep -c '^thread-[0-9]*\.zst$')" 4
check "meta.json keeps the interleave" rec/meta.json '.interleave == "piped" and .version == 6'
"$MEMSPY" resim --json same.json -o same.txt rec
same "resim with the recorded options (piped by default) equals the run" rec.json same.json

run_memspy il.json --preset memspy92 --interleave interleaved -- ./counters packed 20000 2
"$MEMSPY" resim --interleave interleaved --json ril.json -o ril.txt rec
same "resim --interleave interleaved equals a fresh interleaved run" il.json ril.json
check "interleaved and piped really differ (more invalidations interleaved)" il.json \
  ".totals.inval.received > $(value rec.json .totals.inval.received)"

run_memspy p2.json --preset memspy92 --procs 2 --interleave interleaved -- ./counters packed 20000 2
"$MEMSPY" resim --procs 2 --interleave interleaved --json rp2.json -o rp2.txt rec
same "resim --procs 2 equals a fresh run on 2 processors" p2.json rp2.json
check "2 processors for 4 threads" rp2.json '.nprocs == 2 and ([.threads[].threads | length] == [2, 2])'

run_memspy pg.json --preset memspy92 --coherence-unit 4K -- ./counters padded 20000 2
run_memspy recpad.json --preset memspy92 --record recpad -- ./counters padded 20000 2
"$MEMSPY" resim --coherence-unit 4K --json rpg.json -o rpg.txt recpad
same "resim --coherence-unit 4K equals a fresh run with page coherence" pg.json rpg.json
check "no --interleave: meta.json records no order, the run and its resim are timed" recpad/meta.json \
  'has("interleave") | not'
check "... timed, with the waiting-time analysis" rpg.json '.interleave == "timed" and (.waiting.profile | length) == 4'
"$MEMSPY" resim --json rdef.json -o rdef.txt recpad
same "resim of a recording made in the default order equals the run" recpad.json rdef.json
# timed simulates in one partition: --sim-threads is not used, and the run says so
"$MEMSPY" resim --sim-threads 2 --json rst.json -o rst.txt recpad
check "--sim-threads 2 in the timed order: the run's note says it was not used" rst.json \
  '[.run.notes[] | select(test("timed order simulates in one partition.*--sim-threads 2 was not used"))] | length == 1'
same "... and the statistics are those of one partition" rdef.json rst.json
"$MEMSPY" resim --procs 2 --json rp2t.json -o rp2t.txt recpad
check "timed, 4 threads on 2 processors: a note says they share them" rp2t.json \
  '.interleave == "timed" and .nprocs == 2 and ([.run.notes[] | select(test("4 threads on 2 processors"))] | length == 1)'

# a damaged stream: thread 2's cut in half
cp -r rec cut
size=$(stat -c %s rec/thread-2.zst)
head -c $((size / 2)) rec/thread-2.zst >cut/thread-2.zst
set +e
"$MEMSPY" resim --json cut.json -o cut.txt cut 2>cut.err; st=$?
set -e
expect "a damaged stream exits 2" "$st" 2
if grep -q "thread 2: .* of cut/thread-2.zst" cut.err; then echo "ok   - the error names thread 2 and its file"
else echo "FAIL - damaged-stream message"; cat cut.err; FAILS=$((FAILS + 1)); fi
check "the result is stored, marked incomplete, the other threads replayed" cut.json \
  '.run.incomplete and (.run.incomplete_reason | test("thread 2")) and .nprocs == 4 and
   all(.threads[] | select(.threads != [2]); .references > 0)'

# the same damage in the default (timed) order: thread 2 never reaches the barriers after the
# cut, so the others' waits there are let through (never a hang) and the run says so
cp -r recpad cutt
size=$(stat -c %s recpad/thread-2.zst)
head -c $((size / 2)) recpad/thread-2.zst >cutt/thread-2.zst
set +e
timeout 120 "$MEMSPY" resim --json cutt.json -o cutt.txt cutt 2>cutt.err; st=$?
set -e
expect "timed, a damaged stream: the replay ends and exits 2" "$st" 2
check "timed, a damaged stream: incomplete, the unmatched waits let through and noted" cutt.json \
  '.interleave == "timed" and .run.incomplete and
   ([.run.notes[] | select(test("waits could not be satisfied"))] | length == 1)'
finish
