#!/bin/sh
# memspy export --format callgrind carries the call graph: valgrind's callgrind_annotate
# --inclusive=yes reads it without a warning and gives every function the inclusive costs
# of gprof's rule, exactly: main = the run's totals; b (a leaf) = its own; a = its own + the
# inlined touch() + its share of b by calls (largest remainders, so that a's and main's shares
# add up to b's); rec, which calls itself, = its own (calls inside a recursive cycle carry
# nothing). The numbers come from the run's JSON (code_parts, calls).
# progs/calltree.c: main -> a -> b (2 calls per call of a), main -> b, main -> rec -> rec.
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
command -v callgrind_annotate >/dev/null || { echo "skip: callgrind_annotate (valgrind) not installed"; exit 77; }
N=10
cc_build calltree "$SRC_DIR/tests/e2e/progs/calltree.c"
run_memspy r.json -- ./calltree $N
"$MEMSPY" export r.json --format callgrind -o cg.out

# calls CALLER CALLEE: the run's calls from CALLER to CALLEE; own F: stall and refs of the code
# that function F compiled (its code parts: its own code and what was inlined into it).
calls() { value r.json '.names as $n | [.calls[] | select($n[.caller] == "'"$1"'" and $n[.callee] == "'"$2"'") | .count] | add // 0'; }
own() { value r.json '.names as $n | [.code_parts[] | select($n[.function] == "'"$1"'")] | "\(map(.stall_cycles) | add // 0) \(map(.refs) | add // 0)"'; }
expect "a calls b 2 x N times" "$(calls a b)" $((2 * N))
expect "main calls b N times" "$(calls main b)" $N
expect "main calls a N times" "$(calls main a)" $N
expect "main calls rec N times" "$(calls main rec)" $N
expect "rec calls itself 20 x N times" "$(calls rec rec)" $((20 * N))

callgrind_annotate --inclusive=yes --show=Stall,Refs --threshold=100 cg.out >incl.txt 2>incl.err
expect "callgrind_annotate --inclusive=yes reads the export without warnings" "$(cat incl.err)" ""
# "245,363 (82.95%) 51,230 (89.61%)  calltree.c:a" -> "245363 51230"
incl() { grep -E ":$1\$" incl.txt | head -1 | sed 's/([^)]*)//g; s/,//g' | awk '{ print $1, $2 }'; }
expect "main's inclusive stall and refs are the run's totals" "$(incl main)" \
  "$(value r.json '"\(.totals.stall_cycles) \(.totals.refs)"')"
expect "b's inclusive cost is its own" "$(incl b)" "$(own b)"
expect "rec's inclusive cost is its own (recursion passes nothing up)" "$(incl rec)" "$(own rec)"
expect "touch (inlined into a) is shown with its cost" "$(incl touch)" \
  "$(value r.json '.code[] | select(.name == "touch") | "\(.stall_cycles) \(.refs)"')"

# share TOTAL: a's share of b's TOTAL by calls, largest remainder (a's edge first on ties)
ca=$(calls a b) cm=$(calls main b)
share() {
    c=$((ca + cm)) fa=$(($1 * ca / c)) fm=$(($1 * cm / c))
    if [ $((fa + fm)) -lt "$1" ] && [ $(($1 * ca % c)) -ge $(($1 * cm % c)) ]; then fa=$((fa + 1)); fi
    echo $fa
}
set -- $(own b)
b_stall=$1 b_refs=$2
set -- $(own a)
expect "a's inclusive = its own + touch + its share of b" "$(incl a)" \
  "$(($1 + $(share "$b_stall"))) $(($2 + $(share "$b_refs")))"
expect "... which is more than its own" "$(incl a | awk '{ print ($1 > '"$1"') }')" 1

# the file itself: a -> b with its count, rec -> rec with no cost
expect "cfn=b calls=2N from a" "$(grep -A1 '^cfn=b$' cg.out | grep -c "^calls=$((2 * N)) ")" 1
expect "rec's call of itself costs nothing" \
  "$(grep -A2 '^cfn=rec$' cg.out | grep -A1 "^calls=$((20 * N)) " | tail -1 | awk '{ s = 0; for (i = 2; i <= NF; i++) s += $i; print s }')" 0
callgrind_annotate --show=Stall cg.out >self.txt 2>self.err
expect "callgrind_annotate (self costs) reads it without warnings" "$(cat self.err)" ""
finish
