/* Parsing of the compiler command line for the memspy wrappers (see cc_args.h). */
#define _GNU_SOURCE
#include "cc_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RESPONSE_DEPTH = 16 };

static void die_oom(void)
{
    fputs("memspy-cc: out of memory\n", stderr);
    exit(2);
}

void strvec_push(strvec *vec, const char *s)
{
    if (vec->count + 2 > vec->capacity) {
        size_t capacity = vec->capacity ? vec->capacity * 2 : 16;
        char **grown = realloc(vec->items, capacity * sizeof *grown);
        if (!grown) die_oom();
        vec->items = grown;
        vec->capacity = capacity;
    }
    char *copy = strdup(s);
    if (!copy) die_oom();
    vec->items[vec->count++] = copy;
    vec->items[vec->count] = NULL;
}

void strvec_push_all(strvec *vec, const strvec *src)
{
    for (size_t i = 0; i < src->count; i++) strvec_push(vec, src->items[i]);
}

void strvec_free(strvec *vec)
{
    for (size_t i = 0; i < vec->count; i++) free(vec->items[i]);
    free(vec->items);
    vec->items = NULL;
    vec->count = vec->capacity = 0;
}

static bool str_in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0) return true;
    return false;
}

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* ---- response files (@file), split like libiberty's buildargv ---- */

static char *read_whole_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    if (!buf) die_oom();
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            cap *= 2;
            char *grown = realloc(buf, cap);
            if (!grown) die_oom();
            buf = grown;
        }
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static void push_arg(strvec *out, const char *arg, int depth);

/* Splits response-file text into words: blanks separate, quotes group, backslash escapes. */
static void push_response_words(strvec *out, const char *text, int depth)
{
    size_t len = strlen(text);
    char *word = malloc(len + 1);
    if (!word) die_oom();
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') p++;
        if (!*p) break;
        size_t n = 0;
        char quote = 0;
        for (; *p; p++) {
            if (!quote && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v')) break;
            if (*p == '\\' && p[1]) {
                word[n++] = *++p;
            } else if (quote) {
                if (*p == quote)
                    quote = 0;
                else
                    word[n++] = *p;
            } else if (*p == '\'' || *p == '"') {
                quote = *p;
            } else {
                word[n++] = *p;
            }
        }
        word[n] = '\0';
        push_arg(out, word, depth + 1);
    }
    free(word);
}

/* Appends arg, expanding it when it names a readable response file (like gcc: an unreadable
 * @name stays a literal argument). */
static void push_arg(strvec *out, const char *arg, int depth)
{
    if (arg[0] == '@' && arg[1] && depth < MAX_RESPONSE_DEPTH) {
        char *text = read_whole_file(arg + 1);
        if (text) {
            push_response_words(out, text, depth);
            free(text);
            return;
        }
    }
    strvec_push(out, arg);
}

/* ---- classification ---- */

source_lang cc_lang_of_file(const char *path)
{
    static const char *const c_family[] = { "c",  "i",  "h", "cc",  "cp", "cxx", "cpp", "CPP", "c++", "C",   "ii", "m",
                                            "mi", "mm", "M", "mii", "hh", "hpp", "hxx", "H",   "HPP", "tcc", NULL };
    static const char *const fortran[] = { "f",   "for", "ftn", "F",   "FOR", "FTN", "fpp", "FPP", "f90",
                                           "f95", "f03", "f08", "F90", "F95", "F03", "F08", NULL };
    static const char *const assembler[] = { "s", "S", "sx", NULL };
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) return LANG_NONE;
    const char *ext = dot + 1;
    if (str_in(ext, c_family)) return LANG_C_FAMILY;
    if (str_in(ext, fortran)) return LANG_FORTRAN;
    if (str_in(ext, assembler)) return LANG_ASM;
    return LANG_NONE;
}

source_lang cc_lang_of_xlang(const char *xlang)
{
    if (strcmp(xlang, "none") == 0) return LANG_NONE;
    if (strstr(xlang, "assembler")) return LANG_ASM;
    if (strstr(xlang, "f77") || strstr(xlang, "f95") || strstr(xlang, "fortran")) return LANG_FORTRAN;
    return LANG_C_FAMILY;
}

/* Options whose value may be the next word. */
static const char *const two_word_options[] = { "-o",
                                                "-x",
                                                "-I",
                                                "-D",
                                                "-U",
                                                "-include",
                                                "-imacros",
                                                "-isystem",
                                                "-idirafter",
                                                "-iprefix",
                                                "-iwithprefix",
                                                "-iwithprefixbefore",
                                                "-isysroot",
                                                "-iquote",
                                                "-imultilib",
                                                "-L",
                                                "-l",
                                                "-MF",
                                                "-MT",
                                                "-MQ",
                                                "-Xlinker",
                                                "-Xassembler",
                                                "-Xpreprocessor",
                                                "-Xclang",
                                                "-mllvm",
                                                "-T",
                                                "-u",
                                                "-z",
                                                "-e",
                                                "-aux-info",
                                                "--param",
                                                "-A",
                                                "-B",
                                                "-target",
                                                "-gcc-toolchain",
                                                "--sysroot",
                                                "-J",
                                                "-arch",
                                                "-dumpdir",
                                                "-dumpbase",
                                                "-dumpbase-ext",
                                                "--include",
                                                NULL };

/* Options only the link step needs (kept out of per-source compile steps). */
static bool is_link_only(const char *opt)
{
    static const char *const exact[] = { "-shared",
                                         "-rdynamic",
                                         "-pie",
                                         "-no-pie",
                                         "-nostdlib",
                                         "-nostartfiles",
                                         "-nodefaultlibs",
                                         "-r",
                                         "-s",
                                         "-symbolic",
                                         "-Xlinker",
                                         "-u",
                                         "-z",
                                         "-e",
                                         NULL };
    return str_in(opt, exact) || starts_with(opt, "-l") || starts_with(opt, "-L") || starts_with(opt, "-Wl,") ||
           starts_with(opt, "-T") || starts_with(opt, "-static") || starts_with(opt, "-fuse-ld=") ||
           starts_with(opt, "--ld-path=");
}

/* -MD, -MMD, -MF, -MT, -MQ, -MP, -MG: dependency output of a compile (-M and -MM are -E). */
static bool is_dependency_option(const char *opt)
{
    return starts_with(opt, "-M") && strcmp(opt, "-M") != 0 && strcmp(opt, "-MM") != 0;
}

/* Sanitizers that cannot share a program with ThreadSanitizer instrumentation. */
static bool conflicts_with_tsan(const char *sanitizer)
{
    static const char *const conflicting[] = { "address", "kernel-address", "hwaddress", "kernel-hwaddress",
                                               "memory",  "kernel-memory",  "leak",      NULL };
    return str_in(sanitizer, conflicting);
}

/* Removes "thread" from a -fsanitize= list in place (the wrapper adds it where it belongs).
 * Returns 1 if the option is now empty (drop it), 0 to keep it, -1 on a conflicting sanitizer. */
static int normalise_sanitize(char *opt, char *err, size_t errlen)
{
    char *list = opt + strlen("-fsanitize=");
    char *out = list;
    char *save = NULL;
    char *copy = strdup(list);
    if (!copy) die_oom();
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (conflicts_with_tsan(name)) {
            snprintf(err, errlen,
                     "-fsanitize=%s cannot be combined with memspy's instrumentation "
                     "(-fsanitize=thread)",
                     name);
            free(copy);
            return -1;
        }
        if (strcmp(name, "thread") == 0) continue;
        if (out != list) *out++ = ',';
        size_t n = strlen(name);
        memmove(out, name, n);
        out += n;
    }
    *out = '\0';
    free(copy);
    return out == list ? 1 : 0;
}

static void set_error(char *err, size_t errlen, const char *msg, const char *arg)
{
    snprintf(err, errlen, "%s %s", msg, arg);
}

int cc_parse(int argc, char **argv, cc_cmdline *cmd, char *err, size_t errlen)
{
    memset(cmd, 0, sizeof *cmd);
    for (int i = 1; i < argc; i++) push_arg(&cmd->words, argv[i], 0);
    cmd->items = calloc(cmd->words.count + 1, sizeof *cmd->items);
    if (!cmd->items) die_oom();

    bool passthrough = false, compile_only = false;
    const char *xlang = NULL;
    char **w = cmd->words.items;
    for (size_t i = 0; i < cmd->words.count; i++) {
        char *arg = w[i];
        cc_item item = { .kind = ITEM_OPTION, .text = { arg, NULL }, .words = 1 };
        if (arg[0] != '-' || arg[1] == '\0') {
            /* A file, or "-" for standard input (a source only under -x). */
            source_lang lang = xlang ? cc_lang_of_xlang(xlang) : cc_lang_of_file(arg);
            bool is_source = lang != LANG_NONE && (arg[0] != '-' || xlang);
            item.kind = is_source ? ITEM_SOURCE : ITEM_INPUT;
            item.lang = lang;
            item.xlang = xlang;
            if (is_source) {
                cmd->source_count++;
                cmd->has_c_family |= lang == LANG_C_FAMILY;
                cmd->has_fortran |= lang == LANG_FORTRAN;
            } else {
                cmd->input_count++;
            }
            cmd->items[cmd->item_count++] = item;
            continue;
        }
        if (str_in(arg, two_word_options)) {
            if (i + 1 >= cmd->words.count) {
                set_error(err, errlen, "missing argument to", arg);
                return -1;
            }
            item.text[1] = w[++i];
            item.words = 2;
        }
        const char *value = item.words == 2 ? item.text[1] : NULL;
        if (strcmp(arg, "-o") == 0 || (starts_with(arg, "-o") && !value)) {
            item.kind = ITEM_OUTPUT;
            cmd->output = value ? value : arg + 2;
        } else if (starts_with(arg, "-x")) {
            item.kind = ITEM_XLANG;
            xlang = value ? value : arg + 2;
            if (strcmp(xlang, "none") == 0) xlang = NULL;
        } else if (starts_with(arg, "-fsanitize=")) {
            int rc = normalise_sanitize(arg, err, errlen);
            if (rc < 0) return -1;
            if (rc == 1) continue; /* only "thread": dropped */
        }
        if (str_in(arg, (const char *const[]){ "-E", "-M", "-MM", "-###", NULL })) passthrough = true;
        if (str_in(arg, (const char *const[]){ "-c", "-S", "-fsyntax-only", NULL })) compile_only = true;
        if (strcmp(arg, "-shared") == 0) cmd->link = LINK_SHARED;
        if (strcmp(arg, "-r") == 0 && cmd->link != LINK_SHARED) cmd->link = LINK_RELOCATABLE;
        if (strcmp(arg, "-static") == 0 || strcmp(arg, "-static-pie") == 0) cmd->is_static = true;
        if (strcmp(arg, "-fopenmp") == 0 || starts_with(arg, "-fopenmp=")) {
            cmd->openmp = true;
            cmd->openmp_lib = strstr(arg, "libgomp") ? "gomp" : strstr(arg, "libomp") ? "omp" : NULL;
        }
        if (strcmp(arg, "-fno-openmp") == 0) cmd->openmp = false;
        if (strcmp(arg, "-MD") == 0 || strcmp(arg, "-MMD") == 0) cmd->dep_file = true;
        if (starts_with(arg, "-MF") || starts_with(arg, "-MT") || starts_with(arg, "-MQ")) cmd->dep_named = true;
        item.link_only = is_link_only(arg);
        item.dependency = is_dependency_option(arg);
        cmd->items[cmd->item_count++] = item;
    }

    if (passthrough || cmd->source_count + cmd->input_count == 0)
        cmd->mode = MODE_PASSTHROUGH;
    else if (compile_only)
        cmd->mode = MODE_COMPILE;
    else if (cmd->source_count > 0)
        cmd->mode = MODE_COMPILE_LINK;
    else
        cmd->mode = MODE_LINK;
    return 0;
}

void cc_cmdline_free(cc_cmdline *cmd)
{
    strvec_free(&cmd->words);
    free(cmd->items);
    memset(cmd, 0, sizeof *cmd);
}
