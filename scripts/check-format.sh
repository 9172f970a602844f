#!/bin/sh
# The formatting check (CTest `format`): every C/C++ source of src/ and tests/unit must be as
# `make format` leaves it (clang-format-14 with the root .clang-format). Prints the files that
# differ and fails; skips (exit 77) where clang-format-14 is not installed.
root=${1:-.}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
command -v "$CLANG_FORMAT" >/dev/null || { echo "skip: $CLANG_FORMAT not installed (sh scripts/deps.sh format)"; exit 77; }
cd "$root" || exit 1
bad=0
for f in $(find src tests/unit \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cpp' \) | sort); do
  if ! "$CLANG_FORMAT" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run make format)"
    bad=1
  fi
done
exit $bad
