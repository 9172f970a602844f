#!/bin/sh
# Instructions (valgrind --tool=cachegrind --cache-sim=no, I refs) of the simulator on
# bench/stages/utilbench.c's two streams, built from another revision (BASE, e.g. main) and
# from this tree, and this tree with --utilisation: the cost of spatial utilisation when off
# and when on (docs/simulator.md, "Spatial utilisation"), on the specialised path (x86) and the
# general one (--plru). Needs valgrind and git.
# usage: sh bench/stages/util_ir.sh [BASE]   -> a markdown table on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BASE=${1:-main}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/base"
git -C "$ROOT" archive "$BASE" src | tar -x -C "$WORK/base"
build() { # build SRCDIR OUT [defines]
    src=$1 out=$2
    shift 2
    gcc -std=c11 -O2 -g -DNDEBUG -D_GNU_SOURCE "$@" -I "$src/src" -o "$out" "$ROOT/bench/stages/utilbench.c" \
        "$src"/src/sim/*.c "$src"/src/util/*.c -lm 2>/dev/null
}
build "$WORK/base" "$WORK/ub_base"
build "$ROOT" "$WORK/ub_this" -DUTILBENCH_HAS_UTILISATION
ir() { # ir BINARY ARGS...: the I refs of one run
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        awk '/I *refs:/ { gsub(",", "", $NF); print $NF }'
}
echo "| stream | $BASE Ir | default Ir | vs $BASE | --utilisation Ir | vs $BASE |"
echo "|---|---:|---:|---:|---:|---:|"
for c in "hit" "random" "hit --plru" "random --plru"; do
    set -- $c
    b=$(ir "$WORK/ub_base" "$@")
    d=$(ir "$WORK/ub_this" "$@")
    u=$(ir "$WORK/ub_this" "$@" --utilisation)
    [ "$("$WORK/ub_base" "$@")" = "$("$WORK/ub_this" "$@")" ] || echo "checksums differ on $c" >&2
    [ "$("$WORK/ub_this" "$@")" = "$("$WORK/ub_this" "$@" --utilisation)" ] || echo "checksums differ with --utilisation on $c" >&2
    awk -v s="$c" -v b="$b" -v d="$d" -v u="$u" 'BEGIN {
        printf "| %s | %.0f | %.0f | %+.2f%% | %.0f | %+.2f%% |\n", s, b, d, 100 * (d - b) / b, u, 100 * (u - b) / b }'
done
