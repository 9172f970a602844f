/* Sequential sparse lower-triangular solve, the "tri" program of MemSpy's section 4.
 *
 * Solves M x = b for a sparse, unit-diagonal, lower-triangular M stored in compressed row
 * format as in the paper: the non-zeros of each row contiguously in M.nz, their column
 * numbers in M.col, and the start of each row in M.rowstart. Like the paper's run on a
 * Harwell-Boeing matrix, the matrix is read from a file (written first by this program's
 * generator), so the solve is the first code to touch M.nz: M.nz dominates the memory stall,
 * and its misses are first-reference (cold) misses: each non-zero is used exactly once.
 *
 * usage: tri [ROWS [NONZEROS_PER_ROW [BAND]]]      (defaults 40000 16 400)
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int n, nnz;
    double *nz;     /* non-zero values, row by row */
    int *col;       /* column of each non-zero */
    int *rowstart;  /* index in nz/col of each row's first non-zero; rowstart[n] = nnz */
} SparseMatrix;

static unsigned lcg(unsigned *s) { return *s = *s * 1103515245u + 12345u; }

/* Non-zeros in row i (the unit diagonal is implicit). */
static int RowCount(int i, int per_row) { return i < per_row ? i : per_row; }

/* Write a random banded lower-triangular matrix (without its unit diagonal) to f: a header
 * {n, nnz}, then for each row its count, column numbers and values, from small buffers. */
static void GenerateMatrix(FILE *f, int n, int per_row, int band)
{
    unsigned seed = 12345;
    int header[2] = {n, 0};
    for (int i = 0; i < n; i++)
        header[1] += RowCount(i, per_row);
    int *cols = malloc(sizeof(int) * (size_t)per_row);
    double *vals = malloc(sizeof(double) * (size_t)per_row);
    fwrite(header, sizeof header, 1, f);
    for (int i = 0; i < n; i++) {
        int count = RowCount(i, per_row);
        int lo = i - band < 0 ? 0 : i - band;
        for (int k = 0; k < count; k++) {
            cols[k] = lo + (int)(lcg(&seed) % (unsigned)(i - lo));
            vals[k] = 1.0 / (1.0 + (double)(lcg(&seed) % 97));
        }
        fwrite(&count, sizeof count, 1, f);
        fwrite(cols, sizeof(int), (size_t)count, f);
        fwrite(vals, sizeof(double), (size_t)count, f);
    }
    free(cols);
    free(vals);
}

/* Read the matrix written by GenerateMatrix into compressed row format. */
static int ReadMatrix(FILE *f, SparseMatrix *M)
{
    int header[2];
    if (fread(header, sizeof header, 1, f) != 1)
        return -1;
    M->n = header[0];
    M->nnz = header[1];
    M->rowstart = malloc(sizeof(int) * (size_t)(M->n + 1));
    M->col = calloc((size_t)M->nnz, sizeof(int));
    M->nz = calloc((size_t)M->nnz, sizeof(double));
    if (!M->rowstart || !M->col || !M->nz)
        return -1;
    M->rowstart[0] = 0;
    for (int i = 0; i < M->n; i++) {
        int count;
        if (fread(&count, sizeof count, 1, f) != 1 || count < 0 || M->rowstart[i] + count > M->nnz)
            return -1;
        M->rowstart[i + 1] = M->rowstart[i] + count;
        if (fread(M->col + M->rowstart[i], sizeof(int), (size_t)count, f) != (size_t)count ||
            fread(M->nz + M->rowstart[i], sizeof(double), (size_t)count, f) != (size_t)count)
            return -1;
    }
    return 0;
}

/* Forward substitution: x[i] = b[i] - sum_j M[i][j] * x[j]. */
static void Solve(const SparseMatrix *M, const double *b, double *x)
{
    for (int i = 0; i < M->n; i++) {
        double accum = b[i];
        for (int j = M->rowstart[i]; j < M->rowstart[i + 1]; j++)
            accum = accum - M->nz[j] * x[M->col[j]];
        x[i] = accum;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40000;
    int per_row = argc > 2 ? atoi(argv[2]) : 16;
    int band = argc > 3 ? atoi(argv[3]) : 400;
    if (n <= 1 || per_row <= 0 || band <= 0) {
        fprintf(stderr, "usage: tri [ROWS [NONZEROS_PER_ROW [BAND]]]\n");
        return 2;
    }
    FILE *f = tmpfile();
    if (!f) {
        perror("tmpfile");
        return 1;
    }
    GenerateMatrix(f, n, per_row, band);
    rewind(f);
    SparseMatrix M;
    if (ReadMatrix(f, &M) != 0) {
        fprintf(stderr, "tri: cannot read the matrix\n");
        return 1;
    }
    fclose(f);
    double *b = malloc(sizeof(double) * (size_t)n);
    double *x = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
        b[i] = 1.0 + (double)(i % 5);
    Solve(&M, b, x);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    printf("n=%d nnz=%d sum(x)=%.6f\n", M.n, M.nnz, sum);
    free(M.nz);
    free(M.col);
    free(M.rowstart);
    free(b);
    free(x);
    return 0;
}
