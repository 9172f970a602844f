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
check "global table written exactly 2048 times in main" r.json \
  "$JQ_DEFS"' cell("main"; "table").writes == 2048'
check "fill writes its caller's stack array: exactly 512 writes to stack:sum_local" r.json \
  "$JQ_DEFS"' cell("fill"; "stack:sum_local").writes == 512'
check "total reads its caller's stack array exactly 10000 times" r.json \
  "$JQ_DEFS"' cell("total"; "stack:sum_local").reads == 10000'
check "memcpy of 8192 bytes reads double*.second as 128 line-sized refs in main" r.json \
  "$JQ_DEFS"' cell("main"; "double*.second").reads >= 128'
check "memset/memcpy writes into copy are attributed to main" r.json \
  "$JQ_DEFS"' cell("main"; "char*.copy").writes >= 128 + 64'
check "globals packed closer than 16 bytes keep their own counts (a: 100 writes)" r.json \
  "$JQ_DEFS"' cell("main"; "count_a") | .writes == 100 and .reads == 100'
check "globals packed closer than 16 bytes keep their own counts (b: 200 writes)" r.json \
  "$JQ_DEFS"' cell("main"; "count_b") | .writes == 200 and .reads == 200'
check "ids are positions and every bin refers to existing code and data" r.json \
  '. as $r | ([.data[].id] == [range(0; $r.data | length)]) and ([.code[].id] == [range(0; $r.code | length)])
   and (.bins | all(.code < ($r.code | length) and .data < ($r.data | length)))'
finish
