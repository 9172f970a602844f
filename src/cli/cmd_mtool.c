/* memspy mtool: MTOOL (issue 13, docs/mtool.md): run a memspy-instrumented program twice,
 * counting its basic blocks exactly, then in its plain copies while a CPU-time timer samples its pc, estimate every block's
 * ideal-memory cycles with llvm-mca, and report which loops and procedures run slower than
 * with a perfect memory system, and by how much. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../analysis/blockcost.h"
#include "../drive/mtool_drive.h"
#include "../sim/config.h"
#include "../store/store.h"
#include "../report/report.h"
#include "../util/util.h"
#include "cli.h"
#include "program_check.h"
#include "run_guard.h"

static const char USAGE[] =
    "Usage: memspy mtool [options] [--] PROG [ARGS...]\n\n"
    "Run PROG (built with memspy-cc, memspy-c++ or memspy-fortran) counting its basic blocks\n"
    "while a CPU-time timer samples where it is; estimate each block's time with every load\n"
    "hitting L1 (llvm-mca's model of the CPU), and print MTOOL's summary: predicted time,\n"
    "measured time and memory overhead, then the loops and procedures by memory overhead.\n"
    "The result is stored in the run database as an MTOOL run (`memspy runs` lists it;\n"
    "`memspy show`, `report`, `annotate` and `html` display it).\n"
    "The exit status is PROG's (128+N if killed by signal N), or 2 if memspy failed.\n\n"
    "The program's output is that of the timing run (the counting run's goes to /dev/null);\n"
    "both runs read the same standard input. The report goes to standard error.\n\n"
    "  --cpu NAME           llvm-mca's CPU model (default: this machine's, e.g. znver3; auto: the\n"
    "                       vendor's model whose dependent chains come closest to this core's)\n"
    "  -o FILE              write the report to FILE instead of standard error\n"
    "  --json FILE          also write the result as JSON to FILE ('-': standard output)\n"
    "  --html FILE          also write MTOOL's histogram (Figure 4) with the source as HTML\n"
    "  --period-us N        sampling period in microseconds of CPU time (default 1000)\n"
    "  --top N              print the first N mobjects (default 20)\n" MS_DB_OPTION_HELP MS_DB_TIMEOUT_HELP
    "  -h, --help           this help\n";

typedef struct {
    const char *cpu, *json, *html, *report, *db_opt, *db_timeout;
    unsigned long period_us, top;
    char **prog_argv;
} mtool_opts;

static int parse_options(int argc, char **argv, mtool_opts *o, int *done)
{
    enum { OPT_CPU = MS_OPT_FIRST_FREE, OPT_JSON, OPT_HTML, OPT_PERIOD, OPT_TOP };
    static const struct option longopts[] = {
        { "cpu", required_argument, NULL, OPT_CPU },
        { "json", required_argument, NULL, OPT_JSON },
        { "period-us", required_argument, NULL, OPT_PERIOD },
        { "top", required_argument, NULL, OPT_TOP },
        { "html", required_argument, NULL, OPT_HTML },
        { "help", no_argument, NULL, 'h' },
        MS_DB_LONG_OPTION,
        MS_DB_TIMEOUT_LONG_OPTION,
        { NULL, 0, NULL, 0 },
    };
    int opt;
    *done = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "+:ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': o->report = optarg; break;
        case OPT_CPU: o->cpu = optarg; break;
        case OPT_JSON: o->json = optarg; break;
        case OPT_HTML: o->html = optarg; break;
        case MS_OPT_DB: o->db_opt = optarg; break;
        case MS_OPT_DB_TIMEOUT: o->db_timeout = optarg; break;
        case OPT_PERIOD:
            if (ms_cli_parse_positive(optarg, 1000000, &o->period_us) < 0 || o->period_us < 100)
                return ms_cli_usage_error("mtool", "--period-us needs a number from 100 to 1000000");
            break;
        case OPT_TOP:
            if (ms_cli_parse_positive(optarg, MS_CLI_MAX_TOP, &o->top) < 0)
                return ms_cli_usage_error("mtool", "--top needs a number from 1 to %lu", MS_CLI_MAX_TOP);
            break;
        case 'h':
            fputs(USAGE, stdout);
            *done = 1;
            return 0;
        case ':': return ms_cli_usage_error("mtool", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("mtool", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return ms_cli_usage_error("mtool", "missing the program to run (memspy mtool -- PROG ARGS...)");
    o->prog_argv = argv + optind;
    return ms_cli_db_wait("mtool", o->db_timeout);
}

/* The standard input both runs read: a regular file from where it stood (offset), a pipe or
 * socket read to its end into a file of the scratch directory first (fd), anything else (a
 * terminal, /dev/null) as it is. */
typedef struct {
    int fd;       /* the copy of a pipe, -1 if none */
    off_t offset; /* a regular file's offset, -1 if not one */
} mtool_stdin;

static int stdin_prepare(mtool_stdin *in, const char *dir)
{
    struct stat st;
    in->fd = -1;
    in->offset = -1;
    if (fstat(0, &st) < 0) return 0;
    if (S_ISREG(st.st_mode)) {
        in->offset = lseek(0, 0, SEEK_CUR);
        return 0;
    }
    if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) return 0;
    char path[4200], buf[65536];
    snprintf(path, sizeof path, "%s/stdin", dir);
    if ((in->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
        return ms_cli_error("mtool", "cannot keep the standard input in %s: %s", path, strerror(errno));
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return ms_cli_error("mtool", "cannot read the standard input: %s", strerror(errno));
        if (n == 0) return 0;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(in->fd, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return ms_cli_error("mtool", "cannot keep the standard input in %s: %s", path, strerror(errno));
            done += w;
        }
    }
}

/* Before a run: its standard input from the start (what the child's stdin_use takes). */
static void stdin_rewind(const mtool_stdin *in)
{
    if (in->fd >= 0) lseek(in->fd, 0, SEEK_SET);
    if (in->offset >= 0) lseek(0, in->offset, SEEK_SET);
}

/* In the child: the copy of a pipe as its standard input; for a quiet run (the counting run)
 * standard output and error to /dev/null. */
static void child_stdio(const mtool_stdin *in, int quiet)
{
    if (in->fd >= 0) dup2(in->fd, 0);
    int null = quiet ? open("/dev/null", O_WRONLY) : -1;
    if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
        close(null);
    }
}

/* Start the program with the environment set, wait for it (status, system time). With core,
 * the core's clock and chains are measured meanwhile (in this process's own CPU time: the
 * counting run is not timed, so the two may share the CPUs). The counting run (quiet) writes
 * nowhere: the program's output is the timing run's. Returns the pid, or -1 (*early: an
 * interrupt that came before, nothing started). */
static int run_program(const char *path, char **argv, ms_run_guard *guard, const mtool_stdin *in, int quiet,
                       int *status, double *system_s, ms_core_reading *core, int *early)
{
    stdin_rewind(in);
    pid_t pid = ms_run_fork(guard, early);
    if (pid == 0) {
        child_stdio(in, quiet);
        execv(path, argv);
        fprintf(stderr, "memspy mtool: cannot execute %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    if (pid < 0) return *early ? -1 : ms_cli_error("mtool", "fork: %s", strerror(errno));
    if (core) ms_core_measure(core);
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, status, 0, &ru) < 0)
        if (errno != EINTR) return ms_cli_error("mtool", "waitpid: %s", strerror(errno));
    *system_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    return (int)pid;
}

/* The result as JSON (html 0) or HTML into file ('-': standard output), complete or absent. */
static int write_file(const char *file, const ms_mtool_result *r, int html, const char *title)
{
    char err[512];
    ms_out_file o;
    if (!strcmp(file, "-")) {
        int bad = html ? ms_report_mtool_html(stdout, r, title) : ms_mtool_json_write(stdout, r);
        return bad < 0 ? ms_cli_error("mtool", "cannot write to standard output") : 0;
    }
    if (ms_out_open(&o, file, err, sizeof err) < 0) return ms_cli_error("mtool", "%s", err);
    if ((html ? ms_report_mtool_html(o.f, r, title) : ms_mtool_json_write(o.f, r)) < 0) {
        ms_out_abort(&o);
        return ms_cli_error("mtool", "cannot write %s", file);
    }
    return ms_out_commit(&o, err, sizeof err) < 0 ? ms_cli_error("mtool", "%s", err) : 0;
}

/* Why a result may be missing: the timing run failed where the counting run did not (the
 * counting run's own files in its way, typically), or "". */
static const char *runs_differ(int count_status, int status)
{
    static char why[256];
    if (!WIFEXITED(count_status) || WEXITSTATUS(count_status) != 0 || (WIFEXITED(status) && !WEXITSTATUS(status)))
        return "";
    snprintf(why, sizeof why,
             "; the timing run %s %d where the counting run exited with 0: a program that writes files may have "
             "found those of the counting run (docs/mtool.md)",
             WIFEXITED(status) ? "exited with status" : "was killed by signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return why;
}

/* The text report to -o's file, else to standard error (standard output is the program's). */
static int write_report(const mtool_opts *o, const ms_mtool_result *r)
{
    char err[512];
    ms_out_file f;
    if (!o->report)
        return ms_report_mtool(stderr, r, o->top) < 0 ? ms_cli_error("mtool", "cannot write the report") : 0;
    if (ms_out_open(&f, o->report, err, sizeof err) < 0) return ms_cli_error("mtool", "%s", err);
    if (ms_report_mtool(f.f, r, o->top) < 0) {
        ms_out_abort(&f);
        return ms_cli_error("mtool", "cannot write %s", o->report);
    }
    return ms_out_commit(&f, err, sizeof err) < 0 ? ms_cli_error("mtool", "%s", err) : 0;
}

/* The result as a run of its own kind (origin "mtool", no bins) with the program's metadata;
 * the model takes res over (res is zeroed). */
static int fill_model(ms_model *m, const mtool_opts *o, ms_mtool_result *res, int status, int pid, time_t start,
                      double wall_s)
{
    char cwd[4096];
    ms_model_init(m);
    int argc = 0;
    while (o->prog_argv[argc]) argc++;
    if (!(m->mtool = malloc(sizeof *m->mtool))) return -1;
    *m->mtool = *res;
    memset(res, 0, sizeof *res);
    m->program = strdup(o->prog_argv[0]);
    m->argv = calloc((size_t)argc + 1, sizeof *m->argv);
    if (!m->program || !m->argv) return -1;
    for (m->argc = 0; m->argc < argc; m->argc++)
        if (!(m->argv[m->argc] = strdup(o->prog_argv[m->argc]))) return -1;
    m->cwd = getcwd(cwd, sizeof cwd) ? strdup(cwd) : NULL;
    m->time = (int64_t)start;
    m->wall_seconds = wall_s;
    m->pid = (uint32_t)pid;
    m->memspy_version = strdup(MEMSPY_VERSION);
    m->origin = strdup("mtool");
    if (!m->memspy_version || !m->origin) return -1;
    char err[256];
    if (ms_config_preset("x86", &m->config, err, sizeof err) < 0) return -1; /* a valid, unused hierarchy */
    m->exit_kind = WIFSIGNALED(status) ? MS_EXIT_SIGNAL : MS_EXIT_NORMAL;
    m->exit_value = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
    m->incomplete = m->mtool->incomplete;
    if (m->incomplete && !(m->incomplete_reason = strdup("the program did not finish normally in a run"))) return -1;
    return 0;
}

/* Store the MTOOL run; a database that cannot take it keeps it in a result file instead. */
static int store_run(const ms_model *m, const char *db_opt)
{
    char err[1024];
    ms_db *db = NULL;
    int run_id = 0;
    if (ms_db_open(ms_cli_db_path(db_opt), MS_DB_CREATE, &db, err, sizeof err) < 0 ||
        ms_db_store(db, m, &run_id, err, sizeof err) < 0) {
        ms_cli_error("mtool", "%s", err);
        ms_db_close(db);
        return ms_cli_keep_unstored("mtool", m, db_opt);
    }
    ms_db_close(db);
    fprintf(stderr, "memspy: stored as run %d in %s\n", run_id, ms_term(ms_cli_db_path(db_opt)));
    return 0;
}

int ms_cmd_mtool(int argc, char **argv)
{
    mtool_opts o = { NULL, NULL, NULL, NULL, NULL, NULL, 1000, 20, NULL };
    int done, rc, starts_threads = 0, script = 0, status = 0;
    if ((rc = parse_options(argc, argv, &o, &done)) != 0 || done) return rc;
    char err[2048], *path = NULL, *dir = NULL, period[32];
    /* From here on an interrupt neither kills memspy silently nor is lost (run_guard.h). */
    ms_run_forward_signals_begin();
    const char *cpu = !o.cpu ? ms_blockcost_host_cpu() : !strcmp(o.cpu, "auto") ? ms_core_closest_cpu() : o.cpu;
    if (ms_blockcost_check_cpu(cpu, err, sizeof err) < 0) {
        rc = ms_cli_error("mtool", "%s", err);
        goto out;
    }
    if ((rc = ms_cli_check_program("mtool", o.prog_argv[0], &path, &starts_threads, &script)) != 0) goto out;
    const char *tmp = getenv("TMPDIR");
    if (asprintf(&dir, "%s/memspy-mtool-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0 || !mkdtemp(dir)) {
        rc = ms_cli_error("mtool", "cannot create a scratch directory: %s", strerror(errno));
        goto out;
    }
    snprintf(period, sizeof period, "%lu", o.period_us * 1000ul);
    if (setenv("MEMSPY_RAW_DIR", dir, 1) < 0) {
        rc = ms_cli_error("mtool", "cannot set the environment: %s", strerror(errno));
        goto out;
    }
    double system_s = 0, unused_s = 0;
    ms_core_reading core;
    memset(&core, 0, sizeof core);
    time_t start = time(NULL);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ms_run_guard guard = { -1, 0 };
    ms_run_guard_start(&guard, dir);
    /* The counting run (exact block counts), then the timing run (the plain copies, sampled). */
    int count_status = 0, pid_count = -1, pid_time = -1, early = 0, stop = 0;
    mtool_stdin in;
    if (stdin_prepare(&in, dir) == 0 && setenv("MEMSPY_MODE", "count", 1) == 0)
        pid_count = run_program(path, o.prog_argv, &guard, &in, 1, &count_status, &unused_s, &core, &early);
    if (early) {
        rc = ms_run_say_interrupted("mtool", ms_term(o.prog_argv[0]), early);
    } else if (pid_count >= 0) {
        /* an interrupt during the counting run (passed on, or the terminal's) or after it, or
         * one that killed the counting run: the timing run is not started */
        stop = ms_run_forward_signals_between();
        if (!stop && WIFSIGNALED(count_status) && ms_run_is_interrupt(WTERMSIG(count_status)))
            stop = WTERMSIG(count_status);
        if (!stop && setenv("MEMSPY_MODE", "time", 1) == 0 && setenv("MEMSPY_SAMPLE_NS", period, 1) == 0)
            pid_time = run_program(path, o.prog_argv, &guard, &in, 0, &status, &system_s, NULL, &stop);
        ms_run_forward_signals_done();
        if (stop) {
            const char *abbrev = sigabbrev_np(stop);
            fprintf(stderr,
                    "memspy mtool: interrupted (SIG%s) in or after the counting run of %s: the timing run did not "
                    "start, nothing to store\n",
                    abbrev ? abbrev : "?", ms_term(o.prog_argv[0]));
            rc = 128 + stop;
        }
    }
    if (in.fd >= 0) close(in.fd);
    unsetenv("MEMSPY_SAMPLE_NS");
    ms_raw counted, timed;
    memset(&counted, 0, sizeof counted);
    memset(&timed, 0, sizeof timed);
    ms_mtool_result res;
    memset(&res, 0, sizeof res);
    char count_path[4200], time_path[4200];
    snprintf(count_path, sizeof count_path, "%s/%d.raw", dir, pid_count);
    snprintf(time_path, sizeof time_path, "%s/%d.raw", dir, pid_time);
    if (pid_count < 0 || pid_time < 0) {
        if (!rc) rc = MS_EXIT_USAGE;
    } else if (ms_raw_read(count_path, &counted, err, sizeof err) < 0) {
        rc = ms_cli_error("mtool", "no profile from the counting run: %s", err);
    } else if (ms_raw_read(time_path, &timed, err, sizeof err) < 0) {
        rc = ms_cli_error("mtool", "no profile from the timing run: %s%s", err, runs_differ(count_status, status));
    } else if (ms_mtool_from_raws(&counted, &timed, cpu, &core, system_s, &res, err, sizeof err) < 0) {
        rc = ms_cli_error("mtool", "%s%s", err, runs_differ(count_status, status));
    } else {
        /* a run that failed makes both incomplete: its counts or times are partial */
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !WIFEXITED(count_status) ||
            WEXITSTATUS(count_status) != 0)
            res.incomplete = 1;
        if (res.incomplete)
            fprintf(stderr, "memspy mtool: the program did not finish normally in %s: the result is incomplete\n",
                    count_status != status ? "one of the runs" : "both runs");
        rc = write_report(&o, &res);
        if (!rc && o.json) rc = write_file(o.json, &res, 0, o.prog_argv[0]);
        if (!rc && o.html) rc = write_file(o.html, &res, 1, o.prog_argv[0]);
        ms_model m;
        if (fill_model(&m, &o, &res, status, pid_time, start, ms_cli_seconds_since(&t0)) < 0) {
            int store_rc = ms_cli_error("mtool", "out of memory: the run is not stored");
            if (!rc) rc = store_rc;
        } else {
            int store_rc = store_run(&m, o.db_opt);
            if (!rc) rc = store_rc;
        }
        ms_model_free(&m);
    }
    ms_mtool_result_free(&res);
    ms_raw_free(&counted);
    ms_raw_free(&timed);
    ms_run_guard_release(&guard);
    ms_run_remove_scratch(dir);
    if (!rc) rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WIFEXITED(status) ? WEXITSTATUS(status) : 1;
out:
    ms_run_forward_signals_end();
    free(path);
    free(dir);
    return rc;
}
