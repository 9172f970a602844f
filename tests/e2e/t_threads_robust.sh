#!/bin/sh
# Threads mode of the runtime (MEMSPY_RAW_DIR + MEMSPY_RECORD_DIR + MEMSPY_THREADS=1, the way
# `memspy run` starts a multithreaded program), on programs built with memspy-cc: each program
# ends on its own (under timeout) with the stdout and exit status of the run without the
# runtime, writes one readable raw file naming the streams directory, and every thread's
# stream decodes to its end with sync sequence numbers unique across threads. Situations:
# threads blocked in read(), in a condition variable, in sleep, spinning on an atomic flag,
# never joined, detached, exiting with a lock held, 64 threads, threads started by a shared
# library's constructor, fork (the child is not profiled: it writes no raw file or stream),
# exit() from a thread while others run, a crash in a thread, work made known to main by an
# atomic read-modify-write or a barrier just before main exits.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
RT="$SRC_DIR/tests/e2e/rt"
DUMP="$BUILD_DIR/bin/rt_streamdump"
cc_build rt_threads "$RT/rt_threads.c"
"$BUILD_DIR/bin/memspy-cc" $OPT -shared -fPIC -o librtctor.so "$RT/rt_threads_lib.c"
cc_build rt_threads_ctor -DRT_THREADS_CTOR_LIB "$RT/rt_threads.c" -L. -lrtctor -Wl,-rpath,"$WORK"

# robust PROG MODE STATUS STREAMS: native and profiled runs agree, the profile is complete.
robust() {
    prog=$1 mode=$2 want=$3 nstreams=$4
    set +e
    timeout 60 "./$prog" "$mode" >native.out 2>/dev/null; native=$?
    rm -rf raw rec && mkdir raw rec
    MEMSPY_RAW_DIR="$WORK/raw" MEMSPY_RECORD_DIR="$WORK/rec" MEMSPY_THREADS=1 \
        timeout 60 "./$prog" "$mode" >memspy.out 2>memspy.err; got=$?
    set -e
    [ "$(ls rec | grep -c '^thread-[0-9]*\.zst$')" = "$nstreams" ] ||
        echo "note - $mode: streams $(ls rec | tr '\n' ' ')(want $nstreams)"
    expect "$mode: exit status (native $native)" "$got" "$want"
    expect "$mode: same stdout" "$(cmp -s native.out memspy.out && echo same || echo differs)" same
    # (the shell itself may report a signal death on the command's stderr)
    expect "$mode: runtime silent" "$(grep -v '^Segmentation fault' memspy.err || true)" ""
    expect "$mode: one raw file" "$(ls raw | grep -c '\.raw$')" 1
    "$BUILD_DIR/bin/rt_rawcheck" raw/*.raw 8 >check.out 2>&1 || true
    expect "$mode: raw file names the streams" "$(sed -n 3p check.out)" "streams $WORK/rec threads $nstreams"
    expect "$mode: one stream per thread" "$(ls rec | grep -c '^thread-[0-9]*\.zst$')" "$nstreams"
    bad=0
    : >seqs
    for f in rec/thread-*.zst; do
        i=${f#rec/thread-}; i=${i%.zst}
        "$DUMP" "$f" "$i" >events 2>dump.err || { bad=$((bad + 1)); sed 's/^/       /' dump.err; }
        awk '$1 == "S" { print $5 }' events >>seqs
    done
    expect "$mode: every stream decodes to its end" "$bad" 0
    expect "$mode: sync sequence numbers unique" "$(sort -n seqs | uniq -d | wc -l)" 0
}

robust rt_threads blocked 0 6
# every thread's work before blocking or its spinning (at least 8000 bytes written, however
# the compiler groups the writes) reached its stream
full=0
for f in rec/thread-*.zst; do
    i=${f#rec/thread-}; i=${i%.zst}
    [ "$("$DUMP" "$f" "$i" | awk '$1 == "A" && $5 == 1 { n += $4 } END { print n + 0 }')" -ge 8000 ] &&
        full=$((full + 1))
done
expect "blocked: streams with the threads' accesses" "$full" 6
# A thread's work is in its stream once the thread has made it known (by an atomic increment,
# by completing a barrier), even if main exits at once: the hook MEMSPY_TEST_DRAIN_PAUSE_MS
# pauses the threads inside each drain of their plugin records, so that a drain made after the
# operation took effect would still be under way at the exit flush, and the records lost (at
# -O2, both threads' streams were missing before the drains moved before the operations; in
# `blocked`, the sleeping thread's stream about 1 run in 200 under load).
export MEMSPY_TEST_DRAIN_PAUSE_MS=300
robust rt_threads published 0 3
unset MEMSPY_TEST_DRAIN_PAUSE_MS
full=0
for i in 1 2; do
    [ "$("$DUMP" rec/thread-$i.zst $i 2>/dev/null | awk '$1 == "A" && $5 == 1 { n += $4 } END { print n + 0 }')" -ge 8000 ] &&
        full=$((full + 1))
done
expect "published: streams with the threads' work" "$full" 2
robust rt_threads exit_thread 5 3
robust rt_threads detached 0 5
robust rt_threads exit_locked 0 2
robust rt_threads many 0 65
robust rt_threads crash 139 3
robust rt_threads_ctor libctor 0 3
robust rt_threads fork 0 2
expect "fork: the child's output is its own" "$(grep -c '^child ' memspy.out)" 1
# The crash and _exit-like deaths are flagged incomplete; exit() from a thread is normal.
robust rt_threads crash 139 3
expect "crash: raw file flagged incomplete (signal 11)" "$(sed -n 1p check.out)" "1 1 11 0"
robust rt_threads exit_thread 5 3
expect "exit from a thread: normal exit 5" "$(sed -n 1p check.out)" "0 0 5 0"

# The same through `memspy run`: the replay of every such recording ends too, the program's
# exit status comes through, and the result has one processor per thread (64 at most).
# runs MODE STATUS PROCS. (A missing processor was a thread's stream lost at exit: see the
# `published` case above. Its streams, notes and messages are printed then.)
runs() {
    rm -rf "rec-$1"
    set +e
    timeout 120 "$MEMSPY" run --no-report --record "rec-$1" --json "run-$1.json" -- ./rt_threads "$1" \
        >/dev/null 2>run.err
    st=$?
    set -e
    n=$(jq .nprocs "run-$1.json" 2>/dev/null)
    if [ "$n" != "$3" ]; then
        echo "note - memspy run $1: $n processors, want $3; streams:" \
            "$(ls "rec-$1" | tr '\n' ' ')notes: $(jq -c .run.notes "run-$1.json" 2>/dev/null)"
        sed 's/^/       /' run.err
    fi
    expect "memspy run $1: exit status" "$st" "$2"
    expect "memspy run $1: processors" "$n" "$3"
    expect "memspy run $1: replayed in the default order, timed" "$(jq -r .interleave "run-$1.json" 2>/dev/null)" timed
    # (a stream ended by the exit flush while its thread ran on once stopped the others' streams)
    expect "memspy run $1: every stream recorded" "$(grep -c 'recording stopped' run.err)" 0
}
runs blocked 0 6
runs detached 0 5
runs exit_locked 0 2
runs many 0 64
runs crash 139 3
expect "memspy run crash: the result is marked incomplete" "$(jq .run.incomplete run-crash.json)" true
[ "$FAILS" -eq 0 ] || exit 1
