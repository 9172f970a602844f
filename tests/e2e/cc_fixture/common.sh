# Shared setup for the compiler-wrapper tests (sourced by tests/e2e/t_cc_*.sh).
# Arguments of the sourcing script: SRC_DIR BUILD_DIR CC OPT (see tests/tests.cmake).
# Sets: FIXTURE, BIN (wrappers), LIBDIR (runtime), WORK (scratch dir, removed at exit),
# HAVE_FORTRAN (yes/no); exports MEMSPY_CC/MEMSPY_CXX/MEMSPY_FC for the chosen family.
set -eu
SRC_DIR=$1
BUILD_DIR=$2
CC_FAMILY=$3
OPT=$4
FIXTURE=$SRC_DIR/tests/e2e/cc_fixture
BIN=$BUILD_DIR/bin
LIBDIR=${MEMSPY_LIBDIR:-$BUILD_DIR/lib/memspy}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

[ -x "$BIN/memspy-cc" ] || fail "$BIN/memspy-cc is not built"
if [ ! -f "$LIBDIR/libmemspy_rt.a" ]; then
  echo "SKIP: runtime archive $LIBDIR/libmemspy_rt.a not built yet"
  exit 77
fi
export MEMSPY_LIBDIR="$LIBDIR"
unset MEMSPY_CC_FAMILY MEMSPY_CC_VERBOSE

case $CC_FAMILY in
gcc)
  export MEMSPY_CC=gcc MEMSPY_CXX=g++ MEMSPY_FC=gfortran
  HAVE_FORTRAN=yes
  ;;
clang)
  export MEMSPY_CC=clang MEMSPY_CXX=clang++ MEMSPY_FC=gfortran
  HAVE_FORTRAN=no # no flang here: Fortran is covered by the gcc lines
  ;;
*) fail "unknown compiler family $CC_FAMILY" ;;
esac
command -v "$MEMSPY_CC" >/dev/null || { echo "SKIP: $MEMSPY_CC not installed"; exit 77; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/memspy-t_cc.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
# The wrappers' temporary objects go here too, so leftovers can be detected.
mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
cd "$WORK"

# expect_instrumented OBJECT...: each object calls the function hooks and records accesses:
# through a read/write hook (-fsanitize=thread) or into the thread's buffer, with a site
# table's pc pairs (memspy's gcc plugin, the default with gcc).
expect_instrumented() {
  for obj in "$@"; do
    nm "$obj" | grep -Eq ' U __(tsan|memspy)_func_entry$' || fail "$obj: no function entry hook reference"
    expect_accesses_recorded "$obj"
  done
}

# expect_accesses_recorded OBJECT: its accesses are instrumented (either path).
expect_accesses_recorded() {
  if nm "$1" | grep -q ' U __memspy_buf$'; then
    readelf -S "$1" | grep -q __memspy_pcs || fail "$1: plugin records but no __memspy_pcs section"
  else
    nm "$1" | grep -Eq ' U __tsan_(unaligned_)?(read|write)(1|2|4|8|16|_range)$' ||
      fail "$1: no __tsan_read/__tsan_write reference and no __memspy_buf reference"
  fi
}

# expect_runtime_linked EXE: defines memspy's runtime marker and does not depend on libtsan.
expect_runtime_linked() {
  nm --defined-only "$1" | grep -q ' __memspy_runtime_v1$' ||
    fail "$1: __memspy_runtime_v1 not defined (runtime not linked)"
  if readelf -d "$1" | grep NEEDED | grep -q tsan; then
    fail "$1: links libtsan"
  fi
  if ldd "$1" | grep -q tsan; then
    fail "$1: loads libtsan"
  fi
}

# expect_output EXPECTED COMMAND...: the command's standard output is exactly EXPECTED.
expect_output() {
  expected=$1
  shift
  actual=$("$@") || fail "$* exited with status $?"
  [ "$actual" = "$expected" ] || fail "$*: printed '$actual', expected '$expected'"
}

# expect_no_leftovers: the wrappers removed their temporary directories.
expect_no_leftovers() {
  [ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left behind: $(ls -A "$TMPDIR")"
}
