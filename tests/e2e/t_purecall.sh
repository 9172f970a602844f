#!/bin/sh
# A function GCC finds pure (sum only reads memory) called in one loop body with others: its
# instrumented body appends to the thread's buffer, so the caller must load the buffer's count
# again after the call (the GCC plugin's count is volatile). Before, gcc -O2 kept the count
# across the call and the callee's records were counted twice (sum's blocks 20 and 5010 times
# where they run 10 and 5000). The truth: the same program built with -fno-ipa-pure-const,
# where GCC marks nothing pure; every block count and every reference must be the same.
# matrix: gcc:-O2 gcc:-O3
. "$1/tests/e2e/lib.sh"
cc_build pure "$SRC_DIR/tests/e2e/progs/purecall.c"
cc_build impure -fno-ipa-pure-const "$SRC_DIR/tests/e2e/progs/purecall.c"
"$MEMSPY" run --json pure.json -o /dev/null -- ./pure >pure.out
"$MEMSPY" run --json impure.json -o /dev/null -- ./impure >impure.out
counts='.names as $n | [.blocks[] | [$n[.function], .line, .count]] | sort'
check "sum's entry block runs once per call (10)" pure.json \
  '.names as $n | [.blocks[] | select($n[.function] == "sum") | .count] | .[0] == 10'
ok_if "every block count equals the build where GCC marks nothing pure" \
  test "$(jq -c "$counts" pure.json)" = "$(jq -c "$counts" impure.json)"
ok_if "the references equal it too" \
  test "$(jq -c '.totals | [.reads, .writes]' pure.json)" = "$(jq -c '.totals | [.reads, .writes]' impure.json)"
check "main calls fill, sum and depth 10 times each" pure.json \
  '.names as $n | [.calls[] | select($n[.caller] == "main") | [$n[.callee], .count]] | sort == [["depth", 10], ["fill", 10], ["sum", 10]]'
finish
