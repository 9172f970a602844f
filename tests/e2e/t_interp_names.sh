#!/bin/sh
# An interpreter's heap named as its programmers name it (Lua 5.4's pattern, issue 12), with the
# sources deleted after the build: every object comes from one allocator called through a
# function pointer and a generic object allocator; the interpreter loop keeps each new table in
# a slot of its value stack (`ra->gc = t`, ra = base + A) and the strings go into a hash chain
# (`*list = s`): slots that no variable or field names, so the blocks are named by their type,
# `Table` and `Str`, each site after where its path parts (none keeps the plain name: a lookup by
# `Table` lists both); a callee's member
# `t->node` keeps its name. Before, the names walked out past the interpreter loop to `ci`, the
# variable of an unrelated call around it (`ci = precall(...)`): ci, ci@execute:155, ...
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/interp_slots.c" .
cc_build is interp_slots.c
rm interp_slots.c
run_memspy r.json -- ./is
expect "interp_slots ran: 1000 tables, 1000 strings" "$(cat r.json.out)" "1000 1000 5445"
heap='[.data[] | select(.kind == "heap" and .name != "heap:headers" and .bytes >= 1000) | [.name, .objects, .bytes]] | sort'
check "the heap is Table (two sites), Str (two paths) and t.node, 500 blocks each" r.json \
    "$heap"' == [["Str@concat", 500, 36000], ["Str@execute", 500, 36000], ["Table@execute:149", 500, 32000],
                 ["Table@execute:155", 500, 32000], ["int*.code", 1, 8000], ["t.node", 500, 48000]]'
check "no bin is named after ci" r.json '[.data[].name | select(startswith("ci"))] | length == 0'
check "Table's full name goes through the allocator called by pointer" r.json \
    '.data[] | select(.name == "Table@execute:149") | .full_name ==
     "main:190>precall:175>run:168>execute:149>table_new:97>obj_new:88>mem_malloc:81>l_alloc:76>Table@execute:149"'
check "t.node: 4000 writes by setnodevector, 2000 reads by main" r.json \
    "$JQ_DEFS"' (cell("setnodevector"; "t.node") | .writes == 4000) and (cell("main"; "t.node") | .reads == 2000)'
check "Table@execute:149: 1000 writes by table_new and 1000 by obj_new (the headers); Str@concat: 1500 writes by str_new" r.json \
    "$JQ_DEFS"' (cell("table_new"; "Table@execute:149") | .writes == 1000) and (cell("obj_new"; "Table@execute:149") | .writes == 1000) and
     (cell("str_new"; "Str@concat") | .writes == 1500)'
expect_fail "show --data Table lists the two bins that share it" "Table@execute:155" "$MEMSPY" show --data Table
finish
