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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../util/util.h"
#include "cli.h"
#include "program_check.h"
#include "progress.h"
#include "record_dir.h"
#include "run_output.h"

static const char USAGE[] =
    "Usage: memspy run [options] [--] PROG [ARGS...]\n\n"
    "Run PROG (built with memspy-cc, memspy-c++ or memspy-fortran) under the simulated cache\n"
    "hierarchy, store the run in the run database and print the matrix of memory stall time\n"
    "by code segment and data bin. The exit status is PROG's (128+N if it was killed by\n"
    "signal N), or 2 if memspy itself failed (the run could not be stored, for one).\n\n"
    MS_RUN_OUTPUT_HELP
    "  --aslr               keep address-space randomization (results then vary by run)\n"
    "  --record DIR         also keep the program's event streams in DIR (created if missing)\n"
    "                       for `memspy resim DIR` under other cache hierarchies\n"
    "  --threads            record per-thread streams from the start and replay them on the\n"
    "                       simulated multiprocessor (automatic when PROG calls pthread_create\n"
    "                       or OpenMP; a thread that starts unexpectedly is still handled, with\n"
    "                       the references before it simulated on one processor)\n"
    "  -h, --help           this help\n\n" MS_CACHE_OPTIONS_HELP;

typedef struct {
    ms_run_output_opts out;
    const char *record_dir;   /* --record DIR, NULL if not given */
    int keep_aslr;
    int force_threads;        /* --threads */
    ms_interleave mode;
    ms_hier_config cfg;
    char **prog_argv;      /* PROG ARGS..., NULL-terminated (points into argv) */
    int prog_argc;
} run_opts;

/* ---- before the program starts ---- */

static int parse_options(int argc, char **argv, run_opts *o, int *done)
{
    enum { OPT_ASLR = MS_OPT_FIRST_FREE, OPT_RECORD, OPT_THREADS };
    static const struct option longopts[] = {
        MS_RUN_OUTPUT_LONG_OPTIONS,
        { "aslr", no_argument, NULL, OPT_ASLR },
        { "threads", no_argument, NULL, OPT_THREADS },
        { "record", required_argument, NULL, OPT_RECORD },
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
    return 0;
}

/* Resolve PROG and refuse ELF executables that lack memspy's runtime; say whether it may
 * start threads. */
static int check_program(const char *name, char **path, int *starts_threads)
{
    *path = ms_find_program(name);
    if (!*path) return ms_cli_error("run", "%s: program not found (or not executable)", name);
    char err[512];
    ms_program_kind kind = ms_check_program(*path, starts_threads, err, sizeof err);
    if (kind == MS_PROGRAM_ERROR || kind == MS_PROGRAM_PLAIN_ELF) {
        if (kind == MS_PROGRAM_ERROR) ms_cli_error("run", "%s", err);
        else ms_cli_error("run", "%s was not built with memspy-cc: rebuild it with CC=memspy-cc "
                                 "(or memspy-c++ / memspy-fortran), e.g. 'make CC=memspy-cc', "
                                 "then run memspy again", name);
        free(*path);
        *path = NULL;
        return MS_EXIT_USAGE;
    }
    return 0;
}

/* ---- running it ---- */

typedef struct {
    int status;            /* waitpid status */
    pid_t pid;
    double wall_seconds;
    int64_t start_time;
} child_result;

/* fork/exec PROG; the parent ignores SIGINT/SIGQUIT while it waits (the terminal sends them to
 * the program, whose exit is then reported). Exec failures come back through a CLOEXEC pipe. */
static int start_and_wait(const char *path, char **prog_argv, int keep_aslr, child_result *res)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0) return ms_cli_error("run", "pipe: %s", strerror(errno));
    struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    res->start_time = (int64_t)time(NULL);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        close(pipefd[0]);
        /* Simulated caches index sets by virtual address: without address-space
         * randomization the same program and input give the same statistics. */
        if (!keep_aslr) {
            int persona = personality(0xffffffff);
            if (persona != -1)
                personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
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
        if (rc == 0 && exec_errno)
            rc = ms_cli_error("run", "cannot execute %s: %s", path, strerror(exec_errno));
    }
    close(pipefd[0]);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return rc;
}

/* ---- after it ran ---- */

static int is_raw_name(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 4 && strcmp(d->d_name + n - 4, ".raw") == 0;
}

/* DIR/<pid>.raw, else the first *.raw in DIR by name; NULL if none. */
static char *find_raw_file(const char *dir, pid_t pid)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%d.raw", dir, (int)pid) < 0) return NULL;
    if (access(path, R_OK) == 0) return path;
    free(path);
    path = NULL;
    struct dirent **list = NULL;
    int n = scandir(dir, &list, is_raw_name, alphasort);
    if (n > 0 && asprintf(&path, "%s/%s", dir, list[0]->d_name) < 0) path = NULL;
    for (int i = 0; i < n; i++) free(list[i]);
    free(list);
    return path;
}

/* Remove the run's scratch directory: raw files and the threads' streams directory. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        int fd = dirfd(d);
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            if (unlinkat(fd, e->d_name, 0) < 0 && (errno == EISDIR || errno == EPERM)) {
                char *sub = NULL;
                if (asprintf(&sub, "%s/%s", dir, e->d_name) >= 0) remove_dir(sub);
                free(sub);
            }
        }
        closedir(d);
    }
    rmdir(dir);
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
    while (pid > 0 && n < sizeof buf - 1 && ((got = read(pipefd[0], buf + n, sizeof buf - 1 - n)) > 0 ||
                                             (got < 0 && errno == EINTR)))
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
} run_metadata;

/* Run metadata that only the CLI knows; reconcile the exit with what waitpid saw. */
static int fill_run_metadata(ms_model *m, void *ud)
{
    const run_opts *o = ((const run_metadata *)ud)->o;
    const child_result *res = ((const run_metadata *)ud)->res;
    char cwd[4096];
    m->program = strdup(o->prog_argv[0]);
    m->argv = calloc((size_t)o->prog_argc, sizeof *m->argv);
    if (!m->program || !m->argv) return -1;
    m->argc = o->prog_argc;
    for (int i = 0; i < o->prog_argc; i++)
        if (!(m->argv[i] = strdup(o->prog_argv[i]))) return -1;
    m->cwd = dup_or_null(getcwd(cwd, sizeof cwd));
    m->time = res->start_time;
    m->memspy_version = strdup(MEMSPY_VERSION);
    m->wall_seconds = res->wall_seconds;
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
    if (!m->memspy_version) return -1;
    m->git_commit = git_commit_of(((const run_metadata *)ud)->prog_path);
    return 0;
}

/* Read and analyze the raw profile into m, with the run's metadata. Returns 0, or
 * MS_EXIT_USAGE after saying where the raw profile was kept. */
static int build_model(const char *raw_path, const char *prog_path, const run_opts *o,
                       const child_result *res, ms_model *m)
{
    ms_raw raw;
    char err[1024];
    memset(&raw, 0, sizeof raw);
    run_metadata meta = { o, res, prog_path };
    int rc = 0;
    char *problems = NULL;
    if (ms_raw_read(raw_path, &raw, err, sizeof err) < 0)
        rc = ms_cli_error("run", "cannot read the profile: %s", err);
    else if (raw.streams_dir && ms_replay_into_raw("run", raw.streams_dir, &o->cfg, o->mode, &raw, &problems) < 0)
        rc = MS_EXIT_USAGE;
    if (!rc && problems) {   /* incomplete streams make the run incomplete, like a cut raw file */
        raw.truncated = 1;
        if (ms_raw_add_note(&raw, "recorded streams incomplete: %s", problems) < 0) rc = ms_cli_error("run", "out of memory");
    }
    /* A recording that cannot be completed (a full disk) costs the recording, not the run. */
    if (!rc && (rc = ms_run_analyze("run", &raw, fill_run_metadata, &meta, m)) == 0 && o->record_dir)
        ms_record_dir_keep_raw("run", o->record_dir, raw_path);
    if (rc) fprintf(stderr, "memspy run: the raw profile is kept in %s\n", raw_path);
    ms_raw_free(&raw);
    free(problems);
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

/* Threads mode: the runtime records every thread's stream from the start, into the --record
 * directory or DIR/streams, and this process replays them after the program exits. */
static int prepare_threads(const run_opts *o, const char *raw_dir)
{
    char *streams = NULL;
    int rc = 0;
    if (!o->record_dir) {
        if (asprintf(&streams, "%s/streams", raw_dir) < 0) return ms_cli_error("run", "out of memory");
        if (mkdir(streams, 0700) < 0) rc = ms_cli_error("run", "cannot create %s: %s", streams, strerror(errno));
        else if (setenv("MEMSPY_RECORD_DIR", streams, 1) < 0) rc = ms_cli_error("run", "setenv: %s", strerror(errno));
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
    int starts_threads = 0;
    if ((rc = check_program(o.prog_argv[0], &path, &starts_threads)) != 0) goto out;
    /* A database memspy cannot use (corrupt, foreign, newer) stops us before the program runs;
     * one it cannot write to is found out when the run is stored. */
    if (ms_db_open(ms_cli_db_path(o.out.db_opt), MS_DB_CREATE, &db, err, sizeof err) < 0) {
        rc = ms_cli_error("run", "%s", err);
        goto out;
    }
    if (o.record_dir && (rc = ms_record_dir_prepare("run", o.record_dir, path, o.prog_argv, o.prog_argc, &o.cfg,
                                                   ms_interleave_name(o.mode))) != 0)
        goto out;
    if (!(dir = make_raw_dir(&o.cfg))) {
        rc = MS_EXIT_USAGE;
        goto out;
    }
    if ((o.force_threads || starts_threads) && (rc = prepare_threads(&o, dir)) != 0) {
        remove_dir(dir);
        goto out;
    }
    child_result res;
    memset(&res, 0, sizeof res);
    if ((rc = start_and_wait(path, o.prog_argv, o.keep_aslr, &res)) != 0) {
        remove_dir(dir);
        goto out;
    }
    int status = program_status(o.prog_argv[0], res.status);
    char *raw_path = find_raw_file(dir, res.pid);
    if (!raw_path) {
        rc = ms_cli_error("run", "no profile was written: did %s run a memspy-instrumented program?",
                          o.prog_argv[0]);
        remove_dir(dir);
    } else {
        ms_model m;
        rc = build_model(raw_path, path, &o, &res, &m);
        if (rc == 0) {
            remove_dir(dir);
            rc = ms_run_outputs_write("run", &m, &o.out, &out, db);
            if (rc == 0) rc = status;
            ms_model_free(&m);
        }
        free(raw_path);
    }
out:
    ms_db_close(db);
    ms_run_outputs_close(&out);
    free(dir);
    free(path);
    return rc;
}
