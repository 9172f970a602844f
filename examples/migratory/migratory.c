/* Migratory sharing: one shared record updated read-modify-write under a mutex, by each
 * thread in turn (Carnival's communication patterns, section 2.2).
 *
 * Every thread computes deposits from its own private data and adds each one to the shared
 * account (balance, number of deposits, largest deposit: one cache line) inside a critical
 * section. The account line is read and then written by one processor at a time, and handed
 * from processor to processor with the lock: its coherence misses are migratory.
 *
 * usage: migratory [THREADS [DEPOSITS_PER_THREAD]]     (defaults 4 2000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORK 16 /* private values summed into one deposit */
#define MAX_THREADS 64

typedef struct {
    double balance;
    long deposits;
    double largest;
} Account;

/* The shared record: alone in its 64-byte line. */
static Account account __attribute__((aligned(64)));
static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int me;
    int ndeposits;
} Depositor;

/* Read-modify-write of the whole account, under its lock. */
static void Deposit(double amount)
{
    pthread_mutex_lock(&account_lock);
    account.balance += amount;
    account.deposits += 1;
    if (amount > account.largest)
        account.largest = amount;
    pthread_mutex_unlock(&account_lock);
}

static void *RunDepositor(void *arg)
{
    const Depositor *d = arg;
    double *values = malloc(sizeof(double) * WORK);   /* this thread's private data */
    if (!values)
        abort();
    for (int k = 0; k < d->ndeposits; k++) {
        double amount = 0;
        for (int i = 0; i < WORK; i++) {
            values[i] = (double)((d->me * 31 + k * 7 + i) % 13);
            amount += values[i];
        }
        Deposit(amount);
    }
    free(values);
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = argc > 1 ? atoi(argv[1]) : 4;
    int ndeposits = argc > 2 ? atoi(argv[2]) : 2000;
    if (nthreads < 1 || nthreads > MAX_THREADS || ndeposits < 1) {
        fprintf(stderr, "usage: migratory [THREADS [DEPOSITS_PER_THREAD]]\n");
        return 2;
    }
    Depositor depositors[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    /* The main thread is depositor 0: THREADS processors in all. */
    for (int t = 0; t < nthreads; t++)
        depositors[t] = (Depositor){t, ndeposits};
    for (int t = 1; t < nthreads; t++)
        if (pthread_create(&tids[t], NULL, RunDepositor, &depositors[t]) != 0) {
            fprintf(stderr, "migratory: cannot create thread %d\n", t);
            return 1;
        }
    RunDepositor(&depositors[0]);
    for (int t = 1; t < nthreads; t++)
        pthread_join(tids[t], NULL);
    printf("threads=%d deposits=%ld balance=%.0f largest=%.0f\n", nthreads, account.deposits,
           account.balance, account.largest);
    return 0;
}
