#!/bin/sh
# A block stored in a member of a pointer that an inlined allocation wrapper returned is named
# after the program's variable, `job.buf`, not after the wrapper's parameter (`ptr.buf`: pigz's
# `space->buf = alloc(NULL, size)` and `job->calc` were `ptr.buf@parallel_compress:2095` and
# `ptr.calc` under gcc -O2; tests/e2e/progs/inlined_wrapper.c).
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build iw "$SRC_DIR/tests/e2e/progs/inlined_wrapper.c"
run_memspy r.json -- ./iw 100000
expect "the program's output" "$(cat r.json.out)" "$(cc -O2 -o native "$SRC_DIR/tests/e2e/progs/inlined_wrapper.c" && ./native 100000)"
check "the buffer is job.buf, with nearly all references (21 passes over 100000 bytes, written and read)" r.json \
  '([.data[].refs] | add) as $all | [.data[] | select(.name == "job.buf")] | length == 1 and .[0].refs > 0.9 * $all'
check "no bin is named after the wrapper's parameter" r.json '[.data[].name | select(startswith("ptr"))] == []'
finish
