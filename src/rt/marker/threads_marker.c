/* Linked into a program only when the program itself calls pthread_create: memspy-cc links
 * executables with --wrap=pthread_create and this archive after the runtime, so the program's
 * calls come here (and go on to the runtime's pthread_create) and the marker below lands in
 * the executable. `memspy run` looks for the marker to record every thread's stream from the
 * start (src/cli/program_check.c). Calls from shared libraries reach the runtime directly. */
#include <pthread.h>

int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/* The marker: its name is MS_THREADS_MARKER of src/cli/program_check.h. */
__attribute__((used)) const char __memspy_threads_linked[] = "memspy: this program creates threads";

/* The program's pthread_create: the runtime's interposer (the "real" one to the linker). */
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    return __real_pthread_create(thread, attr, fn, arg);
}
