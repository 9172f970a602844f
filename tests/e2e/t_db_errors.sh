#!/bin/sh
# The run database under stress: four runs at once all land; a corrupt, foreign or newer
# database is refused with a clear message before the program starts and is left untouched;
# a read-only database still serves reports, and `run` says it cannot store the run.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"

cc_build blk "$SRC_DIR/examples/blkmatmul/blkmatmul.c"

# Four runs at once into a new database: all stored, numbered 1..4, each readable.
for i in 1 2 3 4; do
    "$MEMSPY" run --db conc.db --preset memspy92 --no-report -- ./blk 80 16 >/dev/null 2>conc$i.err &
done
wait
"$MEMSPY" runs --db conc.db >runs.lst
expect "4 concurrent runs listed" "$(awk '$1 ~ /^[0-9]+$/' runs.lst | wc -l)" 4
expect "numbered 1 to 4" "$(awk '$1 ~ /^[0-9]+$/ { print $1 }' runs.lst | sort -n | tr '\n' ' ')" "1 2 3 4 "
expect "each announced its own number" "$(cat conc*.err | sed 's/.*run \([0-9]*\) in.*/\1/' | sort -n | tr '\n' ' ')" "1 2 3 4 "
for i in 1 2 3 4; do
    "$MEMSPY" report $i --db conc.db --json >c$i.json
done
expect "the four runs have the same statistics" "$(for i in 1 2 3 4; do jq .totals.stall_cycles c$i.json; done | sort -u | wc -l)" 1

# A run to damage copies of.
"$MEMSPY" run --preset memspy92 --no-report -- ./blk 80 16 >/dev/null 2>&1
STARTED="$WORK/started"
printf '#!/bin/sh\ntouch %s\n' "$STARTED" >prog.sh
chmod +x prog.sh

# refused DESCRIPTION FILE MESSAGE: every command refuses FILE with MESSAGE, `run` before the
# program starts, and the file is not changed.
refused() {
    what=$1 db=$2 msg=$3
    cp "$db" "$db.orig"
    expect_fail "$what: run" "$msg" "$MEMSPY" run --db "$db" -- ./prog.sh
    [ ! -e "$STARTED" ] || { echo "FAIL - $what: the program was started"; FAILS=$((FAILS + 1)); }
    expect_fail "$what: report" "$msg" "$MEMSPY" report --db "$db"
    expect_fail "$what: runs" "$msg" "$MEMSPY" runs --db "$db"
    expect_fail "$what: rename" "$msg" "$MEMSPY" rename --db "$db" 1 a b
    cmp -s "$db" "$db.orig" && echo "ok   - $what: file unchanged" ||
        { echo "FAIL - $what: the file was changed"; FAILS=$((FAILS + 1)); }
    if [ "${4:-}" != may_leave_wal ]; then
        [ "$(ls "$db"*)" = "$(printf '%s\n%s' "$db" "$db.orig")" ] && echo "ok   - $what: no file made next to it" ||
            { echo "FAIL - $what: files were written next to it: $(ls "$db"*)"; FAILS=$((FAILS + 1)); }
    fi
}

printf 'these are not the runs you are looking for\n%.0s' 1 2 3 4 5 6 7 8 9 10 >text.db
refused "text file" text.db "text.db is not a memspy database"

head -c 100 /dev/urandom >random.db
refused "random bytes" random.db "random.db is not a memspy database"

# Newer: schema 99 in the header's user_version (bytes 60..63, big-endian).
cp memspy.db newer.db
printf '\000\000\000\143' | dd of=newer.db bs=1 seek=60 conv=notrunc 2>/dev/null
refused "newer schema" newer.db "newer.db was written by a newer memspy (schema 99)"

# Corrupt: a real database cut short.
head -c 5000 memspy.db >cut.db
# (Reading a WAL database needs its -shm/-wal files: SQLite may leave them, empty.)
refused "truncated database" cut.db "cut.db is damaged or unreadable: database disk image is malformed" may_leave_wal

if command -v sqlite3 >/dev/null; then
    sqlite3 foreign.db 'CREATE TABLE accounts (id INTEGER, owner TEXT); INSERT INTO accounts VALUES (1, "x");'
    refused "another program's database" foreign.db "foreign.db is not a memspy database"
fi

# Read-only database file: reports work; run runs the program, prints the matrix, writes the
# files it was asked for, then fails without storing anything, keeping the run in a file
# (tests/e2e/t_storage_failures.sh imports it).
cp memspy.db ro.db
chmod 444 ro.db
"$MEMSPY" runs --db ro.db >ro_runs.lst && expect "runs on a read-only file" "$(awk '$1 ~ /^[0-9]+$/' ro_runs.lst | wc -l)" 1
"$MEMSPY" report --db ro.db >ro_report.lst && grep -q "^Total Memory Stall Time" ro_report.lst &&
    echo "ok   - report on a read-only file" || { echo "FAIL - report on a read-only file"; FAILS=$((FAILS + 1)); }
"$MEMSPY" show 1 --db ro.db --data 'double*.Y' >/dev/null && echo "ok   - show on a read-only file" ||
    { echo "FAIL - show on a read-only file"; FAILS=$((FAILS + 1)); }
expect_fail "run on a read-only file" "memspy run: cannot store the run in ro.db: " \
    "$MEMSPY" run --db ro.db --preset memspy92 -o ro_matrix.lst --result ro.result -- ./blk 80 16
grep -q "N=80 B=16" "$WORK/out" && grep -q "^Total Memory Stall Time" ro_matrix.lst &&
    echo "ok   - the program ran and its matrix was printed" ||
    { echo "FAIL - no program output or matrix"; FAILS=$((FAILS + 1)); }
[ -s ro.result ] && echo "ok   - the result file was written" || { echo "FAIL - no ro.result"; FAILS=$((FAILS + 1)); }
grep -q "the run is kept in ./memspy-run-" "$WORK/err" && echo "ok   - the run was kept" ||
    { echo "FAIL - the run was not kept"; FAILS=$((FAILS + 1)); }
expect_fail "rename on a read-only file" "cannot record the change in ro.db" "$MEMSPY" rename --db ro.db 'double*.Y' Y
chmod 644 ro.db
expect "still one run" "$("$MEMSPY" runs --db ro.db | awk '$1 ~ /^[0-9]+$/' | wc -l)" 1

# Read-only directory (as an unprivileged user: root writes anywhere).
mkdir rodir
cp memspy.db rodir/memspy.db
chmod 755 "$WORK"
chmod 555 rodir
if [ "$(id -u)" = 0 ]; then AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"; else AS_USER=""; fi
if [ -n "$AS_USER" ] && ! $AS_USER true 2>/dev/null; then
    echo "skip - read-only directory: cannot drop privileges"
else
    $AS_USER "$MEMSPY" runs --db rodir/memspy.db >rodir_runs.lst 2>rodir.err &&
        expect "runs in a read-only directory" "$(awk '$1 ~ /^[0-9]+$/' rodir_runs.lst | wc -l)" 1 ||
        { echo "FAIL - runs in a read-only directory: $(cat rodir.err)"; FAILS=$((FAILS + 1)); }
    $AS_USER "$MEMSPY" report --db rodir/memspy.db >/dev/null 2>rodir.err && echo "ok   - report in a read-only directory" ||
        { echo "FAIL - report in a read-only directory: $(cat rodir.err)"; FAILS=$((FAILS + 1)); }
    cd "$WORK/rodir"
    expect_fail "run in a read-only directory" "cannot store the run in memspy.db: " \
        $AS_USER "$MEMSPY" run --db memspy.db --preset memspy92 --no-report -- ../blk 80 16
    cd "$WORK"
fi
chmod 755 rodir
finish
