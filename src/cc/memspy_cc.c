/* memspy-cc, memspy-c++, memspy-fortran: drop-in compilers that build a program with memspy's
 * instrumentation and link it against memspy's runtime. The default is memspy's own plugin
 * for the compiler (inline capture after vectorisation): the GCC plugin (src/cc/plugin/gcc)
 * for gcc, g++ and gfortran, the LLVM pass plugin (src/cc/plugin/llvm) for clang and
 * clang++, when it was built for the compiler's exact version; otherwise, with -flto or with
 * MEMSPY_INSTRUMENT=tsan, ThreadSanitizer instrumentation (-fsanitize=thread) whose hooks
 * the runtime defines instead of libtsan. One binary; the basename of argv[0] picks
 * the language. See man/memspy-cc.1. */
#define _GNU_SOURCE
#include "cc_args.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOOL "memspy-cc"
#define RUNTIME_ARCHIVE "libmemspy_rt.a"
#define THREADS_ARCHIVE "libmemspy_threads.a" /* the threads marker (src/rt/marker) */
#define DYNAMIC_LIST "memspy-dynamic.list"
#define GCC_PLUGIN "memspy_gcc.so"
#define LLVM_PLUGIN "memspy_llvm.so"

typedef enum { FAMILY_GCC, FAMILY_CLANG } compiler_family;

/* How sources are instrumented: decided once per wrapper run (instrument_mode). */
typedef enum { INSTR_UNDECIDED, INSTR_PLUGIN, INSTR_TSAN } instrument_kind;

/* Everything the wrapper decided about its environment before looking at the arguments. */
typedef struct {
    const char *compiler_name; /* as configured, for messages */
    char *compiler_path;       /* resolved through PATH */
    compiler_family family;
    char libdir[PATH_MAX + 64]; /* where libmemspy_rt.a and memspy-dynamic.list live */
    bool verbose;
    instrument_kind instrument;
} wrapper_env;

/* The temporary directory of a split compile+link and the child being waited for, reachable
 * from the signal handler so that an interrupted build leaves nothing behind. */
static char g_tmpdir[PATH_MAX];
static volatile pid_t g_child;
static volatile sig_atomic_t g_signal;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(TOOL ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* ---- environment ---- */

/* Which compiler variable and default a wrapper name selects. */
static void pick_compiler(const char *argv0, const char **var, const char **fallback)
{
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    if (strstr(base, "++") || strstr(base, "cxx")) {
        *var = "MEMSPY_CXX";
        *fallback = "g++";
    } else if (strstr(base, "fortran")) {
        *var = "MEMSPY_FC";
        *fallback = "gfortran";
    } else {
        *var = "MEMSPY_CC";
        *fallback = "gcc";
    }
}

/* Looks name up like execvp would; returns a malloc'd path or NULL. */
static char *find_program(const char *name)
{
    if (strchr(name, '/')) return access(name, X_OK) == 0 ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *dir = path; dir;) {
        const char *end = strchr(dir, ':');
        size_t len = end ? (size_t)(end - dir) : strlen(dir);
        char candidate[PATH_MAX];
        int n = snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, len ? dir : ".", name);
        struct stat st;
        if (n > 0 && (size_t)n < sizeof candidate && stat(candidate, &st) == 0 && S_ISREG(st.st_mode) &&
            access(candidate, X_OK) == 0)
            return strdup(candidate);
        dir = end ? end + 1 : NULL;
    }
    return NULL;
}

static void init_env(const char *argv0, wrapper_env *env)
{
    const char *var, *fallback;
    pick_compiler(argv0, &var, &fallback);
    const char *name = getenv(var);
    env->compiler_name = name && *name ? name : fallback;
    env->compiler_path = find_program(env->compiler_name);
    if (!env->compiler_path) fail("compiler '%s' not found (set %s to the compiler to wrap)", env->compiler_name, var);

    char self[PATH_MAX], target[PATH_MAX];
    if (!realpath("/proc/self/exe", self)) fail("cannot resolve /proc/self/exe: %s", strerror(errno));
    if (realpath(env->compiler_path, target) && strcmp(self, target) == 0)
        fail("%s=%s names memspy's own wrapper; it must name a real compiler", var, env->compiler_name);

    const char *base = strrchr(env->compiler_name, '/');
    base = base ? base + 1 : env->compiler_name;
    env->family = strstr(base, "clang") ? FAMILY_CLANG : FAMILY_GCC;
    const char *family = getenv("MEMSPY_CC_FAMILY");
    if (family && *family) {
        if (strcmp(family, "gcc") == 0)
            env->family = FAMILY_GCC;
        else if (strcmp(family, "clang") == 0)
            env->family = FAMILY_CLANG;
        else
            fail("MEMSPY_CC_FAMILY must be 'gcc' or 'clang', not '%s'", family);
    }

    const char *libdir = getenv("MEMSPY_LIBDIR");
    if (libdir && *libdir) {
        snprintf(env->libdir, sizeof env->libdir, "%s", libdir);
    } else {
        char *slash = strrchr(self, '/');
        *slash = '\0';
        char guess[PATH_MAX + 32];
        snprintf(guess, sizeof guess, "%s/../lib/memspy", self);
        if (!realpath(guess, env->libdir)) snprintf(env->libdir, sizeof env->libdir, "%s", guess);
    }
    const char *verbose = getenv("MEMSPY_CC_VERBOSE");
    env->verbose = verbose && *verbose && strcmp(verbose, "0") != 0;
}

/* ---- command construction ---- */

/* The compiler's version (flag: -dumpfullversion for gcc, -dumpversion for clang) into buf,
 * "" if it cannot be had. */
static void compiler_version(const wrapper_env *env, const char *flag, char *buf, size_t len)
{
    buf[0] = '\0';
    int fds[2];
    if (pipe(fds) != 0) return;
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(env->compiler_path, env->compiler_path, flag, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (pid > 0 && got + 1 < len && (n = read(fds[0], buf + got, len - 1 - got)) > 0) got += (size_t)n;
    close(fds[0]);
    buf[got] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    int status;
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
}

/* Whether the user's line asks for link-time optimisation (the plugin would not run then:
 * the code is compiled at link time without it). */
static bool wants_lto(const cc_cmdline *line)
{
    bool lto = false;
    for (size_t i = 0; i < line->item_count; i++) {
        const char *a = line->items[i].text[0];
        if (line->items[i].kind != ITEM_OPTION) continue;
        if (strncmp(a, "-flto", 5) == 0 && strcmp(a, "-flto-partition=none") != 0) lto = true;
        if (strcmp(a, "-fno-lto") == 0) lto = false;
    }
    return lto;
}

/* memspy's plugin for a compiler family, as this memspy-cc was built. */
typedef struct {
    const char *what;         /* "gcc plugin", "llvm plugin" */
    const char *compiler;     /* "GCC", "clang" */
    const char *file;         /* in libdir */
    const char *built_for;    /* the compiler version it was built for; NULL: not built */
    const char *version_flag; /* asks the compiler its version */
} plugin_info;

static plugin_info family_plugin(compiler_family family)
{
    if (family == FAMILY_CLANG) {
#ifdef MEMSPY_LLVM_PLUGIN_VERSION
        const char *built = MEMSPY_LLVM_PLUGIN_VERSION;
#else
        const char *built = NULL;
#endif
        return (plugin_info){ "llvm plugin", "clang", LLVM_PLUGIN, built, "-dumpversion" };
    }
#ifdef MEMSPY_GCC_PLUGIN_VERSION
    const char *built = MEMSPY_GCC_PLUGIN_VERSION;
#else
    const char *built = NULL;
#endif
    return (plugin_info){ "gcc plugin", "GCC", GCC_PLUGIN, built, "-dumpfullversion" };
}

/* Decides, once, between memspy's plugin for the compiler (GCC plugin, LLVM pass plugin) and
 * ThreadSanitizer instrumentation: MEMSPY_INSTRUMENT=tsan|plugin forces one; by default the
 * plugin when it was built for the compiler's exact version (else a one-line note and the
 * fallback). */
static instrument_kind instrument_mode(wrapper_env *env, const cc_cmdline *line)
{
    if (env->instrument != INSTR_UNDECIDED) return env->instrument;
    const char *want = getenv("MEMSPY_INSTRUMENT");
    if (!want || !*want) want = "auto";
    if (strcmp(want, "tsan") == 0) return env->instrument = INSTR_TSAN;
    bool forced = strcmp(want, "plugin") == 0;
    if (!forced && strcmp(want, "auto") != 0)
        fail("MEMSPY_INSTRUMENT must be 'plugin', 'tsan' or 'auto', not '%s'", want);
    plugin_info p = family_plugin(env->family);
    if (!p.built_for) {
        if (forced)
            fail("memspy was built without its %s (%s's plugin headers missing at build time)", p.what, p.compiler);
        return env->instrument = INSTR_TSAN;
    }
    if (wants_lto(line)) {
        if (forced) fail("memspy's %s does not work with -flto (use MEMSPY_INSTRUMENT=tsan)", p.what);
        fprintf(stderr, TOOL ": note: -flto: using -fsanitize=thread instrumentation instead of memspy's %s\n", p.what);
        return env->instrument = INSTR_TSAN;
    }
    char version[64];
    compiler_version(env, p.version_flag, version, sizeof version);
    if (strcmp(version, p.built_for) != 0) {
        if (forced)
            fail("memspy's %s was built for %s %s, %s is %s %s", p.what, p.compiler, p.built_for, env->compiler_name,
                 p.compiler, version[0] ? version : "(unknown version)");
        fprintf(stderr,
                TOOL ": note: %s is %s %s, memspy's plugin was built for %s %s: using "
                     "-fsanitize=thread instrumentation\n",
                env->compiler_name, p.compiler, version[0] ? version : "(unknown version)", p.compiler, p.built_for);
        return env->instrument = INSTR_TSAN;
    }
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/%s", env->libdir, p.file);
    if (access(path, R_OK) != 0)
        fail("memspy's %s %s cannot be read (%s); build/install memspy, set MEMSPY_LIBDIR, "
             "or set MEMSPY_INSTRUMENT=tsan",
             p.what, path, strerror(errno));
    return env->instrument = INSTR_PLUGIN;
}

/* The plugin-loading flag of a plugin compile, placed before the user's options: GCC accepts
 * -fplugin-arg-memspy_gcc-KEY (e.g. verbose) only after the -fplugin= that loads it. */
static void push_plugin_load(strvec *cmd, wrapper_env *env, const cc_cmdline *line, bool c_family, bool fortran)
{
    if (!c_family && !fortran) return;
    if (instrument_mode(env, line) != INSTR_PLUGIN) return;
    char path[PATH_MAX + 160];
    plugin_info p = family_plugin(env->family);
    snprintf(path, sizeof path, "%s%s/%s", env->family == FAMILY_CLANG ? "-fpass-plugin=" : "-fplugin=", env->libdir,
             p.file);
    strvec_push(cmd, path);
}

/* Whether the clang driver of the LLVM plugin's version has -f[no-]legacy-pass-manager
 * (LLVM 13 and 14: the plugin runs in the new pass manager only). */
static bool clang_has_legacy_pm(void)
{
#ifdef MEMSPY_LLVM_PLUGIN_VERSION
    return atoi(MEMSPY_LLVM_PLUGIN_VERSION) <= 14;
#else
    return false;
#endif
}

/* Instrumentation flags for a compile whose sources have the given languages, after the
 * user's options, so that none of them undoes what the instrumentation needs: -g (after -g0);
 * with the plugins, the columns of the line table (-gno-column-info: no allocation record
 * would match a call's position), the debug information in the object itself (-gsplit-dwarf:
 * a compile+link's .dwo files go with the temporary directory), gcc's debug bindings
 * (-fno-var-tracking[-assignments]: the records lose the variables optimised code binds a
 * result to) and clang's new pass manager (-flegacy-pass-manager: the pass plugin never
 * runs); with ThreadSanitizer, the sanitizer flags. t_cc_flag_order. */
static void push_instrumentation(strvec *cmd, wrapper_env *env, const cc_cmdline *line, bool c_family, bool fortran)
{
    if (!c_family && !fortran) return; /* assembler only: nothing to instrument */
    compiler_family family = env->family;
    if (instrument_mode(env, line) == INSTR_PLUGIN) {
        strvec_push(cmd, "-g");
        strvec_push(cmd, "-gcolumn-info");
        strvec_push(cmd, "-gno-split-dwarf");
        if (family == FAMILY_GCC) strvec_push(cmd, "-fvar-tracking-assignments");
        if (family == FAMILY_CLANG) strvec_push(cmd, "-gdwarf-aranges"); /* libdw finds no lines without */
        if (family == FAMILY_CLANG && clang_has_legacy_pm()) strvec_push(cmd, "-fno-legacy-pass-manager");
        return;
    }
    strvec_push(cmd, "-fsanitize=thread");
    strvec_push(cmd, "-g");
    /* gfortran warns that -fno-builtin-* are C-only: give them to C-family compiles only. */
    static const char *const no_builtins[] = { "-fno-builtin-memcpy", "-fno-builtin-memset", "-fno-builtin-memmove",
                                               NULL };
    if (family == FAMILY_GCC) {
        if (c_family)
            for (const char *const *f = no_builtins; *f; f++) strvec_push(cmd, *f);
        strvec_push(cmd, "--param=tsan-distinguish-volatile=1");
        return;
    }
    static const char *const clang_flags[] = { "-fno-sanitize-link-runtime",
                                               "-gdwarf-aranges",
                                               "-mllvm",
                                               "-tsan-instrument-read-before-write=1",
                                               "-mllvm",
                                               "-tsan-distinguish-volatile=1",
                                               "-mllvm",
                                               "-disable-loop-idiom-memcpy",
                                               "-mllvm",
                                               "-disable-loop-idiom-memset",
                                               NULL };
    for (const char *const *f = clang_flags; *f; f++) strvec_push(cmd, *f);
    for (const char *const *f = no_builtins; *f; f++) strvec_push(cmd, *f);
}

static void push_item(strvec *cmd, const cc_item *item)
{
    for (int w = 0; w < item->words; w++) strvec_push(cmd, item->text[w]);
}

/* Fails unless the runtime files an executable link needs are present. */
static void require_runtime(const wrapper_env *env)
{
    static const char *const files[] = { RUNTIME_ARCHIVE, THREADS_ARCHIVE, DYNAMIC_LIST, NULL };
    for (const char *const *f = files; *f; f++) {
        char path[PATH_MAX + 128];
        snprintf(path, sizeof path, "%s/%s", env->libdir, *f);
        if (access(path, R_OK) != 0)
            fail("runtime file %s not found (%s); build/install memspy's runtime or set MEMSPY_LIBDIR", path,
                 strerror(errno));
    }
}

/* The runtime, linked whole (it defines interposed functions nothing references yet) and its
 * hooks exported so that instrumented shared libraries resolve them against the executable. */
static void push_runtime(strvec *cmd, const wrapper_env *env, const cc_cmdline *line)
{
    char path[PATH_MAX + 128];
    strvec_push(cmd, "-Wl,--whole-archive");
    snprintf(path, sizeof path, "%s/%s", env->libdir, RUNTIME_ARCHIVE);
    strvec_push(cmd, path);
    strvec_push(cmd, "-Wl,--no-whole-archive");
    /* The program's own pthread_create calls pull in the threads marker. */
    strvec_push(cmd, "-Wl,--wrap=pthread_create");
    snprintf(path, sizeof path, "%s/%s", env->libdir, THREADS_ARCHIVE);
    strvec_push(cmd, path);
    snprintf(path, sizeof path, "--dynamic-list=%s/%s", env->libdir, DYNAMIC_LIST);
    if (strchr(path, ',')) { /* -Wl, would split the path */
        strvec_push(cmd, "-Xlinker");
        strvec_push(cmd, path);
    } else {
        char wl[sizeof path + 8];
        snprintf(wl, sizeof wl, "-Wl,%s", path);
        strvec_push(cmd, wl);
    }
    static const char *const libs[] = { "-ldw", "-lelf", "-ldl", "-lpthread", "-lm", NULL };
    for (const char *const *l = libs; *l; l++) strvec_push(cmd, *l);
    /* The runtime defines the GOMP_* entry points it interposes, so a program that calls no
   * other OpenMP function references nothing in the OpenMP library, and --as-needed (Debian's
   * default) would drop it: the interposers would then find no real function to call. */
    if (line->openmp) {
        const char *lib = line->openmp_lib ? line->openmp_lib : env->family == FAMILY_CLANG ? "omp" : "gomp";
        char l[16];
        snprintf(l, sizeof l, "-l%s", lib);
        strvec_push(cmd, "-Wl,--push-state,--no-as-needed");
        strvec_push(cmd, l);
        strvec_push(cmd, "-Wl,--pop-state");
    }
}

/* Where gcc would have put the dependency file of a one-command compile+link ("-MD a.c -o
 * prog" writes prog.d), since the split compile would otherwise write it into the temp dir. */
static void push_dependency_name(strvec *cmd, const cc_cmdline *line, const char *source)
{
    const char *target = line->output ? line->output : "a.out";
    char stem[PATH_MAX];
    if (line->output) {
        snprintf(stem, sizeof stem, "%s", line->output);
    } else {
        const char *base = strrchr(source, '/');
        snprintf(stem, sizeof stem, "a-%s", base ? base + 1 : source);
    }
    char *base = strrchr(stem, '/');
    base = base ? base + 1 : stem;
    char *dot = strrchr(base, '.');
    if (dot && dot != base) *dot = '\0';
    char depfile[PATH_MAX + 4];
    snprintf(depfile, sizeof depfile, "%s.d", stem);
    strvec_push(cmd, "-MF");
    strvec_push(cmd, depfile);
    strvec_push(cmd, "-MQ");
    strvec_push(cmd, target);
}

/* The compile step of one source of a compile+link line: every compile option of the line,
 * the source's -x language, the instrumentation, and a temporary object as output. */
static void build_compile_step(strvec *cmd, wrapper_env *env, const cc_cmdline *line, const cc_item *source,
                               const char *object)
{
    strvec_push(cmd, env->compiler_path);
    push_plugin_load(cmd, env, line, source->lang == LANG_C_FAMILY, source->lang == LANG_FORTRAN);
    for (size_t i = 0; i < line->item_count; i++) {
        const cc_item *item = &line->items[i];
        if (item->kind == ITEM_OPTION && !item->link_only) push_item(cmd, item);
    }
    if (line->dep_file && !line->dep_named) push_dependency_name(cmd, line, source->text[0]);
    push_instrumentation(cmd, env, line, source->lang == LANG_C_FAMILY, source->lang == LANG_FORTRAN);
    strvec_push(cmd, "-c");
    if (source->xlang) {
        strvec_push(cmd, "-x");
        strvec_push(cmd, source->xlang);
    }
    strvec_push(cmd, source->text[0]);
    strvec_push(cmd, "-o");
    strvec_push(cmd, object);
}

/* The link step: the user's line in its order with each source replaced by its object
 * (objects[k] for the k-th source, or the line as is when objects is NULL). */
static void build_link_step(strvec *cmd, const wrapper_env *env, const cc_cmdline *line, char *const *objects)
{
    strvec_push(cmd, env->compiler_path);
    size_t source_index = 0;
    for (size_t i = 0; i < line->item_count; i++) {
        const cc_item *item = &line->items[i];
        if (objects && item->kind == ITEM_SOURCE)
            strvec_push(cmd, objects[source_index++]);
        else if (objects && (item->kind == ITEM_XLANG || item->dependency))
            continue;
        else
            push_item(cmd, item);
    }
    if (line->link == LINK_EXECUTABLE) push_runtime(cmd, env, line);
}

/* ---- running ---- */

static void print_command(const strvec *cmd)
{
    fputs(TOOL ":", stderr);
    for (size_t i = 0; i < cmd->count; i++) {
        const char *a = cmd->items[i];
        if (*a && !a[strcspn(a, " \t\n'\"\\$`*?;&|<>()")]) {
            fprintf(stderr, " %s", a);
            continue;
        }
        fputs(" '", stderr);
        for (; *a; a++) *a == '\'' ? fputs("'\\''", stderr) : fputc(*a, stderr);
        fputc('\'', stderr);
    }
    fputc('\n', stderr);
}

/* Replaces the wrapper with the compiler (single-command modes). */
static void exec_command(const wrapper_env *env, const strvec *cmd)
{
    if (env->verbose) print_command(cmd);
    execv(env->compiler_path, cmd->items);
    fail("cannot run %s: %s", env->compiler_path, strerror(errno));
}

/* Runs cmd and returns its wait status. */
static int run_command(const wrapper_env *env, const strvec *cmd)
{
    if (env->verbose) print_command(cmd);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) fail("fork: %s", strerror(errno));
    if (pid == 0) { /* exec resets the wrapper's handlers; ignored signals stay ignored */
        execv(env->compiler_path, cmd->items);
        fprintf(stderr, TOOL ": cannot run %s: %s\n", env->compiler_path, strerror(errno));
        _exit(2);
    }
    g_child = pid;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) fail("waitpid: %s", strerror(errno));
    g_child = 0;
    return status;
}

static void on_signal(int sig)
{
    g_signal = sig;
    if (g_child > 0) kill(g_child, sig);
}

/* Removes the temporary directory and whatever the compiler left in it (.dwo, .d files). */
static void remove_tmpdir(void)
{
    if (!g_tmpdir[0]) return;
    DIR *dir = opendir(g_tmpdir);
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir(dir)) != NULL) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
            char path[PATH_MAX + 256];
            snprintf(path, sizeof path, "%s/%s", g_tmpdir, entry->d_name);
            unlink(path);
        }
        closedir(dir);
    }
    rmdir(g_tmpdir);
    g_tmpdir[0] = '\0';
}

/* Ends the wrapper the way the last compiler step ended (re-raising a deadly signal). */
static void exit_like(int status)
{
    remove_tmpdir();
    int sig = g_signal ? g_signal : (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (sig) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* Compiles each source to a temporary object, then links: gcc must not see -fsanitize=thread
 * on a link line (it would link libtsan), so the two never share a command. */
static void compile_then_link(wrapper_env *env, const cc_cmdline *line)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/memspy-cc.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++) {
        struct sigaction old, sa = { .sa_handler = on_signal };
        sigemptyset(&sa.sa_mask);
        if (sigaction(forwarded[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) /* nohup */
            sigaction(forwarded[i], &sa, NULL);
    }
    if (!mkdtemp(g_tmpdir)) {
        int e = errno;
        g_tmpdir[0] = '\0';
        fail("cannot create a temporary directory: %s", strerror(e));
    }

    char **objects = calloc(line->source_count, sizeof *objects);
    if (!objects) fail("out of memory");
    size_t k = 0;
    int status = 0;
    for (size_t i = 0; i < line->item_count && !g_signal; i++) {
        const cc_item *item = &line->items[i];
        if (item->kind != ITEM_SOURCE) continue;
        const char *base = strrchr(item->text[0], '/');
        base = base ? base + 1 : item->text[0];
        if (asprintf(&objects[k], "%s/%zu-%s.o", g_tmpdir, k, base) < 0) fail("out of memory");
        strvec step = { 0 };
        build_compile_step(&step, env, line, item, objects[k]);
        status = run_command(env, &step);
        strvec_free(&step);
        k++;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) exit_like(status);
    }
    if (!g_signal) {
        strvec link = { 0 };
        build_link_step(&link, env, line, objects);
        status = run_command(env, &link);
        strvec_free(&link);
    }
    for (size_t j = 0; j < k; j++) free(objects[j]);
    free(objects);
    exit_like(status);
}

int main(int argc, char **argv)
{
    wrapper_env env = { 0 };
    init_env(argv[0], &env);

    cc_cmdline line;
    char err[512];
    if (cc_parse(argc, argv, &line, err, sizeof err) != 0) fail("%s", err);

    bool links = line.mode == MODE_LINK || line.mode == MODE_COMPILE_LINK;
    if (links && line.link == LINK_EXECUTABLE) {
        if (line.is_static)
            fail("-static is not supported: memspy's runtime needs the dynamic loader "
                 "(link the program dynamically)");
        require_runtime(&env);
    }

    strvec cmd = { 0 };
    switch (line.mode) {
    case MODE_PASSTHROUGH: /* the original arguments, untouched */
        strvec_push(&cmd, env.compiler_path);
        for (int i = 1; i < argc; i++) strvec_push(&cmd, argv[i]);
        exec_command(&env, &cmd);
        break;
    case MODE_COMPILE:
        strvec_push(&cmd, env.compiler_path);
        push_plugin_load(&cmd, &env, &line, line.has_c_family, line.has_fortran);
        for (size_t i = 0; i < line.item_count; i++) push_item(&cmd, &line.items[i]);
        push_instrumentation(&cmd, &env, &line, line.has_c_family, line.has_fortran);
        exec_command(&env, &cmd);
        break;
    case MODE_LINK:
        build_link_step(&cmd, &env, &line, NULL);
        exec_command(&env, &cmd);
        break;
    case MODE_COMPILE_LINK: compile_then_link(&env, &line); break;
    }
    return 2; /* not reached: every mode execs or exits */
}
