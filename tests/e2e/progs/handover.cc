// handover.cc THREADS ROUNDS: handover.c with C++ std::atomic (load(acquire) spin, store(release)),
// the turn's compare-exchange on the last round and a seq_cst fetch_add of the hand-over count.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <sched.h>

static struct alignas(64) {
    long balance, count, last;
} record;
alignas(64) static std::atomic<long> turn;
alignas(64) static std::atomic<long> handed;
static long nthreads, rounds;

static void *worker(void *arg)
{
    long id = (long)arg;
    for (long r = 0; r < rounds; r++) {
        long mine = r * nthreads + id;
        while (turn.load(std::memory_order_acquire) != mine) sched_yield();
        record.balance += id + 1;
        record.count++;
        record.last = id;
        handed.fetch_add(1);
        turn.store(mine + 1, std::memory_order_release);
    }
    return nullptr;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atol(argv[1]) : 4;
    rounds = argc > 2 ? atol(argv[2]) : 500;
    if (nthreads < 1 || nthreads > 64 || rounds < 1) return 2;
    pthread_t tid[64];
    for (long i = 0; i < nthreads; i++) pthread_create(&tid[i], nullptr, worker, (void *)i);
    for (long i = 0; i < nthreads; i++) pthread_join(tid[i], nullptr);
    std::printf("threads=%ld rounds=%ld balance=%ld count=%ld last=%ld handed=%ld\n", nthreads, rounds, record.balance,
                record.count, record.last, handed.load());
    return 0;
}
