#!/bin/sh
# Basic blocks and loops from memspy's GCC plugin and LLVM plugin: exact execution counts
# (kernel's inner body runs 30 x 200 times per call, 7 calls), the loop nest (the body's loop
# at depth 2 inside a depth-1 loop of kernel) in C, C++ and Fortran, and per-thread work between
# synchronisations in the recorded streams (WORK events: each thread's share of the body).
# clang -O2 vectorises the body 8 doubles at a time: its vector body runs 30 x 25 times per
# call; at -O0 the loop conditions read the locals i, j and cols from their stack slots (both
# plugins record them, as the -O0 binary makes them), so the body is the block with the most
# memory operations rather than the most executed one with any.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
. "$SRC_DIR/tests/e2e/rt/threads_lib.sh"
BODY=30*200*7
CBODY=$BODY # the body of kernel in C and C++
[ "$CC_NAME:$OPT" = clang:-O2 ] && CBODY=30*25*7
# bodysel FUNC: the selector of the body: FUNC's most executed block with a memory operation
# (at -O0: the block with the most memory operations)
bodysel() {
  if [ "$OPT" = -O0 ]; then
    printf '%s' "[named(.blocks)[] | select(.function | test(\"$1\"))] | max_by([.memops, .count])"
  else
    printf '%s' "[named(.blocks)[] | select((.function | test(\"$1\")) and .memops > 0)] | max_by(.count)"
  fi
}

# body_checks LANG JSON [BODY [FUNC]]: the body block's count and its loop nest in the function
# whose code holds it: kernel, or kernel_ as gfortran names it (FUNC: a regex; gfortran -O2
# inlines kernel into the program unit `blocks`, whose code then holds the loops).
body_checks() {
  lang=$1 json=$2 BODY=${3:-$CBODY} FUNC=${4:-^kernel_?$}
  sel=$(bodysel "$FUNC")
  check "$lang: the body of kernel ran exactly $BODY times" "$json" "$JQ_DEFS ($sel).count == $BODY"
  check "$lang: the body's loop is at depth 2 in kernel, inside a depth-1 loop of kernel" "$json" \
    "$JQ_DEFS named(.loops) as \$l | ($sel).loop as \$i | \$l[\$i].depth == 2 and (\$l[\$i].function | test(\"$FUNC\")) and
     \$l[\$l[\$i].parent].depth == 1 and (\$l[\$l[\$i].parent].function | test(\"$FUNC\"))"
  check "$lang: the body's loop header ran at least $BODY times" "$json" \
    "$JQ_DEFS named(.loops) as \$l | ($sel).loop as \$i | \$l[\$i].iterations >= $BODY"
  check "$lang: every block of kernel has a source line in blocks.c or blocks.f90" "$json" \
    "$JQ_DEFS [named(.blocks)[] | select(.function | test(\"^kernel_?$\")) | .line > 0 and (.file | test(\"blocks\\\\.(c|f90)\$\"))] | all"
}

cc_build blocks "$SRC_DIR/tests/e2e/progs/blocks.c"
run_memspy c.json -- ./blocks 30 200 7
body_checks C c.json

"$BUILD_DIR/bin/memspy-c++" $OPT -x c++ -o blocksxx "$SRC_DIR/tests/e2e/progs/blocks.c" -lpthread
run_memspy x.json -- ./blocksxx 30 200 7
body_checks C++ x.json

MEMSPY_FC=gfortran "$BUILD_DIR/bin/memspy-fortran" $OPT -o blocksf "$SRC_DIR/tests/e2e/progs/blocks.f90"
run_memspy f.json -- ./blocksf
body_checks Fortran f.json 30*201*7 '^(kernel_?|blocks)$'
BODY=$CBODY
SEL=$(bodysel '^kernel_?$')
# the index of the body block in .blocks (its id in the streams)
BODYID="$JQ_DEFS ($SEL) as \$b | named(.blocks) | to_entries | map(select(.value == \$b)) | .[0].key"

# Two threads, each 7 calls: the body's WORK events in each thread's stream add up to its
# share; the raw total is both.
run_memspy t.json --threads --record rec -- ./blocks 30 200 7 t
check "threads: the body ran 2 x $BODY times in all" t.json "$JQ_DEFS ($SEL).count == 2 * $BODY"
ids=$(jq -r "$BODYID" t.json)
for i in 1 2; do
  f=$(ls rec/thread-*.zst | sed -n "$((i + 1))p")
  n=$("$DUMP" "$f" "$(basename "$f" .zst | sed 's/thread-//')" |
      awk -v ids=" $ids " '$1 == "W" && index(ids, " " $2 " ") { s += $3 } END { print s + 0 }')
  expect "threads: WORK of thread $i's stream covers its own $BODY body executions" "$n" $(($BODY))
done
main_work=$("$DUMP" rec/thread-0.zst 0 | awk -v ids=" $ids " '$1 == "W" && index(ids, " " $2 " ") { s += $3 } END { print s + 0 }')
expect "threads: the main thread did none of the body" "$main_work" 0
# WORK before each synchronisation: the last events before EXIT of a worker are WORK
last=$("$DUMP" rec/thread-1.zst 1 | awk '$1 == "W" || $1 == "S" { k = $1 } $1 == "S" && $2 == "EXIT" { print prev } { if ($1 == "W" || $1 == "S") prev = $1 }')
expect "threads: a worker's pending work is written before its EXIT" "$last" W

# MEMSPY_MODE=count: the same counts, no accesses recorded
MEMSPY_MODE=count run_memspy n.json -- ./blocks 30 200 7
check "count mode: the same body count" n.json "$JQ_DEFS ($SEL).count == $BODY"
check "count mode: no reference recorded" n.json '.totals.reads + .totals.writes == 0'
finish
