#!/bin/sh
# Entry blocks counted by their calls (ABI 7): with optimisation, a function only called
# directly by instrumented code (static, its address not taken) has no counter on its entry
# block in the counting copy; the runtime's dump sets that block's count to the sum of the
# function's call edges. The counts stay exact, in the capture and the counting run:
# entry_calls.c (N = 100): jumper entered N times (it longjmps out on every fourth call), bump
# 2 * 3N/4 (twice per iteration that jumper returns from; the second call of the block keeps its
# call word), down N + 1 (recursion), viaptr 3N/4 (through a pointer: a counter of its own);
# entry_calls.cc (C++): an anonymous-namespace function and an inline member function (a COMDAT
# function: a counter of its own), N each. The entry records themselves (an odd address in the
# __memspy_calls table of a PIE: a relocation with an odd addend) are there with optimisation
# only: three in entry_calls.c, one in entry_calls.cc.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
N=100
cc_build entry_calls "$SRC_DIR/tests/e2e/progs/entry_calls.c" -g -fPIE -pie
"$BUILD_DIR/bin/memspy-c++" $OPT -g -fPIE -pie -o entry_calls_cc "$SRC_DIR/tests/e2e/progs/entry_calls.cc"

# line SRC MARKER: the line of the marker comment.
line() { grep -n "$2" "$SRC_DIR/tests/e2e/progs/$1" | cut -d: -f1; }
# counts JSON SRC MARKER...: the counts of the blocks that start on the markers' lines.
counts() {
    json=$1 src=$2
    shift 2
    out=
    for m in "$@"; do
        out="$out $(jq -r --argjson l "$(line "$src" "$m")" '[.blocks[] | select(.line == $l) | .count] | add' "$json")"
    done
    echo $out
}
# entries PROG: the __memspy_calls table's entries that are entry blocks (an entry's first word,
# the block's, odd; its second, a function's address, may be odd at -O0).
entries() {
    readelf -SW "$1" | awk '$2 == "__memspy_calls" { print $4, $6 }' >sec.txt
    [ -s sec.txt ] || { echo 0; return; }
    read -r addr size <sec.txt
    n=0
    readelf -rW "$1" | awk '$3 == "R_X86_64_RELATIVE" { print $1, $4 }' >rel.txt
    while read -r off add; do
        [ $((0x$off)) -ge $((0x$addr)) ] && [ $((0x$off)) -lt $((0x$addr + 0x$size)) ] &&
            [ $(((0x$off - 0x$addr) % 16)) -eq 0 ] && [ $((0x$add % 2)) -eq 1 ] && n=$((n + 1))
    done <rel.txt
    echo $n
}

for mode in capture count; do
    m=${mode#capture}
    env ${m:+MEMSPY_MODE=$m} "$MEMSPY" run --json c.json -- ./entry_calls $N >/dev/null 2>&1
    expect "$mode: entry blocks of jumper, bump, down, viaptr" \
        "$(counts c.json entry_calls.c ENTRY_JUMPER ENTRY_BUMP ENTRY_DOWN ENTRY_VIAPTR)" \
        "$N $((2 * (N - N / 4))) $((N + 1)) $((N - N / 4))"
    env ${m:+MEMSPY_MODE=$m} "$MEMSPY" run --json cc.json -- ./entry_calls_cc $N >/dev/null 2>&1
    expect "$mode: C++ entry blocks of the anonymous-namespace function and the inline member" \
        "$(counts cc.json entry_calls.cc ENTRY_HIDDEN ENTRY_ADD)" "$N $N"
done
if [ "$OPT" = -O0 ]; then
    expect "-O0: no entry record (block words)" "$(entries entry_calls) $(entries entry_calls_cc)" "0 0"
else
    expect "$OPT: entry records for jumper, bump and down; for the C++ static function" \
        "$(entries entry_calls) $(entries entry_calls_cc)" "3 1"
fi
finish
