#!/bin/sh
# The layering check (`make check`, CTest test `layers`): every #include "..." in src/ that
# reaches into another folder of src/ must be one the table below allows. Dependencies go one
# way, from instrumentation to the CLI:
#   util <- sim, format, replay <- rt (inside the program)
#   sim, format <- model <- modelio (its JSON file) <- report, store
#   model, sim, format, replay <- analysis <- drive (replay + sim + analysis -> model) <- cli
# A new folder must be added here with what it may include.
# Usage: check-layers.sh [SRC_DIR]   (default: the src/ beside this script). Exit 1 on a violation.
src=${1:-$(dirname "$0")/../src}
cd "$src" || exit 2

# folder: the folders its files may include from (besides its own); * = any.
table='
util:
sim: util
format: sim util
replay: format util
rt: sim format util
cc: rt util
model: sim format util
modelio: model sim util
analysis: model sim format replay util
report: model modelio sim util
store: model modelio util
drive: replay sim format analysis model util
cli: *
'

find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' -o -name '*.cc' -o -name '*.cpp' \) | sort |
    xargs grep -n -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' |
    awk -v table="$table" '
    BEGIN {
        n = split(table, rows, "\n")
        for (i = 1; i <= n; i++) {
            if (rows[i] !~ /:/) continue
            split(rows[i], kv, ":")
            known[kv[1]] = 1
            m = split(kv[2], deps, " ")
            for (j = 1; j <= m; j++) { allow[kv[1], deps[j]] = 1; dep[kv[1]] = dep[kv[1]] " " deps[j] }
        }
        bad = 0
        # The table itself must go one way: no folder reaches itself through what it allows.
        for (f in known) if (reaches(f, f, 0)) {
            printf "the layer table is not one-directional: src/%s depends on itself\n", f
            bad = 1
        }
    }
    function reaches(from, target, depth,    m, d, j) {
        if (depth > 32) return 1
        m = split(dep[from], d, " ")
        for (j = 1; j <= m; j++) {
            if (d[j] == "*") continue
            if (d[j] == target || reaches(d[j], target, depth + 1)) return 1
        }
        return 0
    }
    # The folder under src/ that path (relative to src/, with .. parts) lands in; "" outside.
    function top(path,    parts, k, i, stack, depth) {
        k = split(path, parts, "/")
        depth = 0
        for (i = 1; i <= k; i++) {
            if (parts[i] == "." || parts[i] == "") continue
            if (parts[i] == "..") { if (depth == 0) return ""; depth--; continue }
            stack[++depth] = parts[i]
        }
        return depth > 1 ? stack[1] : "."
    }
    {
        # ./cli/cmd_run.c:24:#include "../drive/drive.h"
        file = $0; sub(/:.*/, "", file)
        rest = substr($0, length(file) + 2)
        line = rest; sub(/:.*/, "", line)
        inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
        dir = file; sub(/\/[^\/]*$/, "", dir)
        from = top(file)
        if (!(from in known)) {
            printf "%s:%s: folder src/%s is not in the layer table of scripts/check-layers.sh\n", substr(file, 3), line, from
            bad = 1
            next
        }
        to = top(dir "/" inc)
        if (to == from || allow[from, "*"] || allow[from, to]) next
        if (to == "") to = "outside src/"
        printf "%s:%s: src/%s may not include from %s (\"%s\"); allowed: %s\n", substr(file, 3), line, from, to, inc, allowed(from)
        bad = 1
    }
    function allowed(f,    s, i, r, kv) {
        for (i = 1; i <= n; i++) {
            if (rows[i] !~ /:/) continue
            split(rows[i], kv, ":")
            if (kv[1] == f) { s = kv[2]; sub(/^ */, "", s); return s == "" ? "nothing" : s }
        }
        return "nothing"
    }
    END {
        if (bad) print "layering violated: see the table in scripts/check-layers.sh"
        else print "layers: every include across src/ folders is allowed"
        exit bad
    }'
