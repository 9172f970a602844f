/* Non-bonded force kernel (NBF), the OpenMP case study of ccSIM section 6.1.
 *
 * Each thread computes the pair forces of its share of the atoms into a private, full-length
 * array flocal, then adds flocal into the shared force array f. How that update is
 * synchronised is the subject of the study:
 *
 *   original    one `omp critical` per element: f[i] = f[i] + flocal[i]. All threads walk f
 *               in the same order, so each line of f ping-pongs between the processors: almost
 *               all invalidations of f are true sharing, inside a region, under a lock.
 *   serialized  one `omp critical` around the whole loop: each thread updates all of f in
 *               one go, so a line of f moves once per thread instead of once per element.
 *   roundrobin  f cut into one segment per thread; in round r thread t updates segment
 *               (t + r) mod T, with a barrier between rounds: no lock, a line moves once
 *               per round.
 *
 * The forces are small multiples of 1/4 so that every sum is exact in float: the result does
 * not depend on the order in which the threads' critical sections ran.
 *
 * usage: nbf [original|serialized|roundrobin] [ATOMS [STEPS]]   (defaults original 4096 2)
 * The number of threads is OpenMP's (OMP_NUM_THREADS); the tests use 4.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEIGHBOURS 8 /* each atom interacts with the next NEIGHBOURS atoms */

typedef enum { ORIGINAL, SERIALIZED, ROUND_ROBIN } Strategy;

/* Toy pair force between atoms at positions xi and xj: a multiple of 1/4 in [-1, 1]. */
static float PairForce(float xi, float xj)
{
    int d = (int)(xj - xi);
    return (float)(d % 9 - 4) * 0.25f;
}

/* Forces of this thread's atoms (a static share of 0..natoms-1) and their partners, summed
 * into the private array flocal. Ends with the worksharing loop's implicit barrier. */
static void ComputeForces(const float *x, float *flocal, int natoms)
{
    for (int i = 0; i < natoms; i++)
        flocal[i] = 0.0f;
#pragma omp for schedule(static)
    for (int i = 0; i < natoms; i++)
        for (int j = i + 1; j <= i + NEIGHBOURS && j < natoms; j++) {
            float force = PairForce(x[i], x[j]);
            flocal[i] += force;
            flocal[j] -= force;
        }
}

/* ccSIM's original code: a critical section per element of f. */
static void UpdateOriginal(float *f, const float *flocal, int natoms)
{
    for (int i = 0; i < natoms; i++) {
#pragma omp critical
        f[i] = f[i] + flocal[i];
    }
}

/* The serialized transformation: one critical section around the whole update. */
static void UpdateSerialized(float *f, const float *flocal, int natoms)
{
#pragma omp critical
    for (int i = 0; i < natoms; i++)
        f[i] = f[i] + flocal[i];
}

/* The round-robin transformation: disjoint segments, one per thread and round. */
static void UpdateRoundRobin(float *f, const float *flocal, int natoms)
{
    int nthreads = omp_get_num_threads();
    int me = omp_get_thread_num();
    int segment_length = (natoms + nthreads - 1) / nthreads;
    for (int round = 0; round < nthreads; round++) {
        int segment = (me + round) % nthreads;
        int lo = segment * segment_length;
        int hi = lo + segment_length < natoms ? lo + segment_length : natoms;
        for (int i = lo; i < hi; i++)
            f[i] = f[i] + flocal[i];
#pragma omp barrier
    }
}

static int ParseStrategy(const char *name, Strategy *out)
{
    static const char *const names[] = {"original", "serialized", "roundrobin"};
    for (int s = 0; s < 3; s++)
        if (strcmp(name, names[s]) == 0) {
            *out = (Strategy)s;
            return 0;
        }
    return -1;
}

int main(int argc, char **argv)
{
    Strategy strategy = ORIGINAL;
    int natoms = argc > 2 ? atoi(argv[2]) : 4096;
    int steps = argc > 3 ? atoi(argv[3]) : 2;
    if ((argc > 1 && ParseStrategy(argv[1], &strategy) != 0) || natoms < 2 || steps < 1) {
        fprintf(stderr, "usage: nbf [original|serialized|roundrobin] [ATOMS [STEPS]]\n");
        return 2;
    }
    float *x = malloc(sizeof(float) * (size_t)natoms);
    float *f = malloc(sizeof(float) * (size_t)natoms);
    if (!x || !f) {
        perror("nbf");
        return 1;
    }
    unsigned seed = 12345;
    for (int i = 0; i < natoms; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)(i * 4 + (int)(seed >> 16) % 4);
        f[i] = 0.0f;
    }
    int nthreads = 0;
#pragma omp parallel
    {
        float *flocal = malloc(sizeof(float) * (size_t)natoms);
        if (!flocal)
            abort();
#pragma omp master
        nthreads = omp_get_num_threads();
        for (int step = 0; step < steps; step++) {
            ComputeForces(x, flocal, natoms);
            if (strategy == ORIGINAL)
                UpdateOriginal(f, flocal, natoms);
            else if (strategy == SERIALIZED)
                UpdateSerialized(f, flocal, natoms);
            else
                UpdateRoundRobin(f, flocal, natoms);
#pragma omp barrier
        }
        free(flocal);
    }
    double sum = 0, magnitude = 0;
    for (int i = 0; i < natoms; i++) {
        sum += f[i];
        magnitude += f[i] < 0 ? -f[i] : f[i];
    }
    printf("threads=%d atoms=%d steps=%d sum(f)=%.2f sum|f|=%.2f\n", nthreads, natoms, steps, sum,
           magnitude);
    free(x);
    free(f);
    return 0;
}
