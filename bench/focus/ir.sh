#!/bin/sh
# What following loops costs `memspy run --focus` (docs/plugin.md, "Loops in focus"): Cachegrind's
# Ir of the profiled program alone (memspy itself, its analysis and git not counted; exact on
# a loaded machine) on bench/kernels/stencil.c 256 4 (gcc -O2), focused on
#   nothing, the kernel function, its outer loop (the same references as the function), a
#   function that does not exist and a loop that does not exist (nothing simulated: the
#   difference of the last two is the cost of looking up each block word's loop).
# usage: sh bench/focus/ir.sh [BUILD_DIR]   -> a markdown table on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init focus "${1:-}"
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
cd "$WORK"
MEMSPY_CC=gcc "$BUILD/bin/memspy-cc" -O2 -o stencil "$ROOT/bench/kernels/stencil.c"
export MEMSPY_DB="$WORK/db"
"$BUILD/bin/memspy" run --json full.json -o /dev/null -- ./stencil 256 4 >/dev/null 2>&1
outer=$(jq -r '.names as $n | [.loops[] | select(($n[.function] // .function) == "sweep" and .depth == 1)][0]
  | "sweep:loop@\(.line)-\(.end_line)"' full.json)
echo "| focus | references simulated | Ir of the program |"
echo "|---|---|---|"
for focus in "" sweep "$outer" nosuch "sweep:loop@1-2"; do
    tag=$(printf '%s' "${focus:-none}" | tr -c 'A-Za-z0-9' _)
    # a loop that does not exist is refused after the run (exit 2): its Ir is still measured
    valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file="$WORK/cg.$tag.%p" \
        "$BUILD/bin/memspy" run ${focus:+--focus "$focus"} --json "$tag.json" -o /dev/null -- ./stencil 256 4 \
        >/dev/null 2>&1 || true
    ir=$(grep -l '^cmd: \./stencil' "cg.$tag".* | xargs grep '^summary:' | awk '{ print $2 }')
    refs=$(jq '.totals.refs' "$tag.json" 2>/dev/null || echo 0)
    printf '| %s | %s | %s |\n' "${focus:-(none)}" "$refs" "$ir"
done
