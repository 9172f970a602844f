# The threaded programs of the per-stage instruction counts (stages.sh, decode.sh, roles.sh),
# one per line: name source thread-flag arguments (4 threads each; about 1.8M-3.5M references).
small_cases() {
    echo "counters-packed examples/counters/counters.c -fopenmp packed 200000 4"
    echo "nbf examples/nbf/nbf.c -fopenmp original 8192 4"
    echo "ptri examples/ptri/ptri.c -pthread 4 40000 4 200"
}
