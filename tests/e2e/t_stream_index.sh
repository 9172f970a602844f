#!/bin/sh
# Each stream of a threaded recording ends in its sync index (docs/formats.md, "Sync index"),
# which the replay reads instead of scanning the stream a second time. The result does not
# depend on it: ptri (CREATEs, 4 x 10,000 ATOMIC releases and acquires) and prodcons (locks,
# condition variables) re-simulate to the same JSON in every order with the indexes, without
# them (the files cut back to their stream bytes: a recording made before the index) and with
# an index damaged (one byte changed: ignored, the stream scanned). Threads that start and end
# in waves while others flush (threads mode maps contexts without a global lock) record
# complete streams whose replay equals the run.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
cc_build ptri "$SRC_DIR/examples/ptri/ptri.c" -pthread
cc_build prodcons "$SRC_DIR/examples/prodcons/prodcons.c" -pthread

# index_bytes FILE: the size of FILE's index frame (from its last 8 bytes), 0 if none
index_bytes() {
    size=$(stat -c %s "$1")
    tail=$(tail -c 4 "$1")
    if [ "$tail" = MSIX ]; then od -An -t u4 -j $((size - 8)) -N 4 "$1" | tr -d ' '; else echo 0; fi
}

for prog in "ptri 4 10000 4 200" "prodcons 3 2000"; do
  name=${prog%% *}
  run_memspy $name.json --record rec.$name -- ./$prog
  n=0 indexed=0
  for f in rec.$name/thread-*.zst; do
    n=$((n + 1))
    [ "$(index_bytes "$f")" -gt 0 ] && indexed=$((indexed + 1))
  done
  expect "$name: every stream ends in a sync index" "$indexed of $n" "$n of $n"
  cp -r rec.$name plain.$name
  cp -r rec.$name damaged.$name
  for f in plain.$name/thread-*.zst; do
    truncate -s $(($(stat -c %s "$f") - $(index_bytes "$f"))) "$f"
  done
  left=0
  for f in plain.$name/thread-*.zst; do [ "$(index_bytes "$f")" = 0 ] || left=$((left + 1)); done
  expect "$name: cut back, no stream has an index" "$left" 0
  f=damaged.$name/thread-1.zst
  pos=$(($(stat -c %s "$f") - 20)) # inside the index's entries
  printf 'Z' | dd of="$f" bs=1 seek=$pos conv=notrunc 2>/dev/null
  for mode in interleaved piped timed; do
    for rec in rec plain damaged; do
      "$MEMSPY" resim --interleave $mode --json $rec.$mode.json -o /dev/null $rec.$name
      jq -S 'del(.run)' $rec.$mode.json >$rec.$mode.norm
    done
    if cmp -s rec.$mode.norm plain.$mode.norm && cmp -s rec.$mode.norm damaged.$mode.norm &&
       jq -e '.totals.refs > 50000' rec.$mode.json >/dev/null; then
      echo "ok   - $name $mode: the same result with the indexes, without them and with one damaged"
    else echo "FAIL - $name $mode: the index changes the result:"
      diff rec.$mode.norm plain.$mode.norm | head -10; diff rec.$mode.norm damaged.$mode.norm | head -10
      FAILS=$((FAILS + 1)); fi
  done
done

cc_build churn "$SRC_DIR/tests/e2e/progs/thread_churn.c" -pthread
run_memspy churn.json --record rec.churn -- ./churn 6 20000
grep -q "threads=48 sum=" churn.json.out || { echo "FAIL - churn: program output"; cat churn.json.out; exit 1; }
expect "churn: every thread left a stream" "$(ls rec.churn | grep -c '^thread-')" 49
check "churn: complete, every thread's writes and reads simulated" churn.json \
  '(.run.incomplete | not) and (.threads | length) == 49 and .totals.refs >= 48 * 40000'
"$MEMSPY" resim --json churn.resim.json -o /dev/null rec.churn
if [ "$(jq -S 'del(.run)' churn.json)" = "$(jq -S 'del(.run)' churn.resim.json)" ]; then
  echo "ok   - churn: the resim equals the run"
else echo "FAIL - churn: the resim differs from the run"; FAILS=$((FAILS + 1)); fi
finish
