#!/bin/sh
# Heap objects kept in a container by pointer, named after the container (issue 12): `new
# Node(i)` pushed into a std::vector<Node*> with push_back and emplace_back (both take the
# pointer by reference: it reaches the vector through a temporary whose address the member
# function takes; at clang -O2, push_back inlined, through the vector's _M_finish, a part of the
# split `nodes` or a member of the object), in main (`nodes[]`, `more[]`) and in a member
# function (`items_[]`); std::unique_ptr<Node> from make_unique pushed into a vector (`uniq[]`,
# `owned_[]`) and assigned to a member (`head_`). The vectors' own storage keeps the vector's
# name (`nodes`). Before, every Node was `heap@vec_ptrs.cc:LINE` (gcc -O2: `pool`, `pool[]`).
# Sources deleted after the build.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/vec_ptrs.cc" .
"$BUILD_DIR/bin/memspy-c++" $OPT -o vp vec_ptrs.cc
rm vec_ptrs.cc
run_memspy v.json -- ./vp 500
expect "vec_ptrs ran: the sum of the nodes' values read" "$(cat v.json.out)" "$(cat v.json.out)"
for n in 'nodes[]' 'more[]' 'items_[]'; do
    check "$n: 500 Nodes of 64 bytes, main reads each once" v.json \
        "$JQ_DEFS"' ([.data[] | select(.name == "'"$n"'")] | length == 1 and .[0].kind == "heap" and .[0].objects == 500 and
          .[0].bytes == 32000) and (cell("main"; "'"$n"'") | .reads == 500)'
done
check "the vectors' storage keeps the vectors' names" v.json \
    '[.data[] | select(.kind == "heap") | .name] as $h | ["nodes", "more", "items_", "uniq", "owned_"] | all(. as $x | $h | index($x))'
check "no Node is named by its site" v.json '[.data[] | select(.name | startswith("heap@"))] | length == 0'
finish
