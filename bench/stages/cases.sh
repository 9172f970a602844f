# The bench kernels of bench/stages (run.sh, program.sh), one per line: NAME SOURCE ARGS...
# KERNELS="spmv matmul" runs a subset (or adds blkmatmul).
cases() {
    for k in ${KERNELS:-stencil spmv matmul}; do
        case $k in
        stencil) echo "stencil bench/kernels/stencil.c 1024 2" ;;
        spmv) echo "spmv bench/kernels/spmv.c 100000 16 2" ;;
        matmul) echo "matmul bench/kernels/matmul.c 256 1" ;;
        blkmatmul) echo "blkmatmul examples/blkmatmul/blkmatmul.c 295 64" ;; # not by default
        esac
    done
}
