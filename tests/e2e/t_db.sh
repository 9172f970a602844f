#!/bin/sh
# The run database: every run is stored and numbered; report/show/runs/fullname read it back
# losslessly; rename and combine are stored and carried over to later runs of the program;
# the git commit of the program's tree is kept.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"

cc_build blk "$SRC_DIR/examples/blkmatmul/blkmatmul.c"

# Two runs: numbered 1 and 2, announced on stderr.
"$MEMSPY" run --preset memspy92 --json r1.json --result r1.result --no-report -- ./blk 120 32 >/dev/null 2>r1.err
expect "first run announced" "$(cat r1.err)" "memspy: stored as run 1 in $MEMSPY_DB"
"$MEMSPY" run --preset memspy92 --json r2.json --no-report -- ./blk 120 32 >/dev/null 2>r2.err
expect "second run announced" "$(cat r2.err)" "memspy: stored as run 2 in $MEMSPY_DB"
[ ! -e memspy.result ] || { echo "FAIL - a result file was written without --result"; FAILS=$((FAILS + 1)); }

# The stored model reads back exactly as it was written.
"$MEMSPY" report 1 --json >db1.json
if cmp -s r1.json db1.json; then echo "ok   - run 1 reads back byte for byte"; else
    echo "FAIL - run 1 differs from its --json output"; diff r1.json db1.json | head -20; FAILS=$((FAILS + 1)); fi
"$MEMSPY" report --json >latest.json
if cmp -s r2.json latest.json; then echo "ok   - report without RUN is the latest run"; else
    echo "FAIL - report without RUN is not run 2"; FAILS=$((FAILS + 1)); fi
"$MEMSPY" report 1 >db1.lst
"$MEMSPY" report r1.result >file1.lst
if cmp -s db1.lst file1.lst; then echo "ok   - matrix of run 1 = matrix of its result file"; else
    echo "FAIL - matrices differ"; FAILS=$((FAILS + 1)); fi

# memspy runs: per run a line with the totals (formatted as in the other views) and the command,
# and a line with the hierarchy and how the run was made.
"$MEMSPY" runs >runs.lst
"$MEMSPY" report 1 >rep1.txt
expect "runs lists two runs" "$(awk '$1 ~ /^[0-9]+$/' runs.lst | wc -l)" 2
expect "run 1 line: the program and its arguments" "$(awk '$1 == 1 { print $7, $8, $9 }' runs.lst)" "./blk 120 32"
expect "run 1's stall as the report prints it" "$(awk '$1 == 1 { print $6 }' runs.lst)" \
    "$(grep '^Total Memory Stall Time' rep1.txt | awk '{ print $5 }')"
expect "run 1's hierarchy and origin on the next line" \
    "$(awk 'p { print; exit } $1 == 1 { p = 1 }' runs.lst | sed 's/^ *//')" "$(grep '^Hierarchy:' rep1.txt | sed 's/^Hierarchy: //')"

# fullname
expect "fullname of double*.Y" "$("$MEMSPY" fullname 1 'double*.Y')" "$(value r1.json '.data[] | select(.name == "double*.Y") | .full_name')"

# rename in run 1: run 1, run 2 and a later run 3 show the new name; the full name stays.
"$MEMSPY" rename 1 'double*.Y' MatY >/dev/null
"$MEMSPY" run --preset memspy92 --no-report -- ./blk 120 32 >/dev/null 2>&1
for run in 1 2 3; do
    "$MEMSPY" report $run --json >ren$run.json
    check "run $run: double*.Y is shown as MatY" ren$run.json \
        '[.data[] | select(.name == "MatY")] | length == 1 and (.[0].full_name | endswith(">double*.Y"))'
    check "run $run: no double*.Y left" ren$run.json '[.data[] | select(.name == "double*.Y")] | length == 0'
done
check "renamed bin keeps its counters" ren1.json \
    ".data[] | select(.name == \"MatY\") | .refs == $(value r1.json '.data[] | select(.name == "double*.Y") | .refs')"
"$MEMSPY" report 1 | grep -q ": MatY$" && echo "ok   - the matrix shows MatY" ||
    { echo "FAIL - the matrix does not show MatY"; FAILS=$((FAILS + 1)); }

# combine X and Z in run 2: sums exact in run 2 and the later run 3, run 1 untouched.
"$MEMSPY" combine 2 XZ 'double*.X' 'double*.Z' >/dev/null
for run in 2 3; do
    "$MEMSPY" report $run --json >comb$run.json
    for f in refs misses stall_cycles; do
        want=$(value r2.json "[.data[] | select(.name == \"double*.X\" or .name == \"double*.Z\") | .$f] | add")
        expect "run $run: XZ $f = X + Z" "$(value comb$run.json ".data[] | select(.name == \"XZ\") | .$f")" "$want"
    done
    check "run $run: totals unchanged" comb$run.json ".totals.stall_cycles == $(value r2.json .totals.stall_cycles)"
    check "run $run: replacement causes point at XZ" comb$run.json \
        '(.data[] | select(.name == "XZ") | .id) as $xz | [.bins[].levels[].evicted_by[] | select(.data == $xz)] | length > 0'
done
check "run 1 has no XZ (combined from run 2 on)" ren1.json '[.data[] | select(.name == "XZ")] | length == 0'
# show of the combination = show of the two bins of the saved result file.
# (the findings and their advice name the bins as each run shows them: left out of the comparison)
"$MEMSPY" show 2 --data XZ --code BlkMultiply | sed '1d; /^FINDINGS/,/^$/d; /^ADVICE/,/^$/d' >show_db.lst
"$MEMSPY" run --preset memspy92 --result r4.result --no-report -- ./blk 120 32 >/dev/null 2>&1
"$MEMSPY" show r4.result --data 'double*.X' --data 'double*.Z' --code BlkMultiply | sed '1d; /^FINDINGS/,/^$/d; /^ADVICE/,/^$/d' >show_file.lst
sed '/^Causes of Replacements/q' show_db.lst >show_db.head
sed '/^Causes of Replacements/q' show_file.lst >show_file.head
if cmp -s show_db.head show_file.head; then echo "ok   - show XZ = show X + Z (up to the causes)"; else
    echo "FAIL - show XZ differs from show X + Z"; diff show_db.head show_file.head || true; FAILS=$((FAILS + 1)); fi
share() { awk -v b="bin $2:" 'index($0, b) { sub("%", "", $NF); s += $NF } END { printf "%.1f", s }' "$1"; }
xz=$(share show_db.lst XZ)
x_plus_z=$(awk -v a="$(share show_file.lst 'double*.X')" -v b="$(share show_file.lst 'double*.Z')" 'BEGIN { printf "%.1f", a + b }')
awk -v a="$xz" -v b="$x_plus_z" 'BEGIN { d = a - b; exit !(d < 0.15 && d > -0.15) }' &&
    echo "ok   - XZ causes $xz% of the replacements = X + Z ($x_plus_z%)" ||
    { echo "FAIL - XZ causes $xz%, X + Z $x_plus_z%"; FAILS=$((FAILS + 1)); }

# Unknown run and bin names list the closest ones.
set +e
"$MEMSPY" report 9 2>err.lst; rc=$?
set -e
expect "unknown run exits 2" "$rc" 2
expect "unknown run lists the closest" "$(cat err.lst)" "memspy report: no run 9 in $MEMSPY_DB; closest: 4, 3, 2, 1"
set +e
"$MEMSPY" show 1 --data MatX 2>err.lst; rc=$?
set -e
expect "unknown bin exits 2" "$rc" 2
grep -q "closest: MatY" err.lst && echo "ok   - unknown bin suggests MatY" ||
    { echo "FAIL - unknown bin: $(cat err.lst)"; FAILS=$((FAILS + 1)); }

# The git commit of the program's tree.
mkdir src && cp "$SRC_DIR/examples/blkmatmul/blkmatmul.c" src/
(cd src && git init -q && git add blkmatmul.c &&
    git -c user.name=memspy -c user.email=memspy@example.org commit -q -m test)
cc_build src/blk src/blkmatmul.c
"$MEMSPY" run --preset memspy92 --no-report -- src/blk 60 16 >/dev/null 2>&1
expect "git commit of the program's tree" "$("$MEMSPY" report --json | jq -r .run.git_commit)" "$(git -C src rev-parse HEAD)"
expect "no git commit outside a tree" "$("$MEMSPY" report 1 --json | jq -r .run.git_commit)" null

# Every command has --help.
for cmd in runs show fullname rename combine report run; do
    "$MEMSPY" $cmd --help | grep -q -- "--db PATH" && echo "ok   - $cmd --help mentions --db" ||
        { echo "FAIL - $cmd --help"; FAILS=$((FAILS + 1)); }
done
finish
