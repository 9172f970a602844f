/* Parallel sparse lower-triangular solve, the parallel "tri" of MemSpy's section 4 (Figure 5).
 *
 * Solves M x = b for a sparse, unit-diagonal, lower-triangular M in compressed row format
 * (M.nz, M.col, M.rowstart, as examples/tri). Rows are put into levels (a row's level is one
 * more than the highest level of the rows it depends on), and the rows of each level are dealt
 * to the threads round robin. A thread computing a row spins on Ready[col] until each x it
 * needs has been produced, then publishes x[row] and sets Ready[row].
 *
 * What MemSpy showed, and this reproduces: the misses rise against the sequential run
 * (THREADS = 1: no thread is created and the rows are solved in their natural order). x and Ready are written by one processor and read by
 * others, so they gain invalidation (coherence) misses; and with few non-zeros per row,
 * neighbouring rows of M.nz share a line but belong to different processors.
 *
 * Ready is read and written with acquire/release atomics (the spin loop yields while it waits).
 * How often a thread spins depends on the OS schedule, so the number of Ready reads varies a
 * little from run to run; the solution does not.
 *
 * usage: ptri [THREADS [ROWS [NONZEROS_PER_ROW [BAND]]]]      (defaults 4 10000 4 200)
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int n, nnz;
    double *nz;     /* non-zero values, row by row */
    int *col;       /* column of each non-zero */
    int *rowstart;  /* index in nz/col of each row's first non-zero; rowstart[n] = nnz */
} SparseMatrix;

/* What every thread shares, and which rows a thread owns. */
typedef struct {
    const SparseMatrix *M;
    const double *b;
    double *x;
    int *Ready;        /* Ready[i] != 0 once x[i] is final */
    const int *order;  /* rows sorted by level; thread t owns order[t], order[t + T], ... */
    int nthreads;
} Solve;

typedef struct {
    const Solve *solve;
    int me;
} Worker;

static unsigned lcg(unsigned *s) { return *s = *s * 1103515245u + 12345u; }

/* Non-zeros in row i (the unit diagonal is implicit). */
static int RowCount(int i, int per_row) { return i < per_row ? i : per_row; }

/* A random banded lower-triangular matrix without its unit diagonal. Returns 0 or -1. */
static int GenerateMatrix(SparseMatrix *M, int n, int per_row, int band)
{
    unsigned seed = 12345;
    M->n = n;
    M->nnz = 0;
    for (int i = 0; i < n; i++)
        M->nnz += RowCount(i, per_row);
    M->rowstart = malloc(sizeof(int) * (size_t)(n + 1));
    M->col = calloc((size_t)M->nnz, sizeof(int));
    M->nz = calloc((size_t)M->nnz, sizeof(double));
    if (!M->rowstart || !M->col || !M->nz)
        return -1;
    M->rowstart[0] = 0;
    for (int i = 0; i < n; i++) {
        int count = RowCount(i, per_row);
        int lo = i - band < 0 ? 0 : i - band;
        for (int k = 0; k < count; k++) {
            M->col[M->rowstart[i] + k] = lo + (int)(lcg(&seed) % (unsigned)(i - lo));
            M->nz[M->rowstart[i] + k] = 1.0 / (1.0 + (double)(lcg(&seed) % 97));
        }
        M->rowstart[i + 1] = M->rowstart[i] + count;
    }
    return 0;
}

/* The rows sorted by (level, row): a row depends only on rows of lower levels. Returns a new
 * array of n rows, or NULL. */
static int *LevelOrder(const SparseMatrix *M)
{
    int n = M->n, nlevels = 0;
    int *level = calloc((size_t)n, sizeof(int));
    int *order = malloc(sizeof(int) * (size_t)n);
    int *start = NULL;
    if (!level || !order)
        goto fail;
    for (int i = 0; i < n; i++) {
        for (int j = M->rowstart[i]; j < M->rowstart[i + 1]; j++)
            if (level[M->col[j]] + 1 > level[i])
                level[i] = level[M->col[j]] + 1;
        if (level[i] + 1 > nlevels)
            nlevels = level[i] + 1;
    }
    start = calloc((size_t)nlevels + 1, sizeof(int));
    if (!start)
        goto fail;
    for (int i = 0; i < n; i++)
        start[level[i] + 1]++;
    for (int l = 0; l < nlevels; l++)
        start[l + 1] += start[l];
    for (int i = 0; i < n; i++)
        order[start[level[i]]++] = i;
    free(level);
    free(start);
    return order;
fail:
    free(level);
    free(order);
    return NULL;
}

/* The rows 0..n-1 in their own order. Returns a new array or NULL. */
static int *NaturalOrder(int n)
{
    int *order = malloc(sizeof(int) * (size_t)n);
    if (order)
        for (int i = 0; i < n; i++)
            order[i] = i;
    return order;
}

/* Figure 5 of the paper: the rows this thread owns, in level order. */
static void *SolveRows(void *arg)
{
    const Worker *w = arg;
    const Solve *s = w->solve;
    const SparseMatrix *M = s->M;
    for (int k = w->me; k < M->n; k += s->nthreads) {
        int row = s->order[k];
        double accum = s->b[row];
        for (int j = M->rowstart[row]; j < M->rowstart[row + 1]; j++) {
            int c = M->col[j];
            while (!__atomic_load_n(&s->Ready[c], __ATOMIC_ACQUIRE))   /* wait until x[c] is ready */
                sched_yield();
            accum = accum - M->nz[j] * s->x[c];
        }
        s->x[row] = accum;
        __atomic_store_n(&s->Ready[row], 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = argc > 1 ? atoi(argv[1]) : 4;
    int n = argc > 2 ? atoi(argv[2]) : 10000;
    int per_row = argc > 3 ? atoi(argv[3]) : 4;
    int band = argc > 4 ? atoi(argv[4]) : 200;
    if (nthreads < 1 || nthreads > 64 || n <= 1 || per_row <= 0 || band <= 0) {
        fprintf(stderr, "usage: ptri [THREADS [ROWS [NONZEROS_PER_ROW [BAND]]]]\n");
        return 2;
    }
    SparseMatrix M;
    if (GenerateMatrix(&M, n, per_row, band) != 0) {
        fprintf(stderr, "ptri: out of memory\n");
        return 1;
    }
    /* The sequential run solves the rows in their natural order (the paper's Figure 4); the
     * level order only serves to spread the rows over the threads. */
    int *order = nthreads > 1 ? LevelOrder(&M) : NaturalOrder(n);
    double *b = malloc(sizeof(double) * (size_t)n);
    double *x = malloc(sizeof(double) * (size_t)n);
    int *Ready = calloc((size_t)n, sizeof(int));
    Worker *workers = malloc(sizeof(Worker) * (size_t)nthreads);
    pthread_t *tids = malloc(sizeof(pthread_t) * (size_t)nthreads);
    if (!order || !b || !x || !Ready || !workers || !tids) {
        fprintf(stderr, "ptri: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        b[i] = 1.0 + (double)(i % 5);
    Solve solve = {&M, b, x, Ready, order, nthreads};
    for (int t = 0; t < nthreads; t++)
        workers[t] = (Worker){&solve, t};
    /* The main thread is solver 0: THREADS processors in all, and none created at all for
     * the sequential run. */
    for (int t = 1; t < nthreads; t++)
        if (pthread_create(&tids[t], NULL, SolveRows, &workers[t]) != 0) {
            fprintf(stderr, "ptri: cannot create thread %d\n", t);
            return 1;
        }
    SolveRows(&workers[0]);
    for (int t = 1; t < nthreads; t++)
        pthread_join(tids[t], NULL);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    printf("threads=%d n=%d nnz=%d sum(x)=%.6f\n", nthreads, M.n, M.nnz, sum);
    free(M.nz);
    free(M.col);
    free(M.rowstart);
    free(order);
    free(b);
    free(x);
    free(Ready);
    free(workers);
    free(tids);
    return 0;
}
