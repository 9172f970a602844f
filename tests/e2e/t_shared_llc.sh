#!/bin/sh
# The x86 preset for threads: private L1 and L2, one L3 shared by the processors and sized one
# 2M slice per processor (2 threads: 4M). Two threads each stream over an array of their own
# (tests/e2e/progs/sharedllc.c), 4 passes.
# - 3/4 of a slice each (1.5M): with a private slice per processor (--shared none) and with the
#   shared 4M L3 alike, every L3 miss is cold (24576 per array: 1.5M / 64), none capacity.
# - 3/2 of a slice each (3M): the arrays no longer fit either way; with private slices each
#   array's L3 replacements are its own doing, in the shared L3 a large share of them is caused
#   by the other thread's array (interference between processors, attributed to its data bin).
#   The program is made for the interleaved (round-robin) order, in which right moves through
#   its lines half as fast as left (two reads per line); those runs name it. In the timed order
#   (the default) both threads take one memory miss per line, so they stream in step: the
#   6M of the two arrays miss every pass in the shared 4M L3 as in the private slices, and LRU
#   then evicts in each set the line filled 16 fills earlier, of the same array.
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build sharedllc "$SRC_DIR/tests/e2e/progs/sharedllc.c" -pthread
run_memspy s34.json -- ./sharedllc 1536 4
run_memspy p34.json --shared none -- ./sharedllc 1536 4
run_memspy s32.json --interleave interleaved -- ./sharedllc 3072 4
run_memspy p32.json --interleave interleaved --shared none -- ./sharedllc 3072 4
run_memspy t32.json -- ./sharedllc 3072 4
grep -q "kib=3072 passes=4 sum=0" s32.json.out || { echo "FAIL - program output changed"; cat s32.json.out; exit 1; }

# The hierarchy line of the report says which level is shared and how large it is.
expect "shared L3: 2 slices" "$(grep -c 'Hierarchy: x86: L1 32K/8 L2 1M/16 L3 4M/16 shared, 64B lines, 2 cpus, MESI, 64B unit' s34.json.txt)" 1
expect "--shared none: a private 2M slice each" "$(grep -c 'Hierarchy: x86: L1 32K/8 L2 1M/16 L3 2M/16, 64B lines, 2 cpus' p34.json.txt)" 1
check "JSON config: L3 of 4M shared (level 2 on)" s34.json '.config | .shared_from == 2 and .levels[2].size == 4194304'

L3='def l3($d): cell("sweep"; $d) | .levels[2];'
for run in s34 p34; do
  for a in left right; do
    check "$run: $a's L3 misses are all cold (24576), none capacity or conflict" $run.json \
      "$JQ_DEFS$L3"' l3("'$a'") | .causes.cold == 24576 and .causes.capacity == 0 and .causes.conflict == 0'
  done
done
for pair in "left right" "right left"; do
  set -- $pair
  check "private slices, 3M each: $1's L3 replacements all by itself (> 140000), none by $2" p32.json \
    "$JQ_DEFS$L3"' dataid("'$2'") as $o | l3("'$1'") | .causes.capacity > 140000 and evicted_share($o) == 0'
done
check "shared L3, 3M each: left's L3 replacements > 40% by right's data" s32.json \
  "$JQ_DEFS$L3"' dataid("right") as $o | l3("left") | .causes.capacity > 140000 and evicted_share($o) > 0.4'
check "shared L3, 3M each: right's L3 replacements > 70% by left's data" s32.json \
  "$JQ_DEFS$L3"' dataid("left") as $o | l3("right") | .causes.capacity > 80000 and evicted_share($o) > 0.7'
check "shared L3: right, alone after left finished, fits: fewer L3 misses than with a private slice" s32.json \
  "$JQ_DEFS$L3"' l3("right") | .misses < '"$(value p32.json "$JQ_DEFS$L3"' l3("right") | .misses')"
for a in left right; do
  check "timed, shared L3, 3M each: $a misses in L3 on every line of every pass (4 x 49152), as in a private slice" \
    t32.json "$JQ_DEFS$L3"' .interleave == "timed" and (l3("'$a'") | .misses == 196608 and .causes.cold == 49152)'
done
finish
