#!/bin/sh
# memcpy and memset of a run-time length 0 record nothing: the recorded streams of a threaded
# run decode to their end (an empty access once made a chunk undecodable, the run incomplete),
# and the references are exactly the two volatile loads and the 8-byte copy's read and write,
# 1000 times per thread.
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build zerolen "$SRC_DIR/tests/e2e/progs/zerolen.c"
for threads in 2 1; do
    set +e
    "$MEMSPY" run --no-report --json "r$threads.json" -- ./zerolen "$threads" >out 2>err
    st=$?
    set -e
    expect "$threads thread(s): memspy run exits 0" "$st" 0
    expect "$threads thread(s): nothing undecodable" "$(grep -c undecodable err)" 0
    check "$threads thread(s): the result is complete" "r$threads.json" '.run.incomplete == false'
    check "$threads thread(s): work made 4 references an iteration, 1000 iterations a thread" "r$threads.json" \
      "[.code[] | select(.name == \"work\") | .refs] == [4000 * $threads]"
done
[ "$FAILS" -eq 0 ] || exit 1
