#!/bin/sh
# Fidelity of the plugins' counts: the data references memspy counts in each kernel of
# tests/e2e/progs/fidelity.c (10 calls each) are exactly those the native binary built with the
# same compiler and flags makes, hand-derived below, at -O0, -O2 and -O3 -march=x86-64-v3.
# At -O0 every local lives in its stack slot: each use of a variable is a load, each assignment
# a store, each floating-point constant but 0.0 a constant-pool load (both plugins); optimised,
# the locals are registers and mix, whose state is all locals, makes no reference at all.
# With valgrind, Cachegrind's Dr + Dw of the native binary differs from memspy's count by what
# docs/performance.md ("References counted") explains, exactly: per call the pushes, pops and
# return the plugins do not see; at gcc -O0 the writes of its read-modify-write instructions
# (`addl $1, -12(%rbp)` for i++: Cachegrind counts a read, memspy the read and the write); at
# -O3 -march=x86-64-v3 Cachegrind counts a 32-byte FMA memory operand as 4 reads (not checked).
# matrix: gcc:-O0 gcc:-O2 gcc:-O3 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
need_plugin
EXTRA=
if [ "$OPT" = -O3 ]; then
  grep -qw avx2 /proc/cpuinfo || { echo "skip: no AVX2 on this CPU"; exit 77; }
  EXTRA=-march=x86-64-v3
fi
cc_build fid "$SRC_DIR/tests/e2e/progs/fidelity.c" -g $EXTRA
run_memspy r.json -- ./fid 10
# refs KERNEL: memspy's references of the kernel's code (hash4's inlined helpers are bins of
# their own at -O2: their lines)
refs() {
  re=$1; [ "$1" = hash4 ] && re='hash4|round32|read32'
  value r.json "[.code[] | select(.name | test(\"^($re)\$\")) | .refs] | add // 0"
}

# KERNEL MEMSPY CG-MINUS-MEMSPY ("-": not compared), per compiler and level. Per call (n = 4096):
#  sum    -O0: 9 per element (loads of i, a, a[i], s; store of s; i++'s load and store; the
#         condition's loads of i and n) + 7 (2 parameter stores, s = 0, i = 0, the last
#         condition, the load of s returned); optimised: n loads (an in-order FP sum stays scalar)
#  axpy   -O0: clang 12 per element, gcc 14 (it computes y[i]'s address twice: y and i loaded
#         again) + 7 (4 parameter stores, i = 0, the last condition); -O2: gcc 3 per element (its
#         -O2 vectoriser does not version loops for aliasing), clang 1.5 (2-double vectors after
#         a runtime overlap test); -O3 -march=x86-64-v3: 0.75 (4-double vectors)
#  smooth 62 x 62 points; -O2 gcc: 4 per point (e, n, s loaded, out stored; c and w carried in
#         registers) + 2 per row
#  mix    -O0: 12 per round (1000 rounds: h loaded, k stored and loaded, h ^= and h += a load and
#         a store each, r loaded, r++ a load and a store, the condition's 2 loads) + 10; else 0
#  hash4  32 KiB in 2048 rounds of 16 bytes; optimised: one 16-byte load per round (+ the lanes'
#         load and store): gcc -O2's register allocator reloads the vector from memory for its
#         second use (Cachegrind: 2048 more reads per call; docs/performance.md). -O0: read32 and
#         round32 are calls, 8192 each per call, whose pushes, pops, returns and return-address
#         pushes memspy does not see (and clang -O0's spills of v1..v4 around them)
case "$CC_NAME:$OPT" in
  gcc:-O0) TABLE="sum 368710 -40930
axpy 573510 -40930
smooth 1311340 -39030
mix 120100 -29970
hash4 1515730 409630" ;;
  clang:-O0) TABLE="sum 368710 30
axpy 491590 30
smooth 1311340 30
mix 120100 30
hash4 1597650 819230" ;;
  gcc:-O2) TABLE="sum 40960 10
axpy 122880 10
smooth 155000 30
mix 0 10
hash4 20500 20500" ;;
  clang:-O2) TABLE="sum 40960 10
axpy 61440 10
smooth 96720 110
mix 0 10
hash4 20500 30" ;;
  gcc:-O3) TABLE="sum 40960 10
axpy 30720 -
smooth 59520 -
mix 0 10
hash4 20500 10" ;;
  clang:-O3) TABLE="sum 40960 10
axpy 30720 -
smooth 62620 110
mix 0 10
hash4 20500 30" ;;
  *) echo "skip: no table for $CC_NAME $OPT"; exit 77 ;;
esac

echo "$TABLE" | while read -r k want _; do
  expect "$k: memspy's references, exactly" "$(refs "$k")" "$want"
done >checks.lst
cat checks.lst
FAILS=$((FAILS + $(grep -c '^FAIL' checks.lst || true)))

# Cachegrind on the native binary (same compiler, same flags), when valgrind is installed.
if command -v valgrind >/dev/null; then
  "$MEMSPY_CC" $OPT $EXTRA -g -o fid_native "$SRC_DIR/tests/e2e/progs/fidelity.c"
  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=cg.out ./fid_native 10 >/dev/null 2>&1
  # Dr + Dw per function, clone suffixes (.constprop.0) dropped, hash4's helpers in hash4
  awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
       /^fn=/ { f = substr($0, 4); sub(/\..*/, "", f); if (f == "round32" || f == "read32") f = "hash4"; next }
       /^[0-9]/ { n[f] += $(col["Dr"] + 1) + $(col["Dw"] + 1) }
       END { for (k in n) print k, n[k] }' cg.out >cg.lst
  echo "$TABLE" | while read -r k want diff; do
    [ "$diff" = - ] && continue
    cg=$(awk -v k="$k" '$1 == k { print $2 }' cg.lst)
    expect "$k: Cachegrind's Dr+Dw ($cg) minus memspy's references" "$(( ${cg:-0} - $(refs "$k") ))" "$diff"
  done >cgchecks.lst
  cat cgchecks.lst
  FAILS=$((FAILS + $(grep -c '^FAIL' cgchecks.lst || true)))
else
  echo "ok   - (valgrind not installed: no comparison with Cachegrind)"
fi
finish
