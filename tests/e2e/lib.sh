# Shared helpers for end-to-end tests. A test script is called as
#   sh t_NAME.sh SRC_DIR BUILD_DIR CC OPT
# sources this file, builds programs with memspy-cc in a scratch directory, runs memspy and
# asserts the diagnosis from the JSON with jq. Exit 0 = pass, 77 = skip, anything else = fail.
# Counts that depend on where the program's data lie (conflicts in a direct-mapped cache such as
# memspy92's) move whenever memspy's runtime changes size: assert them in a set-associative
# hierarchy or assert what holds in every layout; scripts/layout-sweep.sh runs a test under
# shifted layouts (stack, heap, mmap'd blocks, globals).
set -eu
SRC_DIR=$1
BUILD_DIR=$2
CC_NAME=$3
OPT=$4
MEMSPY="$BUILD_DIR/bin/memspy"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/memspy-e2e.XXXXXX")
# llvm-mca block costs (memspy run, memspy mtool) are cached in the test's scratch, not in ~/.cache
export XDG_CACHE_HOME="$WORK/cache"
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK"
# Each test stores its runs in its own database.
export MEMSPY_DB="$WORK/memspy.db"
# Text reports wrap long names at $COLUMNS when set: the tests read the 100-column default.
unset COLUMNS

case "$CC_NAME" in
    gcc) export MEMSPY_CC=gcc MEMSPY_CXX=g++ ;;
    clang) export MEMSPY_CC=clang MEMSPY_CXX=clang++ ;;
    *) echo "unknown compiler $CC_NAME" >&2; exit 2 ;;
esac
command -v "$MEMSPY_CC" >/dev/null || { echo "skip: $MEMSPY_CC not installed"; exit 77; }

FAILS=0

# cc_build OUT SRC... [-- EXTRA FLAGS]: compile with memspy-cc at the test's -O level.
cc_build() {
    out=$1; shift
    "$BUILD_DIR/bin/memspy-cc" $OPT -o "$out" "$@"
}

# run_memspy RESULT_JSON [memspy run options] -- PROG ARGS: run, keep stdout in RESULT_JSON.out.
run_memspy() {
    json=$1; shift
    "$MEMSPY" run --json "$json" --result "$json.result" -o "$json.txt" "$@" >"$json.out"
}

# check DESCRIPTION JSON JQ_EXPR: the jq expression must evaluate to true.
check() {
    desc=$1 json=$2 expr=$3
    if jq -e "$expr" "$json" >/dev/null 2>"$WORK/jq.err"; then
        echo "ok   - $desc"
    else
        echo "FAIL - $desc"
        echo "       jq: $expr"
        cat "$WORK/jq.err" >&2 || true
        FAILS=$((FAILS + 1))
    fi
}

# expect DESCRIPTION ACTUAL WANTED: the two strings must be equal.
expect() {
    if [ "$2" = "$3" ]; then
        echo "ok   - $1 ($2)"
    else
        echo "FAIL - $1: got '$2', want '$3'"
        FAILS=$((FAILS + 1))
    fi
}

# expect_fail DESCRIPTION WANTED_TEXT COMMAND...: exit status 2 and stderr containing the text.
expect_fail() {
    desc=$1 want=$2; shift 2
    set +e
    "$@" >"$WORK/out" 2>"$WORK/err"
    rc=$?
    set -e
    if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$WORK/err"; then
        echo "ok   - $desc"
    else
        echo "FAIL - $desc: exit $rc, stderr:"
        sed 's/^/       /' "$WORK/err"
        FAILS=$((FAILS + 1))
    fi
}

# value JSON JQ_EXPR: print a value (for messages and arithmetic).
value() { jq -r "$2" "$1"; }

# jq definitions shared by the checks: look bins up by name.
JQ_DEFS='
def dataid($n): (.data[] | select(.name == $n) | .id);
def codeid($n): (.code[] | select(.name == $n) | .id);
def cell($c; $d): codeid($c) as $ci | dataid($d) as $di | (.bins[] | select(.code == $ci and .data == $di));
def datacells($d): dataid($d) as $di | [.bins[] | select(.data == $di)];
def sum(f): reduce .[] as $x (0; . + ($x | f));
def repl: .causes.capacity + .causes.conflict;
def named(f): .names as $n | [f[] | (.function, .file) |= (if type == "number" then $n[.] else . end)];
def evicted_share($by): (([.evicted_by[] | select(.data == $by) | .count] | add // 0) /
                         (([.evicted_by[].count] | add) // 1));
'

# need_openmp: skip the test (exit 77) when the compiler cannot build -fopenmp programs.
need_openmp() {
    printf 'int main(void) { return 0; }\n' >probe.c
    "$MEMSPY_CC" -fopenmp -o probe probe.c 2>/dev/null || { echo "skip: $MEMSPY_CC cannot build -fopenmp"; exit 77; }
}

# need_plugin: skip the test (exit 77) when memspy's plugin for the test's compiler is not built.
need_plugin() {
    case "$CC_NAME" in gcc) p=memspy_gcc.so ;; *) p=memspy_llvm.so ;; esac
    [ -f "$BUILD_DIR/lib/memspy/$p" ] || { echo "skip: memspy's $CC_NAME plugin not built"; exit 77; }
}

# need_chromium: set CHROMIUM, or skip the test (exit 77) when it is not installed.
need_chromium() {
    CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
    [ -n "$CHROMIUM" ] || { echo "skip: chromium not installed (scripts/deps.sh installs it)"; exit 77; }
}

# browser FILE.html[#fragment] ARGS...: headless Chromium, offline, with a fresh profile.
browser() {
    url=$1; shift
    profile=$(mktemp -d "$WORK/profile.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
        --user-data-dir="$profile" "$@" "file://$WORK/$url" 2>>chromium.log
}

# ok_if DESCRIPTION COMMAND...: count a failure unless the command succeeds.
ok_if() {
    desc=$1; shift
    if "$@" >/dev/null 2>&1; then echo "ok   - $desc"; else echo "FAIL - $desc"; FAILS=$((FAILS + 1)); fi
}

# row_value KEY: "value (percent)" of the table row data-k=KEY in the dumped DOM (dom.html).
row_value() { sed -n 's/.*<tr data-k="'"$1"'"><th>[^<]*<\/th><td>\([^<]*\)<\/td><td class="pct">\([^<]*\)<.*/\1 (\2)/p' dom.html; }

finish() {
    if [ "$FAILS" -ne 0 ]; then
        echo "$FAILS check(s) failed; matrix view:"
        for f in "$WORK"/*.txt; do [ -f "$f" ] && cat "$f"; done
        exit 1
    fi
    exit 0
}
