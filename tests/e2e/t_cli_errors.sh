# memspy's own errors: bad cache options, unwritable outputs, programs not built with
# memspy-cc, unreadable result files, unknown commands/options. Each exits 2 with a message
# naming the problem, before any program starts; every --help exits 0.
# matrix: gcc:-O0
. "$(dirname "$0")/lib.sh"

expect_ok() {
    desc=$1; shift
    if "$@" >"$WORK/out" 2>"$WORK/err" && [ -s "$WORK/out" ]; then
        echo "ok   - $desc"
    else
        echo "FAIL - $desc"
        FAILS=$((FAILS + 1))
    fi
}

# A marker file: memspy must refuse before starting the program.
STARTED="$WORK/started"
printf '#!/bin/sh\ntouch %s\n' "$STARTED" >"$WORK/prog.sh"
chmod +x "$WORK/prog.sh"

# Bad cache specifications, each naming the field.
expect_fail "size not a multiple of line*ways" "not a multiple of line*ways" \
    "$MEMSPY" run --cache L1=1000:8:64:4 -- "$WORK/prog.sh"
expect_fail "line size not a power of two" "line 48 is not a power of two" \
    "$MEMSPY" run --cache L1=32K:8:48:4 -- "$WORK/prog.sh"
expect_fail "unknown preset" "unknown preset 'nosuch'" "$MEMSPY" run --preset nosuch -- "$WORK/prog.sh"
expect_fail "bad --mem-latency" "--mem-latency: 'fast'" "$MEMSPY" run --mem-latency fast -- "$WORK/prog.sh"
expect_fail "zero --mem-latency" "--mem-latency: '0'" "$MEMSPY" run --mem-latency 0 -- "$WORK/prog.sh"
printf 'cache = L1=32K:8:64:4\nfrobnicate = 3\n' >"$WORK/bad.cfg"
expect_fail "bad config file key" "--config $WORK/bad.cfg: line 2: unknown key 'frobnicate'" \
    "$MEMSPY" run --config "$WORK/bad.cfg" -- "$WORK/prog.sh"
expect_fail "missing config file" "--config $WORK/none.cfg: No such file" \
    "$MEMSPY" run --config "$WORK/none.cfg" -- "$WORK/prog.sh"
expect_fail "config --show checks too" "--cache: L1 line 48" "$MEMSPY" config --show --cache L1=32K:8:48:4
expect_fail "--procs 0 refused" "--procs: '0' is not a whole number in 1..64" "$MEMSPY" config --show --procs 0
expect_fail "--procs 65 refused" "--procs: '65'" "$MEMSPY" config --show --procs 65
expect_fail "--coherence-unit not a power of two" "--coherence-unit: '48'" "$MEMSPY" config --show --coherence-unit 48
expect_fail "--coherence-unit smaller than a line" "cache configuration:" "$MEMSPY" config --show --coherence-unit 32
expect_fail "--shared L1 refused" "--shared: 'L1'" "$MEMSPY" config --show --shared L1
expect_fail "--shared beyond the hierarchy" "--shared: 'L3'" "$MEMSPY" config --show --preset memspy92 --shared L3
expect_fail "--protocol moesi refused" "--protocol: 'moesi' is neither mesi nor msi" "$MEMSPY" config --show --protocol moesi
expect_fail "--nodes not a number" "--nodes: 'two'" "$MEMSPY" config --show --nodes two
expect_fail "--interleave checked before the program runs" "--interleave: 'sideways'" "$MEMSPY" run --interleave sideways -- /bin/true

# Unwritable outputs.
expect_fail "unwritable -o" "cannot write '$WORK/no/such/dir/m.txt'" \
    "$MEMSPY" run -o "$WORK/no/such/dir/m.txt" -- "$WORK/prog.sh"
expect_fail "unwritable --result" "cannot write '/proc/memspy.result'" \
    "$MEMSPY" run --result /proc/memspy.result -- "$WORK/prog.sh"

if [ -e "$STARTED" ]; then
    echo "FAIL - a program was started despite an error"
    FAILS=$((FAILS + 1))
fi

# Programs: not built with memspy-cc (refused with the rebuild hint), missing.
expect_fail "plain ELF refused" "/bin/true was not built with memspy-cc: rebuild it with CC=memspy-cc" \
    "$MEMSPY" run -- /bin/true
expect_fail "program in PATH refused" "true was not built with memspy-cc" "$MEMSPY" run -- true
expect_fail "missing program" "no-such-program: program not found" "$MEMSPY" run -- no-such-program
expect_fail "missing program operand" "missing the program to run" "$MEMSPY" run --top 3
# A script that runs nothing instrumented: started, but no profile.
expect_fail "no profile written" "no profile was written: did $WORK/prog.sh run a memspy-instrumented program?" \
    "$MEMSPY" run --result "$WORK/r.result" -- "$WORK/prog.sh"

# Result files: missing, truncated, foreign.
expect_fail "report: missing file" "$WORK/none.result: No such file or directory" "$MEMSPY" report "$WORK/none.result"
expect_fail "report: /etc/passwd" "/etc/passwd is not a memspy result file" "$MEMSPY" report /etc/passwd
echo '{"name": "x", "version": 1}' >"$WORK/other.json"
expect_fail "report: JSON without format" "$WORK/other.json is not a memspy result file" "$MEMSPY" report "$WORK/other.json"
echo '{"format": "memspy-result", "version": 99}' >"$WORK/newer.json"
expect_fail "report: newer version" "written by a newer memspy (result version 99)" "$MEMSPY" report "$WORK/newer.json"
printf '{"format": "memspy-result", "version": 1, "run": {"program": "a' >"$WORK/trunc.json"
expect_fail "report: truncated" "$WORK/trunc.json: corrupt result file:" "$MEMSPY" report "$WORK/trunc.json"
expect_fail "report: truncated names the place" "at line 1 column" "$MEMSPY" report "$WORK/trunc.json"
: >"$WORK/empty.json"
expect_fail "report: empty file" "is not a memspy result file" "$MEMSPY" report "$WORK/empty.json"
expect_fail "report: no run stored yet" "memspy.db: no runs stored yet" "$MEMSPY" report

# Unknown commands and options print the usage.
expect_fail "unknown command" "Usage: memspy COMMAND" "$MEMSPY" frobnicate
expect_fail "unknown top-level option" "unknown option '--frob'" "$MEMSPY" --frob
expect_fail "no command" "Usage: memspy COMMAND" "$MEMSPY"
expect_fail "unknown run option" "unknown option '--frob'" "$MEMSPY" run --frob -- /bin/true
expect_fail "unknown report option" "Try 'memspy report --help'" "$MEMSPY" report --frob x
expect_fail "unknown config option" "unknown option '--frob'" "$MEMSPY" config --frob
expect_fail "bad --top" "--top: 'many'" "$MEMSPY" report --top many x

# Help and version.
expect_ok "memspy --help" "$MEMSPY" --help
expect_ok "memspy --version" "$MEMSPY" --version
for cmd in run report config; do
    expect_ok "memspy $cmd --help" "$MEMSPY" "$cmd" --help
done
expect_ok "memspy config --list" "$MEMSPY" config --list
# The x86 preset's threads: L3 shared, one 2M slice per processor; --shared none and --cache:
# every level private.
"$MEMSPY" config --show --procs 4 >"$WORK/out"
expect "x86 threads: L3 shared, 2M per processor" \
    "$(grep -c 'processors: 4, L3 and below shared (L3: 2M per processor simulated)' "$WORK/out")" 1
"$MEMSPY" config --show --shared none >"$WORK/out"
expect "--shared none: every level private" "$(grep -c ', every level private, MESI' "$WORK/out")" 1
"$MEMSPY" config --show --cache L1=32K:8:64:4,L2=1M:16:64:14,L3=8M:16:64:50 >"$WORK/out"
expect "--cache: every level private" "$(grep -c ', every level private, MESI' "$WORK/out")" 1

[ "$FAILS" -eq 0 ]
