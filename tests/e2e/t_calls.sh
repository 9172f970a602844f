#!/bin/sh
# Call edges from memspy's compiler plugins (MS_RAW_CALLS): per caller block and callee, exact
# counts, direct calls and calls through a function pointer alike; the same in
# MEMSPY_MODE=count (the counting copy writes call words too), none in MEMSPY_MODE=time.
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

rm -rf raw && mkdir raw
MEMSPY_MODE=time MEMSPY_RAW_DIR="$WORK/raw" ./calls $N >/dev/null
expect "time mode: no call edge recorded" "$("$BUILD_DIR/bin/rt_rawcheck" raw/*.raw calls | wc -l)" 0
finish
