#!/bin/sh
# C++ members that grow inside the standard library, named after the member at every compiler
# and level (issue 12): a std::string member appended to in a loop (`text_.append(s, n)`: its
# blocks allocated by libstdc++'s _M_mutate, a library without DWARF) and a std::vector member
# push_back'd (`offsets_.push_back(x)`: operator new called from inline std:: code, out of line
# in the program at -O0). Before, clang -O0 named the string's blocks
# `heap:libstdc++.so.6:...::_M_mutate`: the call of `append`, a declaration without debug
# information (libstdc++ instantiates std::string itself), was not known to be a member
# function's, so the record did not name its object. Sources deleted after the build.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/member_growth.cc" .
"$BUILD_DIR/bin/memspy-c++" $OPT -o mg member_growth.cc
rm member_growth.cc
run_memspy m.json -- ./mg
expect "member_growth ran: 20000 entries of 12 bytes" "$(cat m.json.out)" "970000 240000 20000"
check "the string member is text_: 14 blocks (each growth, capacity 30 to 245760), 491504 bytes" m.json \
    '[.data[] | select(.name == "text_")] | length == 1 and .[0].kind == "heap" and .[0].objects == 14 and .[0].bytes == 491504'
check "the vector member is offsets_: 16 blocks (capacity 1, 2, ..., 32768 longs), 524280 bytes" m.json \
    '[.data[] | select(.name == "offsets_")] | length == 1 and .[0].kind == "heap" and .[0].objects == 16 and .[0].bytes == 524280'
check "text_'s full name goes through Journal::Add's append into libstdc++" m.json \
    '.data[] | select(.name == "text_") | .full_name | test("^main:[0-9]+>Journal::Add:[0-9]+>.*\\(libstdc\\+\\+\\.so\\.6\\)>text_$")'
check "offsets_'s full name goes through Journal::Add's push_back" m.json \
    '.data[] | select(.name == "offsets_") | .full_name | test("^main:[0-9]+>Journal::Add:[0-9]+>.*push_back.*>offsets_$")'
check "main reads each 20000 times; libstdc++'s _M_append writes text_ 19985 times" m.json \
    "$JQ_DEFS"' (cell("main"; "text_") | .reads == 20000 and .writes == 0) and (cell("main"; "offsets_") | .reads == 20000) and
     ([.code[] | select(.name | test("_M_append"))][0].id as $c | dataid("text_") as $d | .bins[] | select(.code == $c and .data == $d) | .writes == 19985)'
check "no heap bin is named after libstdc++" m.json '[.data[] | select(.name | startswith("heap:libstdc++"))] | length == 0'
finish
