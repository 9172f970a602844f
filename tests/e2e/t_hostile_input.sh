#!/bin/sh
# Hostile input (docs/guarantees.md): control characters in a program's file name, source
# name and arguments, or in a foreign result file, never reach the terminal raw (run, report,
# runs, show, diff, fullname, annotate); readers refuse what they cannot trust, with the
# cause and exit status 2: /dev/zero (size limit), white space, an impossible hierarchy
# ("line": 0), a non-canonical stream name (thread-01.zst), a truncated raw profile.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"

ESC=$(printf '\033')
BEL=$(printf '\007')
# no_controls DESCRIPTION FILE...: none of the files holds an ESC or BEL byte.
no_controls() {
    desc=$1; shift
    if cat "$@" | grep -q "[$ESC$BEL]"; then
        echo "FAIL - $desc: raw control characters in the output"
        cat -v "$@" | grep -n '\^\[\|\^G' | head -5 | sed 's/^/       /'
        FAILS=$((FAILS + 1))
    else
        echo "ok   - $desc"
    fi
}

# A program whose file name, source file name and argument carry terminal escapes (set the
# window title, ring the bell).
EVIL="evil${ESC}]0;owned${BEL}"
SRC="src${ESC}[31m.c"
cat >"$SRC" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
static double a[8192];
int main(int argc, char **argv)
{
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 8192; i += 8) a[i] += r;
    printf("%d %g\n", argc, a[8]);
    return 0;
}
CEOF
cc_build "$EVIL" "$SRC"
"$MEMSPY" run --preset memspy92 -o run.txt --json evil.json -- "./$EVIL" "arg${ESC}[2J" >run.out 2>run.err
no_controls "run: the matrix and messages" run.txt run.err
grep -q 'evil\\x1b]0;owned\\x07' run.txt && echo "ok   - run: the program name is shown escaped" ||
    { echo "FAIL - run: program name not shown escaped"; FAILS=$((FAILS + 1)); }
[ "$(value evil.json .run.program)" = "./$EVIL" ] && echo "ok   - run: the JSON keeps the name as it is" ||
    { echo "FAIL - run: the JSON changed the name"; FAILS=$((FAILS + 1)); }
"$MEMSPY" runs >runs.txt 2>&1
no_controls "runs" runs.txt
"$MEMSPY" report >report.txt 2>&1
no_controls "report" report.txt
"$MEMSPY" annotate "$SRC" >annotate.txt 2>&1 || true
no_controls "annotate" annotate.txt
grep -q 'src\\x1b\[31m.c' annotate.txt && echo "ok   - annotate: the file name is shown escaped" ||
    { echo "FAIL - annotate: file name not shown escaped"; FAILS=$((FAILS + 1)); }

# A foreign result file: every printed string field carries escapes.
jq --arg e "$ESC]0;owned$BEL" '.run.program = ("p" + $e) | .run.argv = ["p" + $e, "x" + $e]
    | .code[0].name = ("f" + $e) | .data[0].name = ("d" + $e) | .data[0].full_name = ("main>d" + $e)
    | .files[0] = ("file" + $e) | .run.notes = ["n" + $e] | .run.incomplete = true
    | .run.incomplete_reason = ("r" + $e)' evil.json >foreign.json
CODE0=$(jq -r '.code[0].name' foreign.json)
DATA0=$(jq -r '.data[0].name' foreign.json)
"$MEMSPY" report foreign.json >f_report.txt 2>&1 || true
"$MEMSPY" show foreign.json --code "$CODE0" --data "$DATA0" >f_show.txt 2>&1 || true
"$MEMSPY" fullname foreign.json "$DATA0" >f_fullname.txt 2>&1 || true
"$MEMSPY" fullname foreign.json "nomatch${ESC}[2J" >f_nomatch.txt 2>&1 || true
"$MEMSPY" diff foreign.json evil.json >f_diff.txt 2>&1 || true
"$MEMSPY" report "nosuch${ESC}[2J.json" >f_missing.txt 2>&1 || true
for f in report show fullname nomatch diff missing; do no_controls "foreign result: $f" f_$f.txt; done
grep -q 'main>d\\x1b]0;owned\\x07' f_fullname.txt && echo "ok   - fullname prints the escaped name" ||
    { echo "FAIL - fullname: $(cat -v f_fullname.txt)"; FAILS=$((FAILS + 1)); }
grep -q "^Note: n" f_report.txt && grep -q "INCOMPLETE: r" f_report.txt &&
    echo "ok   - report shows the notes and reason (escaped)" || { echo "FAIL - notes/reason not shown"; FAILS=$((FAILS + 1)); }

# ---- readers refuse what they cannot trust ----
start=$(date +%s)
expect_fail "/dev/zero: refused at the size limit" "/dev/zero is not a memspy result file: larger than the 256 MiB" \
    "$MEMSPY" report /dev/zero
ok_if "/dev/zero: refused within 20 s" test $(($(date +%s) - start)) -lt 20
head -c 100000 /dev/zero | tr '\0' ' ' >spaces.json
expect_fail "white space is not called empty" "spaces.json is not a memspy result file (it holds only white space)" \
    "$MEMSPY" report spaces.json
: >empty.json
expect_fail "an empty file is called empty" "empty.json is not a memspy result file (it is empty)" "$MEMSPY" report empty.json
jq '.config.levels[0].line = 0' evil.json >line0.json
expect_fail "a 0-byte line is refused" "line0.json: corrupt result file: field config: impossible hierarchy: L1 line 0" \
    "$MEMSPY" report line0.json
expect_fail "import refuses it too" "impossible hierarchy" "$MEMSPY" import line0.json

# A recording: a non-canonical stream name, then a truncated raw profile.
cc_build blk "$SRC_DIR/examples/blkmatmul/blkmatmul.c"
"$MEMSPY" run --preset memspy92 --no-report --record rec -- ./blk 40 8 >/dev/null 2>&1
cp -r rec rec01
cp rec01/thread-0.zst rec01/thread-00.zst
expect_fail "thread-00.zst is refused with its name" "unexpected stream file 'thread-00.zst'" \
    "$MEMSPY" resim --no-report rec01
cp -r rec rec_cut
size=$(stat -c %s rec/profile.raw)
head -c $((size - 40)) rec/profile.raw >rec_cut/profile.raw
expect_fail "a truncated raw profile: resim exits 2 and says so" "rec_cut/profile.raw is truncated" \
    "$MEMSPY" resim --no-report --json cut.json rec_cut
check "the truncated run is kept, marked incomplete" cut.json '.run.incomplete == true'
"$MEMSPY" resim --no-report rec >/dev/null 2>&1 && echo "ok   - the intact recording replays" ||
    { echo "FAIL - intact recording"; FAILS=$((FAILS + 1)); }
finish
