#!/bin/sh
# `--sim-threads N` splits the replay's simulation by cache set (docs/simulator.md,
# "Partitioned simulation"): a recording re-simulated with 1, 2 and 4 simulator threads gives
# the same JSON except the capacity/conflict split, but for references straddling two lines of
# different partitions, which are counted once per line and noted (the 4-thread OpenMP
# program may have one); `memspy run` takes the option too; 0, negative, absurd and non-numeric
# values are refused with exit 2.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
need_openmp
export OMP_NUM_THREADS=4
cc_build counters "$SRC_DIR/examples/counters/counters.c" -fopenmp
cc_build blkmatmul "$SRC_DIR/examples/blkmatmul/blkmatmul.c"

# the JSON without run metadata and without the capacity/conflict split
rest() { jq -S 'del(.run) | walk(if type == "object" then del(.capacity, .conflict) else . end)' "$1"; }
same_rest() {
    if [ "$(rest "$2")" = "$(rest "$3")" ]; then echo "ok   - $1"
    else echo "FAIL - $1"; FAILS=$((FAILS + 1)); rest "$2" >a.j; rest "$3" >b.j; diff a.j b.j | head -20; fi
}

run_memspy one.json --preset x86 --record one -- ./blkmatmul 120 32
for n in 1 2 4 16; do
    "$MEMSPY" resim --sim-threads $n --json b$n.json -o b$n.txt one
done
check "the replay saw every reference" b4.json '.totals.refs > 2000000 and (.run.incomplete | not)'
same_rest "one thread: --sim-threads 2 equals --sim-threads 1 except capacity/conflict" b1.json b2.json
same_rest "one thread: --sim-threads 4 equals --sim-threads 1 except capacity/conflict" b1.json b4.json
same_rest "one thread: --sim-threads 16 (more workers than CPUs) equals --sim-threads 1 except capacity/conflict" \
  b1.json b16.json
check "one thread: capacity + conflict is the same in every level" b4.json \
  "$(jq -c '[.totals.levels[].causes | .capacity + .conflict]' b1.json) == [.totals.levels[].causes | .capacity + .conflict]"

run_memspy rec.json --preset x86 --record rec --sim-threads 2 -- ./counters packed 20000 2
for n in 1 2 4; do
    "$MEMSPY" resim --sim-threads $n --json t$n.json -o t$n.txt rec
done
check "the run saw the threads' references" t1.json '.totals.refs > 100000 and (.run.incomplete | not)'
# straddles (the OpenMP runtime may make one or none): counted once per line and noted
straddles=$(jq '[.run.notes[] | capture("^simulation: (?<n>[0-9]+) references straddling").n | tonumber] | add // 0' t4.json)
check "references straddling two partitions are counted once per line and noted" t4.json \
  "$(jq .totals.refs t1.json) + $straddles == .totals.refs"
check "capacity + conflict is the same in every level" t4.json \
  "$(jq -c '[.totals.levels[].causes | .capacity + .conflict]' t1.json) == [.totals.levels[].causes | .capacity + .conflict]"
same_rest "memspy run --sim-threads 2 equals resim --sim-threads 2" t2.json rec.json
check "threads: L1 misses are the same" t4.json "$(jq .totals.levels[0].misses t1.json) == .totals.levels[0].misses"
# the schedule of the decoding threads and of the workers changes nothing: the same JSON twice,
# interleaved and piped (runs of accesses handed over at once)
for m in interleaved piped; do
    for k in 1 2; do
        "$MEMSPY" resim --interleave $m --sim-threads 4 --json s$m$k.json -o s.txt rec
    done
    if [ "$(jq -S 'del(.run.time, .run.wall_seconds, .run.pid, .run.argv)' s${m}1.json)" = "$(jq -S 'del(.run.time, .run.wall_seconds, .run.pid, .run.argv)' s${m}2.json)" ]
    then echo "ok   - $m, 4 workers: the same JSON twice"
    else echo "FAIL - $m, 4 workers: the same JSON twice"; FAILS=$((FAILS + 1)); fi
done

for bad in 0 -1 257 many; do
    set +e
    "$MEMSPY" resim --sim-threads $bad --json bad.json rec 2>bad.err; st=$?
    set -e
    expect "resim --sim-threads $bad exits 2" "$st" 2
    if grep -q -- "--sim-threads: '$bad' is not a whole number in 1..256" bad.err; then
        echo "ok   - the error for $bad names the option and the range"
    else echo "FAIL - message for $bad"; cat bad.err; FAILS=$((FAILS + 1)); fi
done
set +e
"$MEMSPY" run --sim-threads 0 -- ./counters packed 10 1 >run.out 2>run.err; st=$?
set -e
expect "run --sim-threads 0 exits 2 before the program runs" "$st" 2
finish
