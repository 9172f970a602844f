/* Test program for t_threads_*.sh: `rt_threads MODE` exercises one threading situation.
 * Every mode prints the same text and exits the same way with or without the runtime
 * (the tests compare both runs), and must end on its own (the tests run it under timeout). */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1000
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static volatile long counter;
static double data[64][N];

/* Threads that announced they have done their first work (the modes wait for them, so the
 * streams are the same however the threads are scheduled). */
static int started_count;

static void started(void) { __atomic_add_fetch(&started_count, 1, __ATOMIC_RELEASE); }

static void wait_started(int n) {
    while (__atomic_load_n(&started_count, __ATOMIC_ACQUIRE) < n) usleep(1000);
}

/* Some instrumented work on the thread's own row. */
static double work(int row) {
    double s = 0;
    for (int i = 0; i < N; i++) data[row][i] = i * 0.5 + row;
    for (int i = 0; i < N; i++) s += data[row][i];
    return s;
}

/* Two lock/unlock pairs around a shared counter. */
static void *locker(void *arg) {
    (void)arg;
    for (int i = 0; i < 2; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static int mode_mutex(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, locker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("counter %ld\n", counter);
    return 0;
}

/* ---- every other pthread primitive once, in a fixed order ---- */
static pthread_barrier_t barrier;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static sem_t sem;
static int ready;

static void *sync_child(void *arg) {
    (void)arg;
    pthread_barrier_wait(&barrier);              /* BARRIER(b, 2) */
    pthread_mutex_lock(&lock);                   /* ACQUIRE(m): once main waits on cond */
    ready = 1;
    pthread_cond_signal(&cond);                  /* COND_SIGNAL(c, 0) */
    pthread_mutex_unlock(&lock);                 /* RELEASE(m) */
    sem_post(&sem);                              /* SEM_POST(s) */
    return NULL;                                 /* EXIT */
}

static int mode_sync(void) {
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_spin_init(&spin, 0);
    sem_init(&sem, 0, 0);
    pthread_t t;
    pthread_create(&t, NULL, sync_child, NULL);  /* CREATE(1) */
    pthread_mutex_lock(&lock);                   /* ACQUIRE(m): the child cannot set ready */
    pthread_barrier_wait(&barrier);              /* BARRIER(b, 2) */
    while (!ready) pthread_cond_wait(&cond, &lock);   /* COND_WAIT(c, m), exactly once */
    pthread_mutex_unlock(&lock);                 /* RELEASE(m) */
    sem_wait(&sem);                              /* SEM_WAIT(s) */
    pthread_join(t, NULL);                       /* JOIN(1) */
    pthread_rwlock_rdlock(&rwlock);              /* ACQUIRE(rw, 1) */
    pthread_rwlock_unlock(&rwlock);              /* RELEASE(rw) */
    pthread_rwlock_wrlock(&rwlock);              /* ACQUIRE(rw, 0) */
    pthread_rwlock_unlock(&rwlock);              /* RELEASE(rw) */
    pthread_spin_lock(&spin);                    /* ACQUIRE(sp) */
    pthread_spin_unlock(&spin);                  /* RELEASE(sp) */
    if (pthread_mutex_trylock(&lock) == 0) pthread_mutex_unlock(&lock);   /* ACQUIRE, RELEASE */
    struct timespec past = {0, 0};
    pthread_mutex_lock(&lock);                   /* ACQUIRE(m) */
    pthread_cond_timedwait(&cond, &lock, &past); /* timed out: RELEASE(m), ACQUIRE(m) */
    pthread_mutex_unlock(&lock);                 /* RELEASE(m) */
    if (sem_trywait(&sem) != 0) printf("trywait failed as expected\n");   /* not recorded */
    printf("sync done\n");
    return 0;
}

/* ---- threads that never end by themselves: the program exits under them ---- */
static int pipe_fd[2];

static void *blocked_reader(void *arg) {
    char c;
    (void)arg;
    work(1);
    started();
    ssize_t n = read(pipe_fd[0], &c, 1);   /* never returns: nobody writes */
    return (void *)n;
}

static void *blocked_waiter(void *arg) {
    (void)arg;
    work(2);
    pthread_mutex_lock(&lock);
    started();
    for (;;) pthread_cond_wait(&cond, &lock);   /* never signalled */
    return NULL;
}

static void *sleeper(void *arg) {
    (void)arg;
    work(3);
    started();
    sleep(1000);
    return NULL;
}

static volatile int stop_flag;

static void *spinner(void *arg) {
    long row = (long)arg;
    /* relaxed: an acquire load would make the loop a spin-wait whose iterations (up to 8
     * accesses) the runtime collapses (src/rt/atomics.c); this one must keep its writes */
    for (long i = 0; !__atomic_load_n(&stop_flag, __ATOMIC_RELAXED); i++) {   /* never set */
        data[row][0] += 1;
        if (i == 1000) started();
    }
    return NULL;
}

static int mode_blocked(void) {
    pthread_t t;
    if (pipe(pipe_fd) != 0) return 1;
    pthread_create(&t, NULL, blocked_reader, NULL);
    pthread_create(&t, NULL, blocked_waiter, NULL);
    pthread_create(&t, NULL, sleeper, NULL);
    pthread_create(&t, NULL, spinner, (void *)4L);
    pthread_create(&t, NULL, spinner, (void *)5L);
    wait_started(5);
    printf("main leaves %g\n", work(0));
    return 0;   /* exit() with five threads blocked, sleeping or spinning, none joined */
}

/* ---- work made known to main just before the program exits ----
 * One thread by an atomic read-modify-write, the other by completing a barrier main already
 * waits at; main exits as soon as both have, while they sleep. Their work must be in their
 * streams even if they are still inside the runtime when main exits
 * (MEMSPY_TEST_DRAIN_PAUSE_MS makes them linger there). */
static int published_count;
static volatile int main_at_barrier;
static pthread_barrier_t publish_barrier;

static void *publish_by_atomic(void *arg) {
    (void)arg;
    work(1);
    __atomic_add_fetch(&published_count, 1, __ATOMIC_RELEASE);
    sleep(1000);
    return NULL;
}

static void *publish_by_barrier(void *arg) {
    (void)arg;
    while (!main_at_barrier) usleep(1000);
    work(2);
    pthread_barrier_wait(&publish_barrier);
    sleep(1000);
    return NULL;
}

static int mode_published(void) {
    pthread_t t;
    pthread_barrier_init(&publish_barrier, NULL, 2);
    pthread_create(&t, NULL, publish_by_atomic, NULL);
    pthread_create(&t, NULL, publish_by_barrier, NULL);
    main_at_barrier = 1;
    pthread_barrier_wait(&publish_barrier);
    while (!__atomic_load_n(&published_count, __ATOMIC_ACQUIRE)) usleep(1000);
    printf("published %g\n", work(0));
    return 0;   /* exit() with both threads asleep */
}

/* exit() called from a thread while others run. */
static void *exiter(void *arg) {
    (void)arg;
    usleep(100000);
    printf("exiting from a thread %g\n", work(6));
    fflush(stdout);
    exit(5);
}

static int mode_exit_thread(void) {
    pthread_t t;
    pthread_create(&t, NULL, spinner, (void *)7L);
    wait_started(1);
    pthread_create(&t, NULL, exiter, NULL);
    for (;;) work(0);
}

/* Detached threads, some still running at exit. */
static void *short_work(void *arg) {
    work((int)(long)arg);
    started();
    return NULL;
}

static int mode_detached(void) {
    pthread_t t;
    for (long i = 1; i < 4; i++) {
        pthread_create(&t, NULL, short_work, (void *)i);
        pthread_detach(t);
    }
    pthread_create(&t, NULL, sleeper, NULL);
    pthread_detach(t);
    wait_started(4);
    printf("detached %g\n", work(0));
    return 0;
}

/* A thread that exits holding a lock. */
static void *lock_and_leave(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    counter = 42;
    return NULL;
}

static int mode_exit_locked(void) {
    pthread_t t;
    pthread_create(&t, NULL, lock_and_leave, NULL);
    pthread_join(t, NULL);
    printf("trylock %s, counter %ld\n", pthread_mutex_trylock(&lock) == EBUSY ? "busy" : "free", counter);
    return 0;
}

/* 64 threads at once, each working on its own row. */
static void *row_worker(void *arg) {
    work((int)(long)arg);
    return NULL;
}

static int mode_many(void) {
    pthread_t t[64];
    for (long i = 0; i < 64; i++) pthread_create(&t[i], NULL, row_worker, (void *)i);
    for (int i = 0; i < 64; i++) pthread_join(t[i], NULL);
    double s = 0;
    for (int r = 0; r < 64; r++) s += data[r][N - 1];
    printf("many %g\n", s);
    return 0;
}

/* fork while a thread runs: the child is not profiled, its output and exit are its own. */
static int mode_fork(void) {
    pthread_t t;
    pthread_create(&t, NULL, sleeper, NULL);
    wait_started(1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        printf("child %g\n", work(8));
        exit(7);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("parent saw child exit %d, %g\n", WEXITSTATUS(status), work(0));
    return 0;
}

/* A crash in a thread while another one runs. */
static void *crasher(void *arg) {
    (void)arg;
    work(9);
    usleep(100000);
    volatile int *p = (int *)16;
    *p = 1;
    return NULL;
}

static int mode_crash(void) {
    pthread_t t;
    pthread_create(&t, NULL, spinner, (void *)10L);
    wait_started(1);
    pthread_create(&t, NULL, crasher, NULL);
    printf("crash ahead\n");
    fflush(stdout);
    for (;;) work(0);
}

/* Threads created by a shared library's constructor (rt_threads_lib.c, linked into the
 * program built with -DRT_THREADS_CTOR_LIB only). */
#ifdef RT_THREADS_CTOR_LIB
double rt_threads_lib_result(void);

static int mode_libctor(void) {
    printf("library threads %g\n", rt_threads_lib_result());
    return 0;
}
#else
static int mode_libctor(void) { return 3; }
#endif

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "mutex";
    static const struct { const char *name; int (*fn)(void); } modes[] = {
        {"mutex", mode_mutex},       {"sync", mode_sync},         {"blocked", mode_blocked},
        {"exit_thread", mode_exit_thread}, {"detached", mode_detached}, {"exit_locked", mode_exit_locked},
        {"many", mode_many},         {"fork", mode_fork},         {"crash", mode_crash},
        {"libctor", mode_libctor},   {"published", mode_published}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(mode, modes[i].name)) return modes[i].fn();
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
