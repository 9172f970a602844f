#!/bin/sh
# Loops of one basic block are counted by their trip counts in the counting copy (the trip count
# added to the block's counter once per execution of the loop: docs/plugin.md, "Loops of one
# block" and "Block counters"), with the counts exact:
# every loop's iterations asserted against the trip counts the program makes (progs/trip_loops.c:
# a loop run 5003 times, zero-trip once and 3 iterations 5000 times, so that the pairs fill
# the buffer; loops exited by a break-like test and by either of two tests; a nested loop whose
# inner loop is zero-trip), in the capture run and in the counting run, and every block's count
# equal between the two. At -O0 loops are in while-form (a header runs once more per entry:
# trips + entries) and the count stays in memory: no repeat words.
# matrix: gcc:-O0 gcc:-O2 gcc:-O3 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
need_plugin
P="$SRC_DIR/tests/e2e/progs/trip_loops.c"
cc_build trip "$P" 2>/dev/null
run_memspy c.json -- ./trip
MEMSPY_MODE=count run_memspy n.json -- ./trip
expect "the program's output (hash, searches' positions 500 + 0, bounded 300 + 400)" \
  "$(cat n.json.out)" "12710180394416810203 500 700"
expect "the same output in the counting run" "$(cat n.json.out)" "$(cat c.json.out)"
check "count mode: every block's count equals the capture run's" n.json \
  "[.blocks[].count] == $(jq -c '[.blocks[].count]' c.json)"
# line: the loop's first line in the source
line() { grep -n "$1" "$P" | head -1 | cut -d: -f1; }
REC=$(line 'i < n; i++) h = h \* 31')
SEARCH=$(line '^    while (a\[i\] != v) i++;')
BOUNDED=$(line 'for (i = 0; i < n && a')
OUTER=$(line 'long i = 0; i < r')
INNER=$(line 'long j = 0; j < c')
# iterations JSON LINE: a loop's header executions, summed over the compiler's copies of it
iters() { jq "[.loops[] | select(.line == $2) | .iterations] | add" "$1"; }
case "$OPT" in
-O0) rec=21010 search=502 bounded=702 outer=37 inner=1235 ;; # trips + entries
*)
    rec=16007 outer=35 inner=1200 bounded=701
    # the search loop's header: gcc rotates it to the increment (pos per call: 500 + 0),
    # clang's is the compare (pos + 1 per call: 501 + 1)
    case "$CC_NAME" in gcc) search=500 ;; *) search=502 ;; esac
    ;;
esac
for j in c n; do
    mode=capture
    [ $j = n ] && mode=count
    expect "$mode: rec's loop (1000 + 0 + 7 + 5000 x 3 = 16007 trips, 5003 entries)" "$(iters $j.json "$REC")" "$rec"
    expect "$mode: search's loop (exits at 500 and at 0)" "$(iters $j.json "$SEARCH")" "$search"
    expect "$mode: bounded's loop (exits by a[i] == v after 301 compares, by i == n after 400)" \
      "$(iters $j.json "$BOUNDED")" "$bounded"
    expect "$mode: nested's outer loop (30 + 5)" "$(iters $j.json "$OUTER")" "$outer"
    expect "$mode: nested's inner loop (30 x 40, then 5 x 0)" "$(iters $j.json "$INNER")" "$inner"
done
# the counting copies' trip counts, added to the block's counter in the thread's array at the
# loop's exits (ABI 5: `add %rT,(%rC,%rI,8)`, none of it in the program's own code)
repeats=$(objdump -d --no-show-raw-insn trip | awk '/^[0-9a-f]+ <.*>:$/ { f = $2 }
  /add +%r[a-z0-9]+,\(%r[a-z0-9]+,%r[a-z0-9]+,8\)/ && f ~ /^<(rec|search|nested)/ { n++ } END { print n + 0 }')
case "$OPT" in
-O0) expect "-O0: no trip count (the count stays in memory: block words)" "$repeats" 0 ;;
*) expect "the counting copies count rec's, search's and nested's inner loop by their trip counts (3 at least)" \
     "$([ "$repeats" -ge 3 ] && echo yes || echo "no: $repeats")" yes ;;
esac
finish
