#!/bin/sh
# Heap objects kept in containers and smart pointers beyond std::vector (issue 12; see
# t_container_names): `m[k] = new Rec` stores through the reference std::map's operator[]
# returns (`m[]`; the map's nodes, which operator[] allocates, `m`: a member function's
# reference result is no allocation of its own), also where g++ and clang -O2 inline operator[]
# (the library's iterator `__y`, `__i` names nothing of the program's: `m[]` from the early
# record); `lst.push_back(new Rec)` (`lst[]`, the list's nodes `lst`); `um.emplace(k, new Rec)`
# (`um[]`; its nodes and buckets `um@...`: the std::pair that emplace returns, which nothing
# reads, is no allocation; clang -O2: `um._M_h@...`, its member); and
# `auto p = std::make_unique<Rec>(i); member_ = std::move(p);` (`member_` at -O0; at -O2
# operator= is inlined and the store into the member competes with the local `p`).
# Before, the map's elements were `heap@more_containers.cc:36@main` (-O0), `__y[]` or `__i[]`
# (-O2), its nodes `heap@more_containers.cc:36@...::allocate`, the moved object
# `unique_ptr<Rec>.p`, um's nodes `heap@more_containers.cc:40@...` under g++.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/more_containers.cc" .
"$BUILD_DIR/bin/memspy-c++" $OPT -o mc more_containers.cc
run_memspy c.json -- ./mc 300
# member_'s v[1] (8), and the sums over i < 300 of (i+2) + (3i+3) + (2i+4)
expect "more_containers ran" "$(cat c.json.out)" "271808"
for n in 'm[]' 'lst[]' 'um[]'; do
    check "$n: 300 Recs of 64 bytes, main reads each once" c.json \
        "$JQ_DEFS"' ([.data[] | select(.name == "'"$n"'")] | length == 1 and .[0].kind == "heap" and .[0].objects == 300 and
          .[0].bytes == 19200) and (cell("main"; "'"$n"'") | .reads == 300)'
done
check "m: the map's 300 nodes of 48 bytes; lst: the list's 300 of 24" c.json \
    '([.data[] | select(.name == "m")] | length == 1 and .[0].objects == 300 and .[0].bytes == 14400) and
     ([.data[] | select(.name == "lst")] | length == 1 and .[0].objects == 300 and .[0].bytes == 7200)'
check "um's 300 nodes and its 6 bucket arrays: um, told apart by where they are allocated" c.json \
    '[.data[] | select(.name | test("^um(\\._M_h)?@")) | .objects] | sort == [6, 300]'
check "full names: m[] and lst[] stored by main" c.json \
    '(.data[] | select(.name == "m[]") | .full_name | test("^main:[0-9]+>m\\[\\]$")) and
     (.data[] | select(.name == "lst[]") | .full_name | test("^main:[0-9]+>lst\\[\\]$"))'
check "no bin is named after the library's locals (__y[], __i[], _M_node[])" c.json \
    '[.data[] | select(.kind == "heap") | .name] | all(test("^(__[a-z]+|_M_[a-z_]+)\\[\\]") | not)'
if [ "$OPT" = -O0 ]; then
    check "member_: the Rec moved into Holder::member_, through make_unique" c.json \
        '([.data[] | select(.name == "member_")] | length == 1 and .[0].objects == 1 and .[0].bytes == 64) and
         (.data[] | select(.name == "member_") | .full_name |
          test("^main:[0-9]+>Holder::set:[0-9]+>std::make_unique<[^>]*>:[0-9]+>member_$"))'
fi
finish
