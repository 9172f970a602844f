#!/bin/sh
# A full disk loses nothing (docs/guarantees.md): with the database on a full file system the
# run is kept in memspy-run-PID.result elsewhere (the message says "the disk is full" and
# where), output files on the full disk are left as they were (no partial file), outputs
# elsewhere are written, and `memspy import` loads the run once there is room. --record into
# a full disk keeps the run and its statistics. Needs a small tmpfs: in a user and mount
# namespace (unshare -rm), else as root; skipped (77) when neither is possible.
# matrix: gcc:-O2
if [ -z "${MEMSPY_IN_NS:-}" ] && unshare -rm true 2>/dev/null; then
    MEMSPY_IN_NS=1 exec unshare -rm sh "$0" "$@"
fi
. "$1/tests/e2e/lib.sh"

mkdir full
if ! mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
    echo "skip: cannot mount a 1 MiB tmpfs (neither user namespaces nor root)"
    exit 77
fi
trap 'cd /; umount "$WORK/full" 2>/dev/null; chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

# The disk fills while the program runs (it writes FILE until no space is left, 4 MiB at most): memspy
# checked the database before starting it, and finds the disk full when storing.
cat >fill.c <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
static double a[4096];
int main(int argc, char **argv)
{
    for (int r = 0; r < 8; r++)
        for (int i = 0; i < 4096; i++) a[i] += i * r;
    FILE *f = fopen(argv[1], "w");
    static char block[4096];
    /* At most 4 MiB: enough to fill the 1 MiB tmpfs, harmless anywhere else. */
    for (int n = 0; f && n < 1024 && fwrite(block, 1, sizeof block, f) == sizeof block && fflush(f) == 0; n++) {}
    if (f) fclose(f);
    printf("%g\n", a[100]);
    return 0;
}
CEOF
cc_build fill fill.c
"$MEMSPY" run --db full/memspy.db --preset memspy92 --no-report --result first.json -- ./fill scratch >/dev/null 2>&1
STALL=$(value first.json .totals.stall_cycles)
echo old >full/old.json

set +e
"$MEMSPY" run --db full/memspy.db --preset memspy92 --no-report --json full/old.json --result out.json \
    -- ./fill full/filler >/dev/null 2>full.err
rc=$?
set -e
expect "full disk: exit status 2" "$rc" 2
expect "the program filled the disk (stopped short of 4 MiB)" "$(( $(stat -c %s full/filler) < 4194304 ))" 1
ok_if "full disk: the database's message says the disk is full" grep -q "full/memspy.db: the disk is full" full.err
ok_if "full disk: the --json file on the full disk names the cause" grep -q "full/old.json.*No space left on device" full.err
expect "full disk: the --json file there keeps its old content" "$(cat full/old.json)" old
expect "full disk: no partial file left there" "$(ls -a full | grep -c '^\.old' || true)" 0
expect "full disk: --result elsewhere written" "$(value out.json .totals.stall_cycles)" "$STALL"
KEPT=$(sed -n "s/.*the run is kept in \([^:]*\): store it later.*/\1/p" full.err)
case "$KEPT" in ./memspy-run-*.result) echo "ok   - full disk: kept in the current directory ($KEPT)" ;;
    *) echo "FAIL - full disk: kept file '$KEPT'"; sed 's/^/       /' full.err; FAILS=$((FAILS + 1)) ;; esac

# Opening a database on the full disk (a new one, or the existing one without its WAL
# files) says so before the program starts.
expect_fail "full disk: a new database is refused, naming the cause" "full/new.db: the disk is full" \
    "$MEMSPY" run --db full/new.db --no-report -- ./fill full/more
expect_fail "full disk: an existing database names the cause" "cannot open full/memspy.db: the disk is full" \
    sh -c "rm -f full/memspy.db-shm full/memspy.db-wal && '$MEMSPY' runs --db full/memspy.db"

# --record into a disk the program fills: the run is still stored (in a database with room).
rm full/filler
set +e
"$MEMSPY" run --db room.db --preset memspy92 --no-report --record full/rec -- ./fill full/filler >/dev/null 2>rec.err
rc=$?
set -e
expect "--record on a full disk: the program's exit status" "$rc" 0
ok_if "--record on a full disk: the run is stored" grep -q "stored as run 1 in room.db" rec.err
"$MEMSPY" report --db room.db --json >rec.json
expect "--record on a full disk: the statistics are complete" "$(value rec.json .totals.stall_cycles)" "$STALL"

rm full/filler
"$MEMSPY" import --db full/memspy.db "$KEPT" >import.out 2>&1
expect "after making room: import stores it" "$(cat import.out)" "$KEPT: stored as run 2 in full/memspy.db"
"$MEMSPY" report 2 --db full/memspy.db --json >imported.json
expect "the imported run has the run's statistics" "$(value imported.json .totals.stall_cycles)" "$STALL"
finish
