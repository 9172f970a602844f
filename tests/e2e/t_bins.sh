#!/bin/sh
# Data bins of every kind, named MemSpy-style, with exact reference counts where the program
# fixes them; memcpy/memset ranges attributed to the calling code.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build bins "$SRC_DIR/tests/e2e/progs/bins.c"
run_memspy r.json -- ./bins
check "global 'table' is a global bin" r.json '.data | any(.name == "table" and .kind == "global")'
check "function static 'hits' is a global bin" r.json '.data | any((.name | test("hits")) and .kind == "global")'
check "v->vals = calloc(...) is named v.vals" r.json '.data | any(.name == "v.vals" and .kind == "heap")'
check "make_buffer's two call paths are two bins, named by the callers' variables" r.json \
  '[.data[] | select(.name == "double*.first" or .name == "double*.second")] | length == 2'
check "their full names differ in the call path" r.json \
  '.data[] | select(.name == "double*.first") | .full_name | test("^main:[0-9]+>make_buffer:[0-9]+>double\\*\\.first$")'
check "heap bin records objects and bytes" r.json \
  '.data[] | select(.name == "double*.second") | .objects == 1 and .bytes == 40000'
check "stack of sum_local is a stack bin" r.json '.data | any(.kind == "stack" and (.name | test("sum_local")))'
# 2048 element stores, or 1024 16-byte vector stores where the plugin sees gcc -O2's
# vectorised loop
check "global table written exactly once per element in main" r.json \
  "$JQ_DEFS"' cell("main"; "table").writes as $w | $w == 2048 or ($w == 1024 and (.run.notes | any(contains("plugin"))))'
# the array by name where DWARF places it in the frame (gcc); clang's versioned copies
# allocate it dynamically: the frame's bin
scratch=stack:sum_local.scratch
[ "$CC_NAME" = clang ] && scratch=stack:sum_local
check "fill writes its caller's stack array: exactly 512 writes to $scratch" r.json \
  "$JQ_DEFS"' cell("fill"; "'"$scratch"'").writes == 512'
check "total reads its caller's stack array exactly 10000 times" r.json \
  "$JQ_DEFS"' cell("total"; "'"$scratch"'").reads == 10000'
check "memcpy of 8192 bytes reads double*.second as 128 line-sized refs in main" r.json \
  "$JQ_DEFS"' cell("main"; "double*.second").reads >= 128'
# 128 + 64 line-sized refs; at -O2 with builtins (the plugin path) gcc trims the memcpy to
# the 4096 bytes the memset does not overwrite: 64 + 64
check "memset/memcpy writes into copy are attributed to main" r.json \
  "$JQ_DEFS"' cell("main"; "char*.copy").writes >= 128'
check "globals packed closer than 16 bytes keep their own counts (a: 100 writes)" r.json \
  "$JQ_DEFS"' cell("main"; "count_a") | .writes == 100 and .reads == 100'
check "globals packed closer than 16 bytes keep their own counts (b: 200 writes)" r.json \
  "$JQ_DEFS"' cell("main"; "count_b") | .writes == 200 and .reads == 200'
check "ids are positions and every bin refers to existing code and data" r.json \
  '. as $r | ([.data[].id] == [range(0; $r.data | length)]) and ([.code[].id] == [range(0; $r.code | length)])
   and (.bins | all(.code < ($r.code | length) and .data < ($r.data | length)))'
finish
