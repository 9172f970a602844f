#!/bin/sh
# Names through helpers, patterns found on Lua 5.4 and leveldb 1.23 (issue 12), sources deleted
# after the build:
# - a generic object allocator (Lua's luaC_newobj, which uses its local `o` and returns it)
#   called by a constructor (luaF_newproto) whose callers store the object in a field or an
#   element: `cl.p`, `f.kids[]` (before: `GCObj*.o` and `GCObj*.o@add_kids`, the allocator's
#   local);
# - a one-off and a hot buffer of one name (`char *buf = make_buf(n)` once in setup, 1000 times
#   in work): neither keeps the plain name, whatever the counts (before: the one-off was
#   `char*.buf`, the hot one `char*.buf@work`), and a lookup by the plain name lists both;
# - a small copy helper of a class called from many places (leveldb's Status::CopyState,
#   called by Status's copy constructor and operator=, inlined into each caller): told apart by
#   the first caller outside the class, `state_@Get` and `state_@Write` (before: `state_` and
#   `state_@Status::operator=`).
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/names_helpers.c" "$SRC_DIR/tests/e2e/progs/copy_state.cc" .
cc_build nh names_helpers.c
"$BUILD_DIR/bin/memspy-c++" $OPT -o cs copy_state.cc
rm names_helpers.c copy_state.cc

run_memspy h.json -- ./nh
expect "names_helpers ran: 1001 objects, 1000 nested" "$(cat h.json.out)" "1001 1000 28448"
check "the heap is cl.p, f.kids, f.kids[] (1000 prototypes), char*.buf@setup (one) and char*.buf@work (1000)" h.json \
    '[.data[] | select(.kind == "heap" and .name != "heap:headers" and .name != "Closure*.cl") | [.name, .objects, .bytes]] | sort ==
     [["char*.buf@setup", 1, 4096], ["char*.buf@work", 1000, 256000], ["cl.p", 1, 96], ["f.kids", 1, 8000],
      ["f.kids[]", 1000, 96000]]'
check "f.kids[]'s full name goes through the constructor and the allocator" h.json \
    '.data[] | select(.name == "f.kids[]") | .full_name | test("^main:[0-9]+>add_kids:[0-9]+>newproto:[0-9]+>newobj:[0-9]+>f.kids\\[\\]$")'
check "no bin is named after the allocator's local o" h.json '[.data[].name | select(startswith("GCObj*.o"))] | length == 0'
check "no bin keeps the plain char*.buf" h.json '[.data[].name | select(. == "char*.buf")] | length == 0'
expect_fail "show --data with the plain name lists both" "char*.buf@setup" "$MEMSPY" show --data 'char*.buf'
expect_fail "fullname with the plain name lists both" "char*.buf@work" "$MEMSPY" fullname 'char*.buf'
ok_if "each bin's own name works" "$MEMSPY" show --data 'char*.buf@work'

run_memspy s.json -- ./cs
expect "copy_state ran" "$(cat s.json.out)" "300250"
check "Get's and Write's copies are state_@Get and state_@Write, 1000 blocks of 21 bytes each" s.json \
    '[.data[] | select(.name == "state_@Get" or .name == "state_@Write") | select(.objects == 1000 and .bytes == 21000)] | length == 2'
check "no name is told apart by the class's own functions" s.json \
    '[.data[].name | select(test("@Status::"))] | length == 0'
if [ "$OPT" = -O0 ]; then
    # the copy constructor is out of line: Compact's copy is the constructor's state_ too
    check "Compact's copy is state_@Compact" s.json \
        '[.data[] | select(.name == "state_@Compact" and .objects == 1000)] | length == 1'
else
    check "Compact's copy is its local's, s.state_" s.json '[.data[] | select(.name == "s.state_" and .objects == 1000)] | length == 1'
fi
finish
