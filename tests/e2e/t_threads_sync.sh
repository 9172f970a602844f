#!/bin/sh
# The synchronisation events the runtime captures, exactly (stream.h version 2), printed by
# rt_streamdump with lock/condition/barrier/semaphore addresses renamed in order of first
# appearance (x1, x2, ...) and sequence numbers dropped (they must only be unique):
# a 2-thread mutex program (CREATE, ACQUIRE/RELEASE pairs, EXIT, JOIN) and one use of every
# other pthread primitive (barrier, cond wait/signal, timed-out wait, semaphore, rwlock, spin,
# trylock). Without MEMSPY_THREADS the run switches to threads mode at the first
# pthread_create: the prefix is simulated in process (counted in the raw file, with a note)
# and the streams start there; without MEMSPY_RECORD_DIR it stays simulated in process.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
RT="$SRC_DIR/tests/e2e/rt"
. "$RT/threads_lib.sh"
cc_build rt_threads "$RT/rt_threads.c"

record rt_threads mutex MEMSPY_THREADS=1
expect "mutex: threads' events" "$(sync_events 0 1 2)" \
"0: CREATE 0x1 0;0: CREATE 0x2 0;0: JOIN 0x1 0;0: JOIN 0x2 0;\
1: ACQUIRE x1 0;1: RELEASE x1 0;1: ACQUIRE x1 0;1: RELEASE x1 0;1: EXIT 0x0 0;\
2: ACQUIRE x1 0;2: RELEASE x1 0;2: ACQUIRE x1 0;2: RELEASE x1 0;2: EXIT 0x0 0;"
seqs=$(for i in 0 1 2; do "$DUMP" "rec/thread-$i.zst" $i; done | awk '$1 == "S" { print $5 }' | sort -n | tr '\n' ' ')
expect "mutex: sequence numbers 1..14, each once" "$seqs" "1 2 3 4 5 6 7 8 9 10 11 12 13 14 "
# JOIN of a thread comes after its EXIT in the real order
exit1=$("$DUMP" rec/thread-1.zst 1 | awk '$2 == "EXIT" { print $5 }')
join1=$("$DUMP" rec/thread-0.zst 0 | awk '$2 == "JOIN" && $3 == "0x1" { print $5 }')
expect "mutex: EXIT(1) stamped before JOIN(1)" "$([ "$exit1" -lt "$join1" ] && echo yes)" yes

record rt_threads sync MEMSPY_THREADS=1
expect "sync: program output" "$(cat out.txt | tr '\n' ';')" "trywait failed as expected;sync done;"
expect "sync: threads' events" "$(sync_events 0 1)" \
"0: CREATE 0x1 0;0: ACQUIRE x1 0;0: BARRIER x2 2;0: COND_WAIT x3 x1;0: RELEASE x1 0;0: SEM_WAIT x4 0;\
0: JOIN 0x1 0;0: ACQUIRE x5 1;0: RELEASE x5 0;0: ACQUIRE x5 0;0: RELEASE x5 0;0: ACQUIRE x6 0;\
0: RELEASE x6 0;0: ACQUIRE x1 0;0: RELEASE x1 0;0: ACQUIRE x1 0;0: RELEASE x1 0;0: ACQUIRE x1 0;\
0: RELEASE x1 0;1: BARRIER x2 2;1: ACQUIRE x1 0;1: COND_SIGNAL x3 0;1: RELEASE x1 0;\
1: SEM_POST x4 0;1: EXIT 0x0 0;"

# No MEMSPY_THREADS: one processor until the first pthread_create, then streams.
record rt_threads mutex
"$BUILD_DIR/bin/rt_rawcheck" raw/*.raw 8 >check.out
expect "switch: raw file names the streams" "$(sed -n 3p check.out)" "streams $WORK/rec threads 3"
expect "switch: note" "$(sed -n 4p check.out)" \
    "note references before the first thread were simulated on one processor; the replay of the threads starts with empty caches"
expect "switch: same events as from the start" "$(sync_events 0 1 2)" \
"0: CREATE 0x1 0;0: CREATE 0x2 0;0: JOIN 0x1 0;0: JOIN 0x2 0;\
1: ACQUIRE x1 0;1: RELEASE x1 0;1: ACQUIRE x1 0;1: RELEASE x1 0;1: EXIT 0x0 0;\
2: ACQUIRE x1 0;2: RELEASE x1 0;2: ACQUIRE x1 0;2: RELEASE x1 0;2: EXIT 0x0 0;"

# No recording directory: everything simulated in process, no streams section.
rm -rf raw && mkdir raw
MEMSPY_RAW_DIR="$WORK/raw" timeout 60 ./rt_threads mutex >out.txt
"$BUILD_DIR/bin/rt_rawcheck" raw/*.raw 8 >check.out
expect "no record dir: no streams, one processor" "$(sed -n 3p check.out)" "streams - threads 3"
[ "$FAILS" -eq 0 ] || exit 1
