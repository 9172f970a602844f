#!/bin/sh
# memcpy and memset of a run-time length 0 record nothing: the recorded streams of a threaded
# run decode to their end (an empty access once made a chunk undecodable, the run incomplete),
# and the references to the program's data are exactly the two volatile loads and the 8-byte
# copy's read and write, 1000 times per thread (at -O0 the loop's locals add their stack slots).
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
    check "$threads thread(s): n0, n8 and b 1000 references a thread, a as many and main's 2 reads" "r$threads.json" \
      "[.data[] | select(.name == \"n0\" or .name == \"n8\" or .name == \"b\") | .refs] == [1000 * $threads, 1000 * $threads, 1000 * $threads]
       and ([.data[] | select(.name == \"a\") | .refs] == [1000 * $threads + 2])"
done
[ "$FAILS" -eq 0 ] || exit 1
