#!/bin/sh
# Thread-local variables by name, and a variable in main's frame that other threads read and
# write: one bin of its owner's frame (stack:main.shared, the variable), not `other`.
. "$1/tests/e2e/lib.sh"
cc_build names_threads "$SRC_DIR/tests/e2e/progs/names_threads.c" -pthread
run_memspy r.json -- ./names_threads

check "the thread-local array is one bin named tls_acc, 4096 bytes" r.json \
  '[.data[] | select(.name == "tls_acc")] | length == 1 and .[0].kind == "global" and .[0].bytes == 4096'
line=$(grep -n '__thread double tls_acc' "$SRC_DIR/tests/e2e/progs/names_threads.c" | cut -d: -f1)
check "its declaration comes from DWARF (DW_OP_*_tls_address): names_threads.c:$line" r.json \
  '.data[] | select(.name == "tls_acc") | .site | endswith("names_threads.c:'"$line"'")'
# 3 threads x 8 x 512 read-modify-writes (clang -O2 vectorizes them by 2), plus 3 x 512 reads
check "every thread's copy is counted in tls_acc" r.json \
  "$JQ_DEFS"' cell("worker"; "tls_acc") | (.writes == 12288 and .reads == 13824) or (.writes == 6144 and .reads == 7680)'
# gcc's DWARF places main's array at a fixed offset from the frame's CFA: the variable's own
# bin; clang's versioned copies allocate it dynamically (a location list): main's frame.
shared=stack:main.shared
[ "$CC_NAME" = clang ] && shared=stack:main
check "shared, in main's frame, is read and written by all three threads in $shared" r.json \
  "$JQ_DEFS"' cell("worker"; "'"$shared"'") | (.writes == 192 and .reads == 192) or (.writes == 96 and .reads == 96)'
check "main's own writes of shared (its initialisation) are in $shared too" r.json \
  "$JQ_DEFS"' cell("main"; "'"$shared"'").writes >= 8'
if [ "$CC_NAME:$OPT" = gcc:-O0 ]; then
  # at -O0 main's other locals live in their stack slots too (the loop counter, argc, ...)
  check "main's frame is split by variable: shared, the thread handles t, its other locals, nothing left unnamed" r.json \
    '[.data[].name | select(startswith("stack:main"))] | index("stack:main.shared") != null and
     index("stack:main.t") != null and all(startswith("stack:main."))'
elif [ "$CC_NAME" = gcc ]; then
  check "main's frame is split by variable: shared and the thread handles t, nothing left unnamed" r.json \
    '[.data[].name | select(startswith("stack:main"))] | sort == ["stack:main.shared", "stack:main.t"]'
fi
check "worker touches nothing unnamed" r.json \
  "$JQ_DEFS"' codeid("worker") as $w | [.data[] | select(.kind == "other") | .id] as $o
   | [.bins[] | select(.code == $w and (.data as $d | $o | index($d)))] | length == 0'
finish
