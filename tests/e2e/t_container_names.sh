#!/bin/sh
# Heap objects kept in a container by pointer, named after the container (issue 12): `new
# Node(i)` pushed into a std::vector<Node*> with push_back and emplace_back (both take the
# pointer by reference: it reaches the vector through a temporary whose address the member
# function takes; with push_back inlined, clang -O2 stores it through the vector's _M_finish, a
# part of the split `nodes`), in main (`nodes[]`, `more[]`) and in a member function
# (`items_[]`, also where g++ -O2 inlines it into main: the member of `this`, not `pool`);
# std::unique_ptr<Node> from make_unique (returned in memory, into a temporary) pushed into a
# vector (`uniq[]`, `owned_[]`) and assigned to a member (`head_`: operator= takes it). The
# vectors' own storage keeps the vector's name (`nodes`). Before, every Node was
# `heap@vec_ptrs.cc:LINE` (g++ -O2: `pool`, `pool[]` for some). Sources deleted after the build.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/vec_ptrs.cc" .
"$BUILD_DIR/bin/memspy-c++" $OPT -o vp vec_ptrs.cc
rm vec_ptrs.cc
run_memspy v.json -- ./vp 500
# the sum over i < 500 of i+1, 2i+2, 3i+3, i+4 and i+5, plus head_'s 5+6
expect "vec_ptrs ran" "$(cat v.json.out)" "1005511"
for n in 'nodes[]' 'more[]' 'items_[]' 'uniq[]' 'owned_[]'; do
    check "$n: 500 Nodes of 64 bytes, main reads each once" v.json \
        "$JQ_DEFS"' ([.data[] | select(.name == "'"$n"'")] | length == 1 and .[0].kind == "heap" and .[0].objects == 500 and
          .[0].bytes == 32000) and (cell("main"; "'"$n"'") | .reads == 500)'
done
check "head_: one Node, read once by main" v.json \
    "$JQ_DEFS"' ([.data[] | select(.name == "head_")] | length == 1 and .[0].objects == 1 and .[0].bytes == 64) and
     (cell("main"; "head_") | .reads == 1)'
check "full names: nodes[] by main, items_[] through Pool::add, owned_[] through Pool::own and make_unique" v.json \
    '(.data[] | select(.name == "nodes[]") | .full_name | test("^main:[0-9]+>nodes\\[\\]$")) and
     (.data[] | select(.name == "items_[]") | .full_name | test("^main:[0-9]+>Pool::add:[0-9]+>items_\\[\\]$")) and
     (.data[] | select(.name == "owned_[]") | .full_name | test("^main:[0-9]+>Pool::own:[0-9]+>std::make_unique<[^>]*>:[0-9]+>owned_\\[\\]$"))'
check "the vectors' storage keeps the vectors' names" v.json \
    '[.data[] | select(.kind == "heap") | .name] as $h | ["nodes", "more", "items_", "uniq", "owned_"] | all(. as $x | $h | index($x))'
check "every heap bin is named after its container" v.json \
    '[.data[] | select(.kind == "heap" and .name != "heap:headers") | .name] | sort ==
     ["head_", "items_", "items_[]", "more", "more[]", "nodes", "nodes[]", "owned_", "owned_[]", "uniq", "uniq[]"]'
finish
