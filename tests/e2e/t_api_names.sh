#!/bin/sh
# An interpreter's C API named as its interpreter loop is (Lua 5.4's lua_createtable and
# lua_pushstring, issue 12; t_interp_names for the loop): a table or string made for a C
# function is stored through the state's stack top, a member the same function then moves
# (`setobj(L->top, t); L->top++`). That is a slot no variable or field names, so the blocks
# are named by their type, `Table` and `Str` (the string's second call site after its path).
# Before, they kept the API function's local: `Table*.t`, `ts` and `ts@open_lib:101`. The
# table's store goes through a local (`Value *io = L->top`), the string's straight through the
# member; the state's stack itself, stored into a member never moved so, keeps its field's name.
# Sources deleted after the build.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/api_slots.c" .
cc_build as api_slots.c
rm api_slots.c
run_memspy r.json -- ./as
expect "api_slots ran: 1000 tables, 2000 strings" "$(cat r.json.out)" "api_slots ran: 1000 tables, 2000 strings 16335"
heap='[.data[] | select(.kind == "heap" and .name != "heap:headers" and .bytes >= 1000) | [.name, .objects, .bytes]] | sort'
check "the heap is Table (1000 blocks) and Str (two call sites, 1000 blocks each)" r.json \
    "$heap"' == [["Str", 1000, 48000], ["Str@open_lib:101", 1000, 48000], ["Table", 1000, 64000]]'
check "Table's full name goes through the API function and the object allocator" r.json \
    '.data[] | select(.name == "Table") | .full_name == "main:114>open_lib:99>api_newtable:69>table_new:53>obj_new:43>Table"'
check "no bin is named after the API functions' locals (t, ts) or the allocator's (o)" r.json \
    '[.data[].name | select(test("^(Table\\*\\.t|ts|Obj\\*\\.o)(@|$)"))] | length == 0'
check "the stack is named after the state's field" r.json \
    '[.data[] | select(.kind == "heap" and .objects == 1 and .bytes == 256) | .name] | length == 1 and (.[0] | test("^(L|st)\\.(stack|top)$"))'
check "Table: 2000 writes by obj_new, 1000 by api_settable; Str: 1000 reads by api_settable" r.json \
    "$JQ_DEFS"' (cell("obj_new"; "Table") | .writes == 2000) and (cell("api_settable"; "Table") | .writes == 1000) and
     (cell("api_settable"; "Str") | .reads == 1000)'
finish
