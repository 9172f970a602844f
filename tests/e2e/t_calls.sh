#!/bin/sh
# Call edges from memspy's compiler plugins (MS_RAW_CALLS): per caller block and callee, exact
# counts, direct calls and calls through a function pointer alike; the same in
# MEMSPY_MODE=count (the counting copy writes call words too), none in MEMSPY_MODE=time; a
# block's first direct call counted by its block (ABI 6's table of direct call sites).
# calls.c: main's loop calls leaf() N times directly and leaf()/other() N times each through a
# function pointer table; other() calls leaf() once per call.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
N=100
cc_build calls "$SRC_DIR/tests/e2e/progs/calls.c"
leaf=$(nm calls | awk '$3 == "leaf" { sub(/^0+/, "", $1); print $1 }')
other=$(nm calls | awk '$3 == "other" { sub(/^0+/, "", $1); print $1 }')

# edges FILE CALLER CALLEE_OFFSET: calls from the blocks of function CALLER to the callee.
edges() {
  total=0
  while read -r blk pc callee count; do
    [ "$callee" = "$3" ] || continue
    fn=$(addr2line -f -e calls "0x$pc" | head -1)
    [ "$fn" = "$2" ] && total=$((total + count))
  done <"$1"
  echo $total
}

mkdir raw
MEMSPY_RAW_DIR="$WORK/raw" ./calls $N >out.txt
"$BUILD_DIR/bin/rt_rawcheck" raw/*.raw calls >calls.txt
expect "main's blocks called leaf 2N times (N directly, N/2 + N/2 through the table)" "$(edges calls.txt main "$leaf")" $((2 * N))
expect "main's blocks called other N times (through the table)" "$(edges calls.txt main "$other")" $N
expect "other's block called leaf once per call of other" "$(edges calls.txt other "$leaf")" $N
expect "leaf calls nothing" "$(edges calls.txt leaf "$leaf")$(edges calls.txt leaf "$other")" 00

rm -rf raw && mkdir raw
MEMSPY_MODE=count MEMSPY_RAW_DIR="$WORK/raw" ./calls $N >/dev/null
"$BUILD_DIR/bin/rt_rawcheck" raw/*.raw calls >count.txt
expect "count mode: the same edges and counts (libc callees' addresses aside)" \
  "$(awk '{ print $1, $2, $3 == L || $3 == O ? $3 : "libc", $4 }' L="$leaf" O="$other" count.txt)" \
  "$(awk '{ print $1, $2, $3 == L || $3 == O ? $3 : "libc", $4 }' L="$leaf" O="$other" calls.txt)"

# Direct call sites (ABI 6): a block's first direct call has no call word, its count is its
# block's (the module's __memspy_calls table); a later call in the same block keeps its word.
# calls_jump.c: twice() calls jumper() then leaf() in one block, and jumper() longjmps out on
# every fourth call: leaf runs 3N/4 times, not its block's N; down() calls itself N times.
secsize() { readelf -SW "$1" | awk '$2 == "__memspy_calls" { print "0x" $6 }'; }
expect "direct call sites in a table: main->leaf, other->leaf at least" "$(($(secsize calls) >= 32))" 1
cc_build calls_jump "$SRC_DIR/tests/e2e/progs/calls_jump.c"
for mode in capture count; do
  rm -rf raw && mkdir raw
  m=${mode#capture}
  env ${m:+MEMSPY_MODE=$m} MEMSPY_RAW_DIR="$WORK/raw" ./calls_jump $N >/dev/null
  "$BUILD_DIR/bin/rt_rawcheck" raw/*.raw calls >jump.txt
  at() { nm calls_jump | awk -v f="$1" '$3 == f { sub(/^0+/, "", $1); print $1 }'; }
  edgesj() {
    total=0
    while read -r blk pc callee count; do
      [ "$callee" = "$(at "$2")" ] || continue
      fn=$(addr2line -f -e calls_jump "0x$pc" | head -1)
      [ "$fn" = "$1" ] && total=$((total + count))
    done <jump.txt
    echo $total
  }
  expect "$mode: twice called jumper N times (its block's first call: the block's count)" "$(edgesj twice jumper)" $N
  expect "$mode: twice called leaf 3N/4 times (after a call that may not return: its own word)" \
    "$(edgesj twice leaf)" $((N - N / 4))
  expect "$mode: down called itself N times" "$(edgesj down down)" $N
  expect "$mode: main called down once, twice N times" "$(edgesj main down) $(edgesj main twice)" "1 $N"
done

rm -rf raw && mkdir raw
MEMSPY_MODE=time MEMSPY_RAW_DIR="$WORK/raw" ./calls $N >/dev/null
expect "time mode: no call edge recorded" "$("$BUILD_DIR/bin/rt_rawcheck" raw/*.raw calls | wc -l)" 0
finish
