#!/bin/sh
# An interpreter's C API named as its interpreter loop is (Lua 5.4's lua_createtable and
# lua_pushstring, issue 12; t_interp_names for the loop): a table or string made for a C
# function is stored through the state's stack top, a member the same function then moves
# (`setobj(L->top, t); L->top++`). That is a slot no variable or field names, so the blocks
# are named by their type, `Table`, `Str` (each of the string's three call sites after its line)
# and `Closure`. Before, they kept the API function's local: `Table*.t`, `ts`,
# `ts@open_lib:124`, `Closure*.cl` (clang -O2: `Obj*.o`). The table's store goes through a
# local (`Value *io = L->top`), the string's straight through the member, the closure's at a
# variable offset (`L->top -= n` first, as lua_pushcclosure pops its upvalues); the state's
# stack itself, stored into a member never moved so, keeps its field's name.
# Sources deleted after the build.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/api_slots.c" .
cc_build as api_slots.c
rm api_slots.c
run_memspy r.json -- ./as
expect "api_slots ran" "$(cat r.json.out)" "api_slots ran: 1000 tables, 3000 strings, 1000 closures 23963"
heap='[.data[] | select(.kind == "heap" and .name != "heap:headers" and .bytes >= 1000) | [.name, .objects, .bytes]] | sort'
check "the heap is Table, Closure and Str (three call sites), 1000 blocks each" r.json \
    "$heap"' == [["Closure", 1000, 64000], ["Str@open_lib:123", 1000, 48000], ["Str@open_lib:124", 1000, 48000],
                 ["Str@open_lib:126", 1000, 48000], ["Table", 1000, 64000]]'
check "Table's full name goes through the API function and the object allocator" r.json \
    '.data[] | select(.name == "Table") | .full_name == "main:139>open_lib:122>api_newtable:77>table_new:61>obj_new:51>Table"'
check "Closure's full name goes through lua_pushcclosure's twin" r.json \
    '.data[] | select(.name == "Closure") | .full_name == "main:139>open_lib:127>api_pushclosure:98>obj_new:51>Closure"'
check "no bin is named after the API functions' locals (t, ts) or the allocator's (o)" r.json \
    '[.data[].name | select(test("^(Table\\*\\.t|ts|Closure\\*\\.cl|Obj\\*\\.o)(@|$)"))] | length == 0'
check "the stack is named after the state's field" r.json \
    '[.data[] | select(.kind == "heap" and .objects == 1 and .bytes == 256) | .name] | length == 1 and (.[0] | test("^(L|st)\\.(stack|top)$"))'
check "Table: 2000 writes by obj_new, 1000 by api_settable; Str@open_lib:123: 1000 reads by api_settable; Closure: 3000 writes by api_pushclosure" r.json \
    "$JQ_DEFS"' (cell("obj_new"; "Table") | .writes == 2000) and (cell("api_settable"; "Table") | .writes == 1000) and
     (cell("api_settable"; "Str@open_lib:123") | .reads == 1000) and (cell("api_pushclosure"; "Closure") | .writes == 3000)'
finish
