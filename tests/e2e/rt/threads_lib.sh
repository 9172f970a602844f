# Helpers of the t_threads_*.sh tests (sourced after lib.sh; WORK is the scratch directory).
DUMP="$BUILD_DIR/bin/rt_streamdump"

# record PROG MODE [VAR=value...]: run ./PROG MODE with the runtime (fresh raw/ and rec/),
# stdout in out.txt.
record() {
    prog=$1 mode=$2; shift 2
    rm -rf raw rec && mkdir raw rec
    env MEMSPY_RAW_DIR="$WORK/raw" MEMSPY_RECORD_DIR="$WORK/rec" "$@" timeout 60 "./$prog" "$mode" >out.txt
}

# sync_events N...: the sync events of threads N... from rec/, one "N: KIND obj arg" a line,
# addresses renamed x1, x2, ... in order of first appearance, sequence numbers dropped.
sync_events() {
    for i in "$@"; do "$DUMP" "rec/thread-$i.zst" "$i" | sed "s/^/$i /"; done >sync_events.txt
    awk '$2 == "S" { obj = $4; arg = $5
                 if (obj ~ /^0x/ && length(obj) > 6) { if (!(obj in n)) n[obj] = "x" ++k; obj = n[obj] }
                 if (arg ~ /^0x/) { if (!(arg in n)) n[arg] = "x" ++k; arg = n[arg] }
                 print $1 ": " $3 " " obj " " arg }' sync_events.txt | tr '\n' ';'
}
