/* memspy run: start a memspy-instrumented program with the chosen cache hierarchy, then turn
 * the raw profile it leaves into a run stored in the run database and print MemSpy's matrix.
 * Everything that can be checked is checked before the program starts; once it has run,
 * memspy's own failures keep what was gathered and say where it is. */
#define _GNU_SOURCE
#include <dirent.h>
#include <libgen.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../analysis/focus_names.h"
#include "../format/focus_spec.h"
#include "../util/util.h"
#include "advice_check.h"
#include "cli.h"
#include "program_check.h"
#include "progress.h"
#include "record_dir.h"
#include "recording.h"
#include "run_guard.h"
#include "run_output.h"

static const char USAGE[] =
    "Usage: memspy run [options] [--] PROG [ARGS...]\n\n"
    "Run PROG (built with memspy-cc, memspy-c++ or memspy-fortran) under the simulated cache\n"
    "hierarchy, store the run in the run database and print the matrix of memory stall time\n"
    "by code segment and data bin. The exit status is PROG's (128+N if it was killed by\n"
    "signal N; that of the program it executed, if it did), or 2 if memspy itself failed\n"
    "(the run could not be stored, for one). SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to\n"
    "memspy are passed on to PROG, whose run is then stored, marked incomplete; if memspy is\n"
    "killed, so is PROG. Each program PROG executes that memspy-cc built is a run of its own.\n\n" MS_RUN_OUTPUT_HELP
    "  --aslr               keep address-space randomization (results then vary by run)\n"
    "  --record DIR         also keep the program's event streams in DIR (created if missing)\n"
    "                       for `memspy resim DIR` under other cache hierarchies\n"
    "  --focus NAME         simulate only function or loop NAME and what it calls (repeatable,\n"
    "                       or NAME,NAME...; e.g. MTOOL's top mobjects): the rest runs at\n"
    "                       capture speed, unsimulated. A loop: FUNCTION:loop@FIRST-LAST (as\n"
    "                       code bins name it) or FILE:FIRST-LAST (memspy mtool's source\n"
    "                       column); one that names no loop, or several, is refused with the\n"
    "                       candidates (docs/mtool.md, Focus)\n"
    "  --threads            record per-thread streams from the start and replay them on the\n"
    "                       simulated multiprocessor (automatic when PROG calls pthread_create\n"
    "                       or OpenMP; a thread that starts unexpectedly is still handled, with\n"
    "                       the references before it simulated on one processor)\n"
    "  -h, --help           this help\n\n" MS_CACHE_OPTIONS_HELP;

typedef struct {
    ms_run_output_opts out;
    const char *record_dir; /* --record DIR, NULL if not given */
    int keep_aslr;
    int force_threads; /* --threads */
    char focus[1024];  /* --focus names, comma-separated; "" without */
    ms_interleave mode;
    ms_hier_config cfg;
    char **prog_argv; /* PROG ARGS..., NULL-terminated (points into argv) */
    int prog_argc;
} run_opts;

/* ---- before the program starts ---- */

static int parse_options(int argc, char **argv, run_opts *o, int *done)
{
    enum { OPT_ASLR = MS_OPT_FIRST_FREE, OPT_RECORD, OPT_THREADS, OPT_FOCUS };
    static const struct option longopts[] = {
        MS_RUN_OUTPUT_LONG_OPTIONS,
        { "aslr", no_argument, NULL, OPT_ASLR },
        { "threads", no_argument, NULL, OPT_THREADS },
        { "record", required_argument, NULL, OPT_RECORD },
        { "focus", required_argument, NULL, OPT_FOCUS },
        { "help", no_argument, NULL, 'h' },
        MS_CACHE_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    ms_cache_opts cache = { 0 };
    int opt, taken;
    *done = 0;
    opterr = 0;
    /* '+': stop at PROG, so that PROG's own options are left alone. */
    while ((opt = getopt_long(argc, argv, "+:ho:", longopts, NULL)) != -1) {
        if (ms_cache_opts_take(&cache, opt, optarg)) continue;
        if ((taken = ms_run_output_take("run", &o->out, opt, optarg)) != 0) {
            if (taken < 0) return MS_EXIT_USAGE;
            continue;
        }
        switch (opt) {
        case OPT_ASLR: o->keep_aslr = 1; break;
        case OPT_RECORD: o->record_dir = optarg; break;
        case OPT_THREADS: o->force_threads = 1; break;
        case OPT_FOCUS: {
            size_t used = strlen(o->focus), n = strlen(optarg);
            if (!n || strspn(optarg, ",") == n || strpbrk(optarg, "\t\n"))
                return ms_cli_usage_error("run", "--focus needs function names or loop names (NAME or NAME,NAME...)");
            for (const char *p = optarg, *e; *p; p = *e ? e + 1 : e) {
                ms_focus_spec spec;
                e = p + strcspn(p, ",");
                /* spaces only in an OpenMP region's name, as code bins write it ("main: omp parallel for @21") */
                const char *sp = memchr(p, ' ', (size_t)(e - p)), *omp = strstr(p, ": omp ");
                if (sp && (!omp || omp >= e))
                    return ms_cli_usage_error("run",
                                              "--focus needs function names or loop names (NAME or NAME,NAME...)");
                if (ms_focus_spec_parse(p, (size_t)(e - p), &spec) < 0)
                    return ms_cli_usage_error(
                        "run", "--focus %.*s: a loop is FUNCTION:loop@FIRST-LAST or FILE:FIRST-LAST", (int)(e - p), p);
            }
            if (used + n + 2 > sizeof o->focus) return ms_cli_usage_error("run", "--focus: too many names");
            snprintf(o->focus + used, sizeof o->focus - used, "%s%s", used ? "," : "", optarg);
            break;
        }
        case 'h':
            fputs(USAGE, stdout);
            *done = 1;
            return 0;
        case ':': return ms_cli_usage_error("run", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return ms_cli_usage_error("run", "missing the program to run (memspy run -- PROG ARGS...)");
    o->prog_argv = argv + optind;
    o->prog_argc = argc - optind;
    char err[512];
    if (ms_cache_opts_resolve(&cache, &o->cfg, err, sizeof err) < 0) return ms_cli_error("run", "%s", err);
    if (ms_cache_opts_interleave(&cache, &o->mode, err, sizeof err) < 0) return ms_cli_usage_error("run", "%s", err);
    if (ms_cache_opts_code_bins(&cache, err, sizeof err) < 0) return ms_cli_usage_error("run", "%s", err);
    return 0;
}

/* ---- running it ---- */

typedef struct {
    int status; /* waitpid status */
    pid_t pid;
    double wall_seconds;
    int64_t start_time;
    int forwarded; /* the last signal memspy passed on to the program, 0 if none */
} child_result;

/* fork/exec PROG; while it runs, interrupts sent to memspy are passed on to it and it dies
 * with memspy (run_guard.h). Exec failures come back through a CLOEXEC pipe. */
static int start_and_wait(const char *path, char **prog_argv, int keep_aslr, ms_run_guard *guard, child_result *res)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0) return ms_cli_error("run", "pipe: %s", strerror(errno));
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    res->start_time = (int64_t)time(NULL);
    int early = 0;
    pid_t pid = ms_run_fork(guard, &early);
    if (early) { /* memspy's own start took until the interrupt (a loaded machine) */
        ms_run_forward_signals_end();
        close(pipefd[0]);
        close(pipefd[1]);
        return ms_run_say_interrupted("run", ms_term(prog_argv[0]), early);
    }
    if (pid == 0) {
        close(pipefd[0]);
        /* Simulated caches index sets by virtual address: without address-space
         * randomization the same program and input give the same statistics. */
        if (!keep_aslr) {
            int persona = personality(0xffffffff);
            if (persona != -1) personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
        }
        execv(path, prog_argv);
        int e = errno;
        if (write(pipefd[1], &e, sizeof e) != (ssize_t)sizeof e) _exit(127);
        _exit(127);
    }
    int exec_errno = 0, rc = 0;
    close(pipefd[1]);
    if (pid < 0) {
        rc = ms_cli_error("run", "fork: %s", strerror(errno));
    } else {
        ssize_t n;
        while ((n = read(pipefd[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {}
        if (n != (ssize_t)sizeof exec_errno) exec_errno = 0;
        while (ms_progress_waitpid(pid, &res->status, getenv("MEMSPY_RAW_DIR")) < 0) {
            if (errno != EINTR) {
                rc = ms_cli_error("run", "waitpid: %s", strerror(errno));
                break;
            }
        }
        res->pid = pid;
        res->wall_seconds = ms_cli_seconds_since(&t0);
        if (rc == 0 && exec_errno) rc = ms_cli_error("run", "cannot execute %s: %s", path, strerror(exec_errno));
    }
    close(pipefd[0]);
    res->forwarded = pid > 0 ? ms_run_forward_signals_done() : ms_run_forward_signals_end();
    return rc;
}

/* ---- after it ran ---- */

static int is_raw_name(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 4 && strcmp(d->d_name + n - 4, ".raw") == 0;
}

/* The generation of an image of process pid from its raw file's name: <pid>.raw is 0,
 * <pid>.<g>.raw (an image started by exec, src/rt/process.c) is g; -1 for another name. */
static long raw_generation(const char *name, pid_t pid)
{
    char *end;
    long p = strtol(name, &end, 10);
    if (end == name || p != (long)pid) return -1;
    if (!strcmp(end, ".raw")) return 0;
    if (*end != '.' || !(end[1] >= '1' && end[1] <= '9')) return -1;
    long g = strtol(end + 1, &end, 10);
    return strcmp(end, ".raw") ? -1 : g;
}

typedef struct {
    char *path;
    long gen;
} raw_image;

static int by_generation(const void *a, const void *b)
{
    long x = ((const raw_image *)a)->gen, y = ((const raw_image *)b)->gen;
    return (x > y) - (x < y);
}

/* The raw files of process pid's images in the order they ran (its first image, then one per
 * profiled exec); else, for a script (any_other), the first *.raw in DIR by name (a profiled
 * program it started). A profiled program's children never stand in for it. *n = 0 if none;
 * -1 if out of memory. */
static int find_raw_files(const char *dir, pid_t pid, int any_other, raw_image **images, size_t *n)
{
    struct dirent **list = NULL;
    int nlist = scandir(dir, &list, is_raw_name, alphasort);
    *images = NULL;
    *n = 0;
    int rc = 0;
    if (nlist > 0 && !(*images = calloc((size_t)nlist, sizeof **images))) rc = -1;
    for (int pass = 0; pass < 1 + (any_other != 0) && !rc && *n == 0; pass++)
        for (int i = 0; i < nlist && !rc; i++) {
            long gen = pass == 0 ? raw_generation(list[i]->d_name, pid) : 0;
            if (gen < 0) continue;
            if (asprintf(&(*images)[*n].path, "%s/%s", dir, list[i]->d_name) < 0)
                rc = -1;
            else
                (*images)[(*n)++].gen = gen;
            if (pass == 1) break;
        }
    for (int i = 0; i < nlist; i++) free(list[i]);
    free(list);
    if (*n > 1) qsort(*images, *n, sizeof **images, by_generation);
    return rc;
}

static void free_raw_files(raw_image *images, size_t n)
{
    for (size_t i = 0; i < n; i++) free(images[i].path);
    free(images);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* HEAD of the git work tree holding the program (`git -C DIR rev-parse HEAD`), or NULL when
 * it is not in one or git is missing. git's own messages are silenced. */
static char *git_commit_of(const char *program_path)
{
    char *copy = strdup(program_path), *commit = NULL;
    int pipefd[2];
    if (!copy || pipe2(pipefd, O_CLOEXEC) < 0) {
        free(copy);
        return NULL;
    }
    const char *dir = dirname(copy);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        dup2(pipefd[1], STDOUT_FILENO);
        execlp("git", "git", "-C", dir, "rev-parse", "HEAD", (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    char buf[128];
    size_t n = 0;
    ssize_t got;
    while (pid > 0 && n < sizeof buf - 1 &&
           ((got = read(pipefd[0], buf + n, sizeof buf - 1 - n)) > 0 || (got < 0 && errno == EINTR)))
        if (got > 0) n += (size_t)got;
    close(pipefd[0]);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    size_t len = strlen(buf);
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && (len == 40 || len == 64) &&
        strspn(buf, "0123456789abcdef") == len)
        commit = strdup(buf);
    free(copy);
    return commit;
}

typedef struct {
    const run_opts *o;
    const child_result *res;
    const char *prog_path;
    const char *exe; /* the image's executable, from its raw profile */
    int first, last; /* its place among the process's images (exec starts a new one) */
    int parent_run;  /* the stored run of the image before it, 0 if none */
} run_metadata;

/* Append a note to m. 0 or -1. */
static int add_note(ms_model *m, const char *fmt, ...)
{
    char **notes = realloc(m->notes, (m->nnotes + 1) * sizeof *notes);
    if (!notes) return -1;
    m->notes = notes;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&notes[m->nnotes], fmt, ap);
    va_end(ap);
    if (rc < 0) return -1;
    m->nnotes++;
    return 0;
}

/* The shell's status of a wait status: the exit status, or 128 + the signal. */
static int shell_status(int status)
{
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Run metadata that only the CLI knows; reconcile the exit with what waitpid saw. */
static int fill_run_metadata(ms_model *m, void *ud)
{
    const run_metadata *meta = ud;
    const run_opts *o = meta->o;
    const child_result *res = meta->res;
    char cwd[4096];
    if (meta->first) {
        m->program = strdup(o->prog_argv[0]);
        m->argv = calloc((size_t)o->prog_argc, sizeof *m->argv);
        if (!m->program || !m->argv) return -1;
        m->argc = o->prog_argc;
        for (int i = 0; i < o->prog_argc; i++)
            if (!(m->argv[i] = strdup(o->prog_argv[i]))) return -1;
    } else { /* an image started by exec: its executable is all the raw profile says */
        m->program = strdup(meta->exe && *meta->exe ? meta->exe : "(unknown)");
        m->argv = calloc(1, sizeof *m->argv);
        if (!m->program || !m->argv || !(m->argv[0] = strdup(m->program))) return -1;
        m->argc = 1;
    }
    m->parent_run = meta->parent_run;
    m->cwd = dup_or_null(getcwd(cwd, sizeof cwd));
    m->time = res->start_time;
    m->memspy_version = strdup(MEMSPY_VERSION);
    m->origin = strdup("run");
    m->wall_seconds = res->wall_seconds;
    if (!m->memspy_version || !m->origin) return -1;
    if (meta->last) {
        /* The direct child's own status is authoritative for how it ended. */
        if (WIFEXITED(res->status) && m->exit_kind == MS_EXIT_NORMAL && m->pid == (uint32_t)res->pid)
            m->exit_value = WEXITSTATUS(res->status);
        if (WIFSIGNALED(res->status) && m->exit_kind == MS_EXIT_NORMAL) {
            m->exit_kind = MS_EXIT_SIGNAL;
            m->exit_value = WTERMSIG(res->status);
            if (!m->incomplete) {
                m->incomplete = true;
                free(m->incomplete_reason);
                if (asprintf(&m->incomplete_reason, "killed by signal %d", WTERMSIG(res->status)) < 0)
                    m->incomplete_reason = NULL;
            }
        }
        /* Its last profiled image executed a program without memspy's runtime. */
        if (m->exit_kind == MS_EXIT_EXEC) {
            m->exit_value = shell_status(res->status);
            if (add_note(m, "the program it executed (not profiled) %s %d",
                         WIFSIGNALED(res->status) ? "was killed by signal" : "exited with status",
                         WIFSIGNALED(res->status) ? WTERMSIG(res->status) : m->exit_value) < 0)
                return -1;
        }
        if (res->forwarded && add_note(m, "memspy passed SIG%s on to the program", sigabbrev_np(res->forwarded)) < 0)
            return -1;
    }
    m->git_commit = git_commit_of(meta->first || !meta->exe ? meta->prog_path : meta->exe);
    return 0;
}

/* The advice's row padding checked against the recording just kept (advice_check.h). */
static void check_advice(const run_opts *o, ms_model *m)
{
    json_t *rec = ms_recording_meta("run", o->record_dir);
    if (rec && ms_advice_check("run", o->record_dir, rec, &o->cfg, o->mode, m) < 0)
        ms_cli_error("run", "out of memory: the advice is not checked");
    json_decref(rec);
}

/* Read and analyze the raw profile into m, with the run's metadata (meta->exe is set here).
 * Returns 0, or MS_EXIT_USAGE after saying where the raw profile was kept. */
static int build_model(const char *raw_path, run_metadata *meta, ms_model *m)
{
    const run_opts *o = meta->o;
    ms_raw raw;
    char err[1024];
    memset(&raw, 0, sizeof raw);
    int rc = 0;
    char *problems = NULL;
    if (ms_raw_read(raw_path, &raw, err, sizeof err) < 0)
        rc = ms_cli_error("run", "cannot read the profile: %s", err);
    else if (raw.streams_dir && ms_replay_into_raw("run", raw.streams_dir, &o->cfg, o->mode, &raw, &problems) < 0)
        rc = MS_EXIT_USAGE;
    if (!rc && problems) { /* incomplete streams make the run incomplete, like a cut raw file */
        raw.truncated = 1;
        if (ms_raw_add_note(&raw, "recorded streams incomplete: %s", problems) < 0)
            rc = ms_cli_error("run", "out of memory");
    }
    meta->exe = raw.exe;
    /* A recording that cannot be completed (a full disk) costs the recording, not the run. */
    if (!rc && (rc = ms_run_analyze("run", &raw, fill_run_metadata, meta, m)) == 0 && o->record_dir && meta->first &&
        ms_record_dir_keep_raw("run", o->record_dir, raw_path) == 0)
        check_advice(o, m);
    meta->exe = NULL;
    if (rc) fprintf(stderr, "memspy run: the raw profile is kept in %s\n", raw_path);
    ms_raw_free(&raw);
    free(problems);
    return rc;
}

/* Store every image of the program's process: each but the last straight into the database,
 * linked to the one before it; the last one through the outputs (matrix, JSON files) too.
 * Returns 0 or MS_EXIT_USAGE (the raw files then stay in place and are named). */
static int store_images(const raw_image *images, size_t n, const char *prog_path, const run_opts *o,
                        const child_result *res, ms_run_outputs *out, ms_db *db, int *keep_dir)
{
    int parent = 0, rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        run_metadata meta = { o, res, prog_path, NULL, i == 0, i + 1 == n, parent };
        ms_model m;
        if ((rc = build_model(images[i].path, &meta, &m)) != 0) {
            *keep_dir = 1;
            break;
        }
        char *bad = NULL;
        if (i == 0 && o->focus[0] && ms_focus_check_loops(&m, o->focus, &bad) < 0) {
            rc = bad ? ms_cli_error("run", "%s", bad) : ms_cli_error("run", "out of memory");
            free(bad);
        } else if (i + 1 == n) {
            rc = ms_run_outputs_write("run", &m, &o->out, out, db);
        } else {
            char err[1024];
            if (ms_db_store(db, &m, &parent, err, sizeof err) < 0) {
                rc = ms_cli_error("run", "%s", err);
            } else {
                fprintf(stderr, "memspy: %s, until it executed another program, stored as run %d in %s\n", m.program,
                        parent, ms_cli_db_path(o->out.db_opt));
            }
        }
        ms_model_free(&m);
    }
    return rc;
}

/* The program's own exit status, as a shell would report it. */
static int program_status(const char *name, int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *abbrev = sigabbrev_np(sig);
        fprintf(stderr, "memspy: %s killed by signal %d (%s%s)\n", ms_term(name), sig, abbrev ? "SIG" : "",
                abbrev ? abbrev : strsignal(sig));
        return 128 + sig;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* The raw directory: $TMPDIR (or /tmp)/memspy-XXXXXX, exported with the config to the program. */
static char *make_raw_dir(const ms_hier_config *cfg)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = NULL, spec[512];
    if (asprintf(&dir, "%s/memspy-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) return NULL;
    if (!mkdtemp(dir)) {
        ms_cli_error("run", "cannot create a directory for the raw profile (%s): %s", dir, strerror(errno));
        free(dir);
        return NULL;
    }
    ms_config_format(cfg, spec, sizeof spec);
    if (setenv("MEMSPY_RAW_DIR", dir, 1) < 0 || setenv("MEMSPY_CONFIG", spec, 1) < 0) {
        ms_cli_error("run", "cannot set the environment: %s", strerror(errno));
        rmdir(dir);
        free(dir);
        return NULL;
    }
    return dir;
}

/* The program's stack starts below its environment, so the length of the variables memspy
 * passes (temporary paths of varying length: MEMSPY_RAW_DIR, MEMSPY_RECORD_DIR...) would move
 * its stack data against cache lines, and two runs of one command could differ. MEMSPY_PAD
 * brings the MEMSPY_* variables, with their pointers, to one size. */
#define MS_ENV_BUDGET 8192
static int pad_environment(void)
{
    extern char **environ;
    size_t used = 0;
    const char pad_name[] = "MEMSPY_PAD=";
    unsetenv("MEMSPY_PAD");
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "MEMSPY_", 7) == 0) used += strlen(*e) + 1 + sizeof(char *);
    used += sizeof pad_name + sizeof(char *); /* MEMSPY_PAD's own name, NUL and pointer */
    size_t n = used < MS_ENV_BUDGET ? MS_ENV_BUDGET - used : 0;
    char *value = malloc(n + 1);
    if (!value) return ms_cli_error("run", "out of memory");
    memset(value, '.', n);
    value[n] = '\0';
    int rc = setenv("MEMSPY_PAD", value, 1) < 0 ? ms_cli_error("run", "setenv: %s", strerror(errno)) : 0;
    free(value);
    return rc;
}

/* Threads mode: the runtime records every thread's stream from the start, into the --record
 * directory or DIR/streams, and this process replays them after the program exits. */
static int prepare_threads(const run_opts *o, const char *raw_dir)
{
    char *streams = NULL;
    int rc = 0;
    if (!o->record_dir) {
        if (asprintf(&streams, "%s/streams", raw_dir) < 0) return ms_cli_error("run", "out of memory");
        if (mkdir(streams, 0700) < 0)
            rc = ms_cli_error("run", "cannot create %s: %s", streams, strerror(errno));
        else if (setenv("MEMSPY_RECORD_DIR", streams, 1) < 0)
            rc = ms_cli_error("run", "setenv: %s", strerror(errno));
    }
    if (!rc && setenv("MEMSPY_THREADS", "1", 1) < 0) rc = ms_cli_error("run", "setenv: %s", strerror(errno));
    free(streams);
    return rc;
}

int ms_cmd_run(int argc, char **argv)
{
    run_opts o;
    ms_run_outputs out;
    memset(&o, 0, sizeof o);
    int done = 0, rc = parse_options(argc, argv, &o, &done);
    if (rc || done) return rc;
    if ((rc = ms_run_outputs_open("run", &o.out, &out)) != 0) return rc;
    char *path = NULL, *dir = NULL, err[1024];
    ms_db *db = NULL;
    ms_run_guard guard = { -1, 0 };
    int starts_threads = 0, script = 0, forwarding = 1;
    /* From here on an interrupt neither kills memspy silently nor is lost (run_guard.h). */
    ms_run_forward_signals_begin();
    if ((rc = ms_cli_check_program("run", o.prog_argv[0], &path, &starts_threads, &script)) != 0) goto out;
    /* A database memspy cannot use (corrupt, foreign, newer) stops us before the program runs;
     * one it cannot write to is found out when the run is stored. */
    if (ms_db_open(ms_cli_db_path(o.out.db_opt), MS_DB_CREATE, &db, err, sizeof err) < 0) {
        rc = ms_cli_error("run", "%s", err);
        goto out;
    }
    if (o.record_dir &&
        (rc = ms_record_dir_prepare("run", o.record_dir, path, o.prog_argv, o.prog_argc, &o.cfg,
                                    o.mode == MS_INTERLEAVE_DEFAULT ? NULL : ms_interleave_name(o.mode))) != 0)
        goto out;
    if (!(dir = make_raw_dir(&o.cfg))) {
        rc = MS_EXIT_USAGE;
        goto out;
    }
    if ((o.focus[0] ? setenv("MEMSPY_FOCUS", o.focus, 1) : unsetenv("MEMSPY_FOCUS")) < 0)
        rc = ms_cli_error("run", "setenv: %s", strerror(errno));
    if (rc || ((o.force_threads || starts_threads) && (rc = prepare_threads(&o, dir)) != 0) ||
        (rc = pad_environment()) != 0) {
        ms_run_remove_scratch(dir);
        goto out;
    }
    if (ms_run_guard_start(&guard, dir) < 0)
        fprintf(stderr,
                "memspy run: cannot start the guard process (%s): if memspy is killed, "
                "%s may go on running and %s stay behind\n",
                strerror(errno), o.prog_argv[0], dir);
    child_result res;
    memset(&res, 0, sizeof res);
    forwarding = 0; /* start_and_wait ends it */
    if ((rc = start_and_wait(path, o.prog_argv, o.keep_aslr, &guard, &res)) != 0) {
        ms_run_remove_scratch(dir);
        goto out;
    }
    int status = program_status(o.prog_argv[0], res.status);
    raw_image *images = NULL;
    size_t nimages = 0;
    if (find_raw_files(dir, res.pid, script, &images, &nimages) < 0) {
        rc = ms_cli_error("run", "out of memory");
    } else if (nimages == 0 && WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGKILL) {
        rc = ms_cli_error("run", "no profile was written: SIGKILL ends a program before it can write one");
        ms_run_remove_scratch(dir);
    } else if (nimages == 0 && !script && WIFSIGNALED(res.status) && ms_run_is_interrupt(WTERMSIG(res.status))) {
        /* interrupted as it started (the runtime keeps what it gathered from its start on) */
        fprintf(stderr,
                "memspy run: the interrupt reached %s before memspy's runtime started in it: "
                "nothing was gathered, nothing to store\n",
                ms_term(o.prog_argv[0]));
        rc = status;
        ms_run_remove_scratch(dir);
    } else if (nimages == 0) {
        rc = ms_cli_error("run", "no profile was written: did %s run a memspy-instrumented program?", o.prog_argv[0]);
        ms_run_remove_scratch(dir);
    } else {
        int keep_dir = 0;
        rc = store_images(images, nimages, path, &o, &res, &out, db, &keep_dir);
        if (!keep_dir) ms_run_remove_scratch(dir);
        if (rc == 0) rc = status;
    }
    free_raw_files(images, nimages);
out:
    if (forwarding) ms_run_forward_signals_end();
    ms_run_guard_release(&guard);
    ms_db_close(db);
    ms_run_outputs_close(&out);
    free(dir);
    free(path);
    return rc;
}
