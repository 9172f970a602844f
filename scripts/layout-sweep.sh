#!/bin/sh
# Runs one end-to-end test under shifted data layouts, to find assertions that hold only in the
# layout the suite happens to give the program (a direct-mapped cache's conflict counts move when
# memspy's runtime grows by a page):
#   sh scripts/layout-sweep.sh BUILD_DIR TEST CC OPT [VARIANT...]
# e.g. sh scripts/layout-sweep.sh build t_tri clang -O0. memspy run turns address-space
# randomisation off, so each variant moves some of the program's memory against the rest:
#   env   a 1000-byte environment variable (env2: 2600 bytes): the stack
#   pre   LD_PRELOAD of a small library that takes 9000 bytes of address space and mallocs
#         1200 bytes at start-up (pre2: 40000 and 3000): mmap'd blocks, libraries and thread
#         stacks, and the small heap blocks
#   link  the compilers wrapped to link 1500 bytes of data and 1700 of bss before the
#         program's (link2: 5000 and 700): its globals (and the heap behind them)
#   base  none (the suite's layout)
# Default: base env pre link. Prints each variant's ok/FAIL counts and its FAIL lines; the
# logs stay in the scratch directory it names. Exit 1 if a variant failed.
set -eu
[ $# -ge 4 ] || { echo "usage: sh scripts/layout-sweep.sh BUILD_DIR TEST CC OPT [VARIANT...]" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
test=$2 cc=$3 opt=$4
shift 4
[ $# -gt 0 ] || set -- base env pre link
[ -f "$src/tests/e2e/$test.sh" ] || { echo "layout-sweep: no tests/e2e/$test.sh" >&2; exit 2; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/memspy-layouts.XXXXXX")
[ -d "$dir" ] || exit 2
printf '%s\n' '#include <stdlib.h>' 'char memspy_sweep_pad_data[DATA] = { 1 };' 'void *memspy_sweep_pad_block;' \
    '__attribute__((constructor)) static void pad(void) { memspy_sweep_pad_block = malloc(BLOCK); }' >"$dir/pad.c"
printf '%s\n' 'char memspy_sweep_link_data[DATA] = { 1 };' 'char memspy_sweep_link_bss[BSS];' >"$dir/padobj.c"
gcc -shared -fPIC -O1 -DDATA=9000 -DBLOCK=1200 -o "$dir/pad1.so" "$dir/pad.c"
gcc -shared -fPIC -O1 -DDATA=40000 -DBLOCK=3000 -o "$dir/pad2.so" "$dir/pad.c"
for k in 1 2; do
    case $k in 1) sizes="-DDATA=1500 -DBSS=1700" ;; *) sizes="-DDATA=5000 -DBSS=700" ;; esac
    gcc -c -O0 $sizes -o "$dir/padobj$k.o" "$dir/padobj.c"
    mkdir "$dir/bin$k"
    for c in gcc g++ gfortran clang clang++; do
        real=$(command -v "$c") || continue
        # the pad object first on every link (not with -c, -S, -E: nothing is linked)
        {
            echo '#!/bin/sh'
            echo 'for a in "$@"; do case $a in -c|-S|-E|-M|-MM) exec "'"$real"'" "$@" ;; esac; done'
            echo 'exec "'"$real"'" "'"$dir/padobj$k.o"'" "$@"'
        } >"$dir/bin$k/$c"
        chmod +x "$dir/bin$k/$c"
    done
done

status=0
for v in "$@"; do
    case $v in
        base) set -- ;;
        env) set -- "MEMSPY_LAYOUT_PAD=$(printf '%01000d' 0)" ;;
        env2) set -- "MEMSPY_LAYOUT_PAD=$(printf '%02600d' 0)" ;;
        pre) set -- "LD_PRELOAD=$dir/pad1.so" ;;
        pre2) set -- "LD_PRELOAD=$dir/pad2.so" ;;
        link) set -- "PATH=$dir/bin1:$PATH" ;;
        link2) set -- "PATH=$dir/bin2:$PATH" ;;
        *) echo "layout-sweep: unknown variant '$v' (base, env, env2, pre, pre2, link, link2)" >&2; exit 2 ;;
    esac
    log="$dir/$test.$cc$opt.$v.log"
    rc=0
    env "$@" sh "$src/tests/e2e/$test.sh" "$src" "$build" "$cc" "$opt" >"$log" 2>&1 || rc=$?
    echo "$test $cc$opt $v: exit $rc, $(grep -c '^ok' "$log" || true) ok, $(grep -c '^FAIL' "$log" || true) FAIL"
    grep '^FAIL' "$log" || true
    [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || status=1
done
echo "logs: $dir"
exit $status
