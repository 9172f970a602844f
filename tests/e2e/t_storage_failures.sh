#!/bin/sh
# Nothing lost, nothing changed (docs/guarantees.md): output files are replaced only by
# complete ones, and a run the database cannot take (locked beyond the wait, read-only, run
# numbers exhausted) is kept in memspy-run-PID.result, named in the message, and loaded
# later by `memspy import` with the same statistics.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"

cc_build blk "$SRC_DIR/examples/blkmatmul/blkmatmul.c"
"$MEMSPY" run --preset memspy92 --no-report --result first.json -- ./blk 40 8 >/dev/null 2>&1
STALL=$(value first.json .totals.stall_cycles)

# A typo'd program: the files asked for keep their content, no temporary file is left.
echo keep >keep.json
echo keep >keep.txt
expect_fail "a missing program is refused" "./typo: program not found" \
    "$MEMSPY" run --json keep.json --result keep.json -o keep.txt -- ./typo
expect "--json file untouched" "$(cat keep.json)" keep
expect "-o file untouched" "$(cat keep.txt)" keep
expect "no temporary file left" "$(ls -a | grep -c '^\.keep' || true)" 0

# kept_file ERR: the path of the result file the message names.
kept_file() { sed -n "s/.*the run is kept in \([^:]*\): store it later.*/\1/p" "$1"; }

# import_and_compare DESCRIPTION DB FILE WANT_RUN: import FILE, it becomes run WANT_RUN with
# the statistics of the first run.
import_and_compare() {
    desc=$1 db=$2 file=$3 want=$4
    if [ -z "$file" ] || [ ! -s "$file" ]; then
        echo "FAIL - $desc: no kept file named"; FAILS=$((FAILS + 1)); return
    fi
    "$MEMSPY" import --db "$db" "$file" >import.out 2>&1 || { echo "FAIL - $desc: import: $(cat import.out)"; FAILS=$((FAILS + 1)); return; }
    expect "$desc: import names the run" "$(cat import.out)" "$file: stored as run $want in $db"
    "$MEMSPY" report "$want" --db "$db" --json >imported.json
    expect "$desc: imported run has the run's statistics" "$(value imported.json .totals.stall_cycles)" "$STALL"
}

# ---- a database locked by another process beyond the wait ----
cp memspy.db locked.db
mkfifo hold
sqlite3 locked.db <hold >locker.out 2>&1 &
LOCKER=$!
exec 3>hold
echo "BEGIN IMMEDIATE; DELETE FROM runs WHERE id < 0; SELECT 'locked';" >&3
for i in $(seq 50); do grep -q locked locker.out && break; sleep 0.1; done
grep -q locked locker.out || { echo "FAIL - could not lock the database"; exit 1; }
echo old >locked.result
set +e
MEMSPY_DB_TIMEOUT=1 "$MEMSPY" run --db locked.db --preset memspy92 --no-report --result locked.result \
    -- ./blk 40 8 >/dev/null 2>locked.err
rc=$?
set -e
expect "locked: exit status 2" "$rc" 2
ok_if "locked: the message says locked and how long it waited" \
    grep -q "cannot store the run in locked.db: the database is locked by another process (waited 1.0 s" locked.err
expect "locked: --result written all the same" "$(value locked.result .totals.stall_cycles)" "$STALL"
KEPT=$(kept_file locked.err)
case "$KEPT" in ./memspy-run-*.result) echo "ok   - locked: kept next to the database ($KEPT)" ;;
    *) echo "FAIL - locked: kept file '$KEPT'"; cat locked.err; FAILS=$((FAILS + 1)) ;; esac
# --db-timeout overrides the environment; 0 does not wait.
set +e
MEMSPY_DB_TIMEOUT=30 "$MEMSPY" run --db-timeout 0 --db locked.db --preset memspy92 --no-report -- ./blk 40 8 \
    >/dev/null 2>locked0.err
set -e
ok_if "--db-timeout 0 does not wait" grep -q "(waited 0.0 s" locked0.err
exec 3>&-
wait $LOCKER || true
import_and_compare "locked" locked.db "$KEPT" 2
expect_fail "a bad --db-timeout is refused" "--db-timeout: 'soon' is not a number of seconds" \
    "$MEMSPY" run --db-timeout soon -- ./blk 40 8

# ---- a read-only database ----
cp memspy.db ro.db
chmod 444 ro.db
set +e
"$MEMSPY" run --db ro.db --preset memspy92 --no-report --json ro.json -- ./blk 40 8 >/dev/null 2>ro.err
rc=$?
set -e
expect "read-only: exit status 2" "$rc" 2
ok_if "read-only: the message says read-only" grep -q "cannot store the run in ro.db: the database is read-only" ro.err
expect "read-only: --json written all the same" "$(value ro.json .totals.stall_cycles)" "$STALL"
KEPT=$(kept_file ro.err)
chmod 644 ro.db
import_and_compare "read-only" ro.db "$KEPT" 2

# ---- run numbers exhausted (SQLite would say "database or disk is full") ----
cp memspy.db full_ids.db
sqlite3 full_ids.db "UPDATE sqlite_sequence SET seq = 2147483647 WHERE name = 'runs'"
expect_fail "run numbers exhausted: named as such" "no run number left (run 2147483647 is taken" \
    "$MEMSPY" run --db full_ids.db --preset memspy92 --no-report -- ./blk 40 8
ok_if "run numbers exhausted: the run is kept" test -s "$(kept_file "$WORK/err")"

# ---- import refuses what is not a result, stores the rest ----
echo '{"format": "something else"}' >foreign.json
expect_fail "import refuses a foreign file" "foreign.json is not a memspy result file" \
    "$MEMSPY" import --db memspy.db foreign.json first.json
expect "import stored the good file all the same" "$("$MEMSPY" runs | awk '$1 ~ /^[0-9]+$/' | wc -l)" 2
finish
