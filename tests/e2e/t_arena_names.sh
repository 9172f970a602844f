#!/bin/sh
# A block arena in the manner of leveldb's Arena (issue 12): a class with no constructor,
# destructor, operator or template arguments on the allocation's path, so no frame's text says
# that kv::Arena is a class and not a namespace. Its blocks (kept in its member vector:
# `blocks_[]`) and the vector's own storage (`blocks_`) come from three arenas (members of
# kv::Table, kv::Index, kv::Log) through the arena's own functions, which part the paths first
# (Allocate or AllocateAligned, Fallback's two calls of NewBlock). DWARF shows them to be member
# functions (the declaration's parent is a class): the arena's frames give way to the first
# caller outside it, `blocks_[]@kv::Table::Add`, where they were
# `@kv::Arena::Allocate`, `@kv::Arena::AllocateAligned`, `@kv::Arena::Fallback:LINE`.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/arena_class.cc" .
"$BUILD_DIR/bin/memspy-c++" $OPT -o arena arena_class.cc
run_memspy a.json -- ./arena 400
# the three sums, and the blocks of each arena: 400 records of 100 bytes in 4096-byte blocks
# (10), 400 of 64 aligned (7), 40 large ones of 2000 bytes each in its own block
expect "arena_class ran" "$(cat a.json.out)" "94424 10 7 40"
for c in 'Table::Add 10 40960 5' 'Index::Insert 7 28672 4' 'Log::Append 40 80000 7'; do
    set -- $c
    check "blocks_[]@kv::$1: $2 blocks, $3 bytes; blocks_@kv::$1: $4 vector growths" a.json \
        '([.data[] | select(.name == "blocks_[]@kv::'"$1"'")] | length == 1 and .[0].objects == '"$2"' and
          .[0].bytes == '"$3"') and
         ([.data[] | select(.name == "blocks_@kv::'"$1"'")] | length == 1 and .[0].objects == '"$4"')'
done
check "the full names keep the arena's frames" a.json \
    '(.data[] | select(.name == "blocks_[]@kv::Index::Insert") | .full_name |
      test("^main:[0-9]+>kv::Index::Insert:[0-9]+>kv::Arena::AllocateAligned:[0-9]+>kv::Arena::Fallback:[0-9]+>kv::Arena::NewBlock:[0-9]+>blocks_\\[\\]@kv::Index::Insert$"))'
check "no suffix names the arena's functions" a.json \
    '[.data[] | select(.kind == "heap" and .name != "heap:headers") | .name] | length == 6 and all(test("Arena") | not)'
finish
