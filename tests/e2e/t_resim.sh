#!/bin/sh
# Record once, simulate many: `memspy run --record DIR` keeps the event streams and
# `memspy resim DIR` re-simulates them. Same hierarchy -> exactly the recorded run; another
# hierarchy -> exactly a fresh run under it; a truncated stream -> an error naming thread and
# offset and an incomplete result; bad --record directories are refused before the program runs.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
cc_build blkmatmul "$SRC_DIR/examples/blkmatmul/blkmatmul.c"
cat >marker.c <<'C'
#include <stdio.h>
int main(void) { FILE *f = fopen("ran.marker", "w"); if (f) fclose(f); return 0; }
C
cc_build marker marker.c

# same JSON apart from the run metadata
same() {
    if [ "$(jq -S 'del(.run)' "$2")" = "$(jq -S 'del(.run)' "$3")" ]; then echo "ok   - $1"
    else echo "FAIL - $1"; FAILS=$((FAILS + 1)); fi
}

run_memspy rec.json --preset memspy92 --record rec -- ./blkmatmul 120 32
check "the recording holds meta.json, profile.raw and thread-0.zst" rec.json \
  "$(ls rec | tr '\n' ' ' | sed 's/ $//' | jq -R '. == "meta.json profile.raw thread-0.zst"')"
check "meta.json names the program, its arguments and the config" rec/meta.json \
  '.format == "memspy-recording" and .version == 6 and (.program | endswith("/blkmatmul")) and
   .args == ["./blkmatmul", "120", "32"] and (.config | test("preset=memspy92"))'

"$MEMSPY" resim --preset memspy92 --json same.json -o same.txt rec
same "resim under the recorded hierarchy equals the recorded run" rec.json same.json
check "the re-simulated run saw every reference" same.json '.totals.refs > 2000000 and (.run.incomplete | not)'
"$MEMSPY" resim --json default.json -o default.txt rec
same "without cache options resim uses the recorded hierarchy" rec.json default.json
check "one thread: the default is no multiprocessor replay order, no waiting analysis (timed is for threads)" \
  default.json '.interleave == null and .waiting == null'

run_memspy x86.json --preset x86 -- ./blkmatmul 120 32
"$MEMSPY" resim --preset x86 --interleave piped --json rx86.json -o rx86.txt rec
same "resim --preset x86 equals a fresh run under x86" x86.json rx86.json
# how each run was made, and its hierarchy in one line (report, diff)
check "a run says it was made by memspy run" rec.json '.run.origin == "run"'
check "a resim names the recording it re-simulated" rx86.json '.run.origin == "resim of rec"'
expect "the report's hierarchy line: preset, levels, origin" "$(grep '^Hierarchy:' rx86.txt)" \
  "Hierarchy: x86: L1 32K/8 L2 1M/16 L3 2M/16, 64B lines (memspy resim of rec)"
"$MEMSPY" diff rec.json.result x86.json.result >hdiff.txt
expect "diff shows both hierarchies" "$(grep -c '^     memspy92: L1 32K/dm, 64B lines (memspy run)$\|^     x86: L1 32K/8 L2 1M/16 L3 2M/16, 64B lines (memspy run)$' hdiff.txt)" 2
expect "diff warns that the hierarchies differ" "$(grep -c '^Warning: the two runs simulated different hierarchies' hdiff.txt)" 1
"$MEMSPY" diff --json rec.json.result x86.json.result >hdiff.json
check "diff --json: hierarchies and origins, and the difference flagged" hdiff.json \
  '.hierarchies_differ == true and .runs[0].hierarchy == "memspy92: L1 32K/dm, 64B lines" and .runs[1].origin == "run"'
"$MEMSPY" diff rec.json.result rec.json.result >sdiff.txt
expect "no warning for one hierarchy" "$(grep -c '^Warning' sdiff.txt)" 0
check "x86 and memspy92 differ (the hierarchy was really changed)" rx86.json \
  "$(jq .totals.misses rec.json) as \$m | .totals.misses != \$m and (.totals.levels | length) == 3"

"$MEMSPY" resim --preset memspy92 --interleave interleaved --json il.json -o il.txt rec
same "one thread: interleaved equals piped equals the fresh run" rec.json il.json
set +e
"$MEMSPY" resim --interleave sideways rec 2>il.err; st=$?
set -e
expect "an unknown --interleave mode is refused" "$st" 2

# a truncated stream: error naming thread and offset, the events before it simulated
cp -r rec cut
size=$(stat -c %s rec/thread-0.zst)
head -c $((size / 2)) rec/thread-0.zst >cut/thread-0.zst
set +e
"$MEMSPY" resim --preset memspy92 --json cut.json -o cut.txt cut 2>cut.err; st=$?
set -e
expect "a truncated stream exits 2" "$st" 2
if grep -q "thread 0: stream truncated at byte $((size / 2)) of cut/thread-0.zst" cut.err; then
    echo "ok   - the error names the thread and the byte offset"
else echo "FAIL - truncation message"; cat cut.err; FAILS=$((FAILS + 1)); fi
check "the result is stored and marked incomplete" cut.json \
  '.run.incomplete and (.run.incomplete_reason | test("thread 0: stream truncated"))'
check "the events before the cut were simulated (some, not all)" cut.json \
  "$(jq .totals.refs rec.json) as \$all | .totals.refs > 0 and .totals.refs < \$all"

# bad --record directories: refused with exit 2 before the program runs
refused() {   # refused DESC DIR
    rm -f ran.marker
    set +e
    "$MEMSPY" run --no-report --record "$2" -- ./marker 2>rd.err; st=$?
    set -e
    if [ "$st" = 2 ] && [ ! -e ran.marker ] && grep -q -- "--record" rd.err; then echo "ok   - $1"
    else echo "FAIL - $1 (exit $st, marker $( [ -e ran.marker ] && echo present || echo absent))"
         cat rd.err; FAILS=$((FAILS + 1)); fi
}
refused "another program's recording is refused" rec
mkdir other && echo data >other/notes.txt
refused "a non-empty directory that is no recording is refused" other
refused "a directory whose parent is missing is refused" missing/parent/rec
echo file >plainfile
refused "a regular file is refused" plainfile
if [ "$(id -u)" != 0 ]; then
    mkdir ro && chmod 555 ro
    refused "an unwritable directory is refused" ro
fi
rm -f ran.marker
"$MEMSPY" run --no-report --record mrec -- ./marker 2>/dev/null
"$MEMSPY" run --no-report --record mrec -- ./marker 2>/dev/null
expect "the same program may record again into its own recording" "$?" 0
finish
