#!/bin/sh
# `memspy whatif`: a recording of the program as it is, re-simulated with one data bin's layout
# changed, predicts a real run of the program changed that way within 10% (misses, stall,
# invalidations): the counters padded to a line each (false sharing gone), per-thread heap
# counters aligned to lines, crossint's b offset by half the cache (cross-interference gone),
# blkmatmul's Y with a padded leading dimension (self-interference cut; the blocks glibc maps
# after Y moved as glibc moves them, without hand-written offsets), a static matrix's rows
# padded. The self-interference advice is a runnable command: the row length from the recorded
# strides (blkmatmul) or DWARF (staticmat), the pad the best of a few re-simulated. Also: the
# predicted result is `memspy run --json`'s format, the report compares recorded and predicted,
# and bad changes are refused.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
need_openmp
export OMP_NUM_THREADS=4

# within10 DESC PREDICTED REAL: |predicted - real| <= 10% of real
within10() {
    if awk -v p="$2" -v r="$3" 'BEGIN { d = p - r; if (d < 0) d = -d; exit !(d <= 0.1 * r) }'; then
        echo "ok   - $1 (predicted $2, real $3)"
    else
        echo "FAIL - $1: predicted $2, real $3"
        FAILS=$((FAILS + 1))
    fi
}
# compare NAME PRED REAL [DATA]: the totals of the prediction against the real run, and the
# misses of DATA when given (the bin that holds most of them: where the changed bin's few
# misses are decided by which cache sets the real allocator picked, only the totals are
# compared)
compare() {
    within10 "$1: L1 misses" "$(value "$2" .totals.misses)" "$(value "$3" .totals.misses)"
    within10 "$1: memory stall" "$(value "$2" .totals.stall_cycles)" "$(value "$3" .totals.stall_cycles)"
    [ $# -lt 4 ] || within10 "$1: misses of $4" \
        "$(jq --arg d "$4" '[.data[] | select(.name == $d) | .misses] | add' "$2")" \
        "$(jq --arg d "$4" '[.data[] | select(.name == $d) | .misses] | add' "$3")"
}

# 1. False sharing (examples/counters): pad each long counter to a 64-byte line.
cc_build counters "$SRC_DIR/examples/counters/counters.c" -fopenmp
run_memspy packed.json --preset memspy92 --record crec -- ./counters packed 100000 2
run_memspy padded.json --preset memspy92 -- ./counters padded 100000 2
"$MEMSPY" whatif crec --pad 'long*.counts=64' --json cpred.json >cpred.txt
compare "counters --pad long*.counts=64" cpred.json padded.json
check "counters: the recording had > 10000 invalidations of counts" packed.json \
  '[.data[] | select(.name == "long*.counts") | .invalidations.false_sharing] | add > 10000'
check "counters: the prediction has none left, as the padded program" cpred.json \
  '([.data[] | select(.name == "long*.counts") | .invalidations | .true_sharing + .false_sharing] | add) == 0'
check "counters: the real padded program has none either" padded.json \
  '([.data[] | select(.name == "long*.counts") | .invalidations | .true_sharing + .false_sharing] | add) == 0'
check "the prediction is memspy run's JSON, its origin naming the change" cpred.json \
  '.format == "memspy-result" and .run.origin == "whatif of crec: --pad '"'long*.counts=64'"'" and .nprocs == 4
   and ([.findings[] | select(.kind == "false-sharing")] | length) == 0'
expect "the report's header" "$(sed -n 1p cpred.txt)" "WHAT IF: --pad 'long*.counts=64'"
expect "the report says where counts went" \
  "$(grep -c '^  long\*\.counts: 64 bytes at 0x[0-9a-f]*, 8 elements of 8 bytes -> 0x[0-9a-f]*, every 64 bytes$' cpred.txt)" 1
expect "the report compares the invalidations" \
  "$(grep -c '^  Invalidations received  *[0-9.M]*  *0  *-100\.0%$' cpred.txt)" 2
# (the chunks allocated after it above it move up as much: int*.samples under clang, none under gcc)
expect "whatif says how the padded counters' arena chunk grows" \
  "$(tr '\n' ' ' <cpred.txt | tr -s ' ' | grep -c "long\*\.counts's arena chunk grows from [0-9]* to 528 bytes")" 1
expect "a prediction is not stored as a run" "$("$MEMSPY" runs | grep -c whatif || true)" 0

# 2. Per-thread counters in allocations of their own: --align each allocation to a line.
cc_build heapcounters "$SRC_DIR/tests/e2e/progs/heapcounters.c" -fopenmp
# In the timed order (the default) and in ccSIM's interleaved one. The program puts 4 counters
# on 2 lines whatever the environment (it prints shared=2; the environment's contents, e.g.
# make's MAKEFLAGS, once decided 1 or 2 lines under clang: 7918-21649 timed, 13333-26665
# interleaved; t_timed_load). Timed, the 26666 bumps hand a line over at most of them (gcc 22107-22173,
# clang 21295-21603 false-sharing invalidations at -O2 over six environments, t_timed_load);
# interleaved, at every bump (26665). The x86 preset, not
# memspy92: in a direct-mapped L1 the counters' lines conflict with the stack, whose place
# moves with the environment's size.
for order in timed interleaved; do
    run_memspy "hpacked-$order.json" --interleave $order --record "hrec-$order" -- ./heapcounters packed
    run_memspy "haligned-$order.json" --interleave $order -- ./heapcounters aligned
    "$MEMSPY" whatif "hrec-$order" --align 'c[]=64' --json "hpred-$order.json" >"hpred-$order.txt"
    expect "heap counters ($order): the programs' layouts (2 lines shared, none)" \
      "$(grep -ho 'shared=[0-9]*' "hpacked-$order.json.out" "haligned-$order.json.out" | tr '\n' ' ')" "shared=2 shared=0 "
    check "heap counters ($order): the packed allocations false-share (> 1500, > 99% of c[]'s invalidations)" \
      "hpacked-$order.json" '[.data[] | select(.name == "c[]") | .invalidations] |
       (map(.false_sharing) | add) as $f | (map(.true_sharing) | add) as $t | $f > 1500 and $f > 0.99 * ($f + $t)'
    check "heap counters ($order): > 95% of c[]'s misses are coherence misses" "hpacked-$order.json" \
      "$JQ_DEFS"' datacells("c[]") | sum(.causes.invalidation) > 0.95 * sum(.misses)'
    compare "heap counters ($order) --align c[]=64" "hpred-$order.json" "haligned-$order.json"
    check "heap counters ($order): no false sharing predicted" "hpred-$order.json" \
      '[.data[] | select(.name == "c[]") | .invalidations.false_sharing] | add == 0'
    expect "each allocation is an element, found where the accesses start ($order)" \
      "$(tr '\n' ' ' <"hpred-$order.txt" | grep -c '4 allocations of 8 bytes -> 0x[0-9a-f]*,  *every 64 bytes')" 1
done

# 3. Cross-interference (examples/crossint): b offset by half the cache, as 'crossint pad' does.
cc_build crossint "$SRC_DIR/examples/crossint/crossint.c"
run_memspy x.json --preset memspy92 --record xrec -- ./crossint 200
run_memspy xpad.json --preset memspy92 -- ./crossint pad 200
"$MEMSPY" whatif xrec --offset 'double*.b=16K' --json xpred.json >xpred.txt
compare "crossint --offset double*.b=16K" xpred.json xpad.json 'double*.b'
check "crossint: the recording's misses are > 10x the prediction's" x.json \
  ".totals.misses > 10 * $(value xpred.json .totals.misses)"
# moving a bin without changing its offset in the cache changes nothing
"$MEMSPY" whatif xrec --offset 'double*.b=1M' --json xsame.json >/dev/null
check "an offset of 1 MiB (a multiple of the cache) predicts the recorded misses exactly" xsame.json \
  ".totals.misses == $(value x.json .totals.misses) and .totals.stall_cycles == $(value x.json .totals.stall_cycles)"

# 4. Self-interference (examples/blkmatmul): Y's rows, 2360 bytes, padded to 2560 (LD 320).
cc_build blkmatmul "$SRC_DIR/examples/blkmatmul/blkmatmul.c"
cc_build blkmatmul_ld "$SRC_DIR/examples/blkmatmul/blkmatmul_ld.c"
run_memspy b.json --preset memspy92 --record brec -- ./blkmatmul 295 64
run_memspy bld.json --preset memspy92 -- ./blkmatmul_ld 295 64 320
grep -q "N=295 B=64 LD=320 trace=310695.057851" bld.json.out || { echo "FAIL - blkmatmul_ld output"; FAILS=$((FAILS + 1)); }
"$MEMSPY" whatif brec --row 'double*.Y=2360' --pad 'double*.Y=2360+200' --json bpred.json >bpred.txt
# glibc maps blocks of 128 KiB and more top-down: Y, grown from 170 to 185 pages, starts 15
# pages (61440 bytes) lower, and so does Z, mapped after it; whatif moves both by itself
# (docs/whatif.md, "What the allocator moves")
compare "blkmatmul --row double*.Y=2360 --pad double*.Y=2560" bpred.json bld.json 'double*.Z'
expect "whatif says what the allocator moved" "$(tr '\n' ' ' <bpred.txt | tr -s ' ' | grep -cF \
  "the allocator moves double*.Y and double*.Z by -61440 bytes, as glibc would: double*.Y's mapping grows from 170 to 185 pages")" 1
# ... exactly the prediction of the moves written by hand with the allocator's left out
"$MEMSPY" whatif brec --no-allocator --row 'double*.Y=2360' --pad 'double*.Y=2560' --offset 'double*.Y=-61440' \
  --offset 'double*.Z=-61440' --json bhand.json >bhand.txt
check "blkmatmul: the allocator's moves predict what the hand-written offsets predict" bpred.json \
  ".totals.misses == $(value bhand.json .totals.misses) and .totals.stall_cycles == $(value bhand.json .totals.stall_cycles)"
expect "--no-allocator moves nothing but the named bin" "$(grep -c 'the allocator moves' bhand.txt || true)" 0
# Y's own misses do not depend on where X and Z went: --pad alone predicts them too
"$MEMSPY" whatif brec --no-allocator --row 'double*.Y=2360' --pad 'double*.Y=2560' --json bnoalloc.json >/dev/null
within10 "blkmatmul --pad alone (--no-allocator): misses of double*.Y" \
  "$(jq '[.data[] | select(.name == "double*.Y") | .misses] | add' bnoalloc.json)" \
  "$(jq '[.data[] | select(.name == "double*.Y") | .misses] | add' bld.json)"
check "blkmatmul: the padded leading dimension more than halves the misses" b.json \
  ".totals.misses > 2 * $(value bpred.json .totals.misses)"
expect "Y's rows are the elements" \
  "$(grep -c '^  double\*\.Y: 696200 bytes at 0x[0-9a-f]*, 295 elements of 2360 bytes -> 0x[0-9a-f]*, every$' bpred.txt)" 1

# 4b. Where the allocator's move decides the outcome (tests/e2e/progs/mmapmove.c): A padded by
# 16 KiB moves B, mapped after it, half the cache down, onto X's sets: the real padded program
# has 4x (gcc) to 6x (clang) the misses; moving only A predicts no change.
cc_build mmapmove "$SRC_DIR/tests/e2e/progs/mmapmove.c"
cc_build mmapmove_ld "$SRC_DIR/tests/e2e/progs/mmapmove.c" -DLD=264
run_memspy m.json --preset memspy92 --record mrec -- ./mmapmove
run_memspy mld.json --preset memspy92 -- ./mmapmove_ld
"$MEMSPY" whatif mrec --row 'double*.A=2048' --pad 'double*.A=2112' --json mpred.json >mpred.txt
"$MEMSPY" whatif mrec --no-allocator --row 'double*.A=2048' --pad 'double*.A=2112' --json mnoalloc.json >/dev/null
compare "mmapmove --pad double*.A=2112 (B moved 16 KiB down as glibc moves it)" mpred.json mld.json 'double*.B'
check "mmapmove: the real padded program has over 4x the misses" mld.json ".totals.misses > 4 * $(value m.json .totals.misses)"
check "mmapmove: moving only A (--no-allocator) would have predicted under half the real misses" mnoalloc.json \
  ".totals.misses * 2 < $(value mld.json .totals.misses)"
expect "mmapmove: whatif says it moved B" "$(tr '\n' ' ' <mpred.txt | tr -s ' ' | grep -cF \
  "the allocator moves double*.A and double*.B by -16384 bytes, as glibc would: double*.A's mapping grows from 129 to 133 pages")" 1

# 5. Advice: each finding's fix, and for a layout fix the whatif command that checks it; run
# as advised (on a resim, the command names the recording), it predicts the fixed program.
check "counters: the advice pads the counters to a coherence unit each" packed.json \
  '.findings[0] | .kind == "false-sharing" and (.advice | startswith("pad each element of long*.counts to 64 bytes"))
   and .whatif == "memspy whatif REC --pad '"'long*.counts=64'"'"'
# the row length measured from the recorded references (Y's pieces start 2360 bytes apart,
# 512 bytes of each used at a time), three row lengths re-simulated, the best advised
check "blkmatmul: the advice pads Y's rows to 2560 bytes, the best of three re-simulated" b.json \
  '.findings[0].whatif == "memspy whatif REC --row '"'double*.Y=2360' --pad 'double*.Y=2560'"'"
   and ([.data[] | select(.name == "double*.Y") | .row | .bytes == 2360 and .pad == 2560 and .pads_tried == 3]
   == [true])'
check "a prediction's advice adds to its changes" bpred.json \
  '[.findings[] | select(.data_name == "double*.Z") | .whatif][0] == "memspy whatif brec --row '"'double*.Y=2360' --pad 'double*.Y=2360+200' --offset 'double*.Z=16384'"'"'
# a prediction's own advice is a runnable command too: Y, still self-interfering after its pad
# (17% of its replacements conflicts), gets its rows from the --row change and the recorded
# strides (512-byte pieces), and another row length than the one predicted (no ROWBYTES, no
# "a run with --record" in a prediction of a recording)
check "a prediction's advice on Y pads its rows again, by another candidate" bpred.json \
  '.findings[0] | .kind == "self-interference" and .data_name == "double*.Y" and .whatif == "memspy whatif brec --row '"'double*.Y=2360' --pad 'double*.Y=2360+200' --row 'double*.Y=2360' --pad 'double*.Y=3584'"'"'
check "no placeholder in a prediction's advice" bpred.json \
  '[.findings[] | select((.whatif // "" | test("ROWBYTES|ELEMBYTES|REC ")) or (.advice | contains("a run with --record")))] == []'
cmd=$(jq -r '.findings[0].whatif' bpred.json)
eval "\"\$MEMSPY\" ${cmd#memspy } --json bpred2.json" >/dev/null
check "the prediction's advice runs: Y padded to 3584 bytes predicts fewer misses than the recording" bpred2.json \
  ".totals.misses < $(value b.json .totals.misses)"
grep -q "^ADVICE$" b.json.txt && grep -q "^     check it: memspy whatif REC --row 'double\*\.Y=2360' --pad 'double\*\.Y=2560'$" b.json.txt &&
  echo "ok   - the text report gives the advice after the findings" ||
  { echo "FAIL - text advice"; FAILS=$((FAILS + 1)); }
# the advice's REC is the user's recording
for run in packed:crec x:xrec b:brec; do
  json=${run%%:*}.json rec=${run#*:}
  cmd=$(jq -r '.findings[0].whatif' "$json")
  case "$cmd" in "memspy whatif REC "*) echo "ok   - $json: the advice's command ($cmd)" ;;
    *) echo "FAIL - $json: advice command '$cmd'"; FAILS=$((FAILS + 1)); continue ;; esac
  eval "\"\$MEMSPY\" whatif $rec ${cmd#memspy whatif REC } --json $rec.adv.json" >/dev/null
done
compare "counters as advised" crec.adv.json padded.json
compare "crossint as advised (a offset by half the cache, not b)" xrec.adv.json xpad.json
compare "blkmatmul as advised (LD 320)" brec.adv.json bld.json
check "blkmatmul as advised predicts what the check re-simulated" brec.adv.json \
  ".totals.stall_cycles == $(jq '.data[] | select(.name == "double*.Y") | .row.pad_stall' b.json)"

# 6. Self-interference in an array of static dimensions: the row length from DWARF (A[256][256]
# of doubles: 2048 bytes), the pad that spreads the rows over the sets (2112 bytes: 33 lines)
cc_build staticmat "$SRC_DIR/tests/e2e/progs/staticmat.c"
cc_build staticmat_ld "$SRC_DIR/tests/e2e/progs/staticmat.c" -DLD=264
run_memspy s.json --preset memspy92 --record srec -- ./staticmat
run_memspy sld.json --preset memspy92 -- ./staticmat_ld
grep -q "^LD=264 sum=" sld.json.out || { echo "FAIL - staticmat_ld output"; FAILS=$((FAILS + 1)); }
check "staticmat: the advice pads A's rows from 2048 to 2112 bytes (2 re-simulated)" s.json \
  '.findings[0].kind == "self-interference" and .findings[0].whatif == "memspy whatif REC --row '"'A=2048' --pad 'A=2112'"'"
   and ([.data[] | select(.name == "A") | .row | .bytes == 2048 and .pad == 2112 and .pads_tried == 2] == [true])'
cmd=$(jq -r '.findings[0].whatif' s.json)
eval "\"\$MEMSPY\" whatif srec ${cmd#memspy whatif REC } --json srec.adv.json" >/dev/null
compare "staticmat as advised (LD 264)" srec.adv.json sld.json A
# without a recording the advice is the same command, unchecked
"$MEMSPY" run --preset memspy92 --json snorec.json -o /dev/null -- ./staticmat >/dev/null 2>&1
check "staticmat: unrecorded, the same pad is advised (the first that spreads the rows)" snorec.json \
  '.findings[0].whatif == "memspy whatif REC --row '"'A=2048' --pad 'A=2112'"'" and (.findings[0].advice | contains("also worth trying: 2240 bytes"))'

# 7. Self-interference without rows (bzip2's sort array, lead's note): a one-dimensional array
# walked at random gets no padding advice. 64 KiB: 25% of its replacements are conflicts, the
# loops are advised (unrecorded: with the hint that a recording finds rows); 40 KiB: 63%
# conflicts, recorded: its references have no dominant stride, so no rows to pad either.
cc_build randwalk "$SRC_DIR/tests/e2e/progs/randwalk.c"
"$MEMSPY" run --preset memspy92 --json rw64.json -o /dev/null -- ./randwalk 64 >/dev/null 2>&1
"$MEMSPY" run --preset memspy92 --json rw64r.json -o /dev/null --record rw64rec -- ./randwalk 64 >/dev/null 2>&1
"$MEMSPY" run --preset memspy92 --json rw40r.json -o /dev/null --record rw40rec -- ./randwalk 40 >/dev/null 2>&1
check "randwalk 64 KiB: self-interference, mostly capacity: the loops, no pad, a recording suggested" rw64.json \
  '.findings[0] | .kind == "self-interference" and .whatif == null
   and (.advice | startswith("unsigned int*.a does not stay in the cache") and contains("a run with --record finds its rows"))'
check "randwalk 64 KiB recorded: no rows found (data row bytes 0), the loops advised" rw64r.json \
  '(.findings[0] | .whatif == null and (.advice | startswith("unsigned int*.a does not stay in the cache"))
    and (.advice | contains("--record") | not))
   and ([.data[] | select(.name == "unsigned int*.a") | .row.bytes] == [0])'
check "randwalk 40 KiB recorded: mostly conflicts, but no rows to pad" rw40r.json \
  '.findings[0] | .whatif == null and (.advice | startswith("unsigned int*.a evicts itself mostly through conflicts"))
   and (.advice | contains("has no rows to pad"))'

# Refused: an unknown bin (with the closest names), a pad without a known element size, a pad
# smaller than the element, an alignment that is no power of two, no change at all.
expect_fail "an unknown bin is refused" "closest" "$MEMSPY" whatif brec --pad 'double*.Q=16'
expect_fail "a pad without element size asks for --row" "--row stack:main=BYTES" \
  "$MEMSPY" whatif brec --pad 'stack:main=128'
expect_fail "a pad below the element size is refused" "less than its element's 2360" \
  "$MEMSPY" whatif brec --row 'double*.Y=2360' --pad 'double*.Y=64'
expect_fail "--align needs a power of two" "power of two" "$MEMSPY" whatif brec --align 'double*.Y=48'
expect_fail "no change at all is refused" "no change given" "$MEMSPY" whatif brec --row 'double*.Y=2360'
expect_fail "a directory that is no recording is refused" "is not a recording" "$MEMSPY" whatif . --pad 'x=8'
finish
