/* Command-line model of the memspy compiler wrappers: the user's compiler arguments, classified
 * once (options, sources, other inputs, output) so that the wrapper can rebuild the compile and
 * link command lines it runs without a shell. */
#ifndef MEMSPY_CC_ARGS_H
#define MEMSPY_CC_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/* A growable NULL-terminated vector of owned strings, usable as an execv() argv. */
typedef struct {
    char **items;
    size_t count;
    size_t capacity;
} strvec;

/* Appends a copy of s (aborts the wrapper with a message when memory runs out). */
void strvec_push(strvec *vec, const char *s);
/* Appends copies of all strings of src. */
void strvec_push_all(strvec *vec, const strvec *src);
/* Frees every string and the array; leaves an empty vector. */
void strvec_free(strvec *vec);

/* What kind of source a file is, which decides the instrumentation flags it gets. */
typedef enum {
    LANG_NONE,     /* not a source: object, archive, shared library, linker script... */
    LANG_C_FAMILY, /* C, C++, Objective-C, preprocessed or header */
    LANG_FORTRAN,
    LANG_ASM, /* assembler (with or without cpp): nothing to instrument */
} source_lang;

/* One user argument, with its separate value when the option takes one ("-o x", "-I dir"). */
typedef enum {
    ITEM_OPTION, /* a compiler option kept as written */
    ITEM_XLANG,  /* "-x lang": re-emitted per source when compiling, dropped when linking */
    ITEM_OUTPUT, /* "-o file" */
    ITEM_SOURCE, /* a file to compile (by extension or by the active -x) */
    ITEM_INPUT,  /* any other input file (objects, archives, libraries, -l is an option) */
} item_kind;

typedef struct {
    item_kind kind;
    const char *text[2]; /* the argument and, for two-word options, its value */
    int words;           /* 1 or 2 */
    bool link_only;      /* meaningful only to the linker (-l, -Wl, -shared...): not in compile steps */
    bool dependency;     /* -M* dependency generation: not in link steps */
    source_lang lang;    /* for ITEM_SOURCE */
    const char *xlang;   /* for ITEM_SOURCE: the -x language in force, or NULL */
} cc_item;

/* What the user's command line asks the compiler to do. */
typedef enum {
    MODE_PASSTHROUGH, /* queries (--version, -print-*), -E, -M/-MM, -###: run untouched */
    MODE_COMPILE,     /* -c, -S or -fsyntax-only: instrument, no link */
    MODE_LINK,        /* link only (no sources) */
    MODE_COMPILE_LINK /* sources and a link: compiled one by one to temporary objects, then linked */
} cc_mode;

typedef enum {
    LINK_EXECUTABLE,  /* gets the runtime */
    LINK_SHARED,      /* -shared: no runtime, __tsan_* resolve against the executable */
    LINK_RELOCATABLE, /* -r: partial link, no runtime */
} link_kind;

typedef struct {
    strvec words;   /* the user's arguments after response-file expansion (owns the strings) */
    cc_item *items; /* classified arguments pointing into words */
    size_t item_count;
    cc_mode mode;
    link_kind link;
    bool is_static; /* -static or -static-pie */
    bool openmp;    /* -fopenmp[=LIB]; openmp_lib: "gomp", "omp" or NULL (the compiler's default) */
    const char *openmp_lib;
    bool dep_file;      /* -MD or -MMD */
    bool dep_named;     /* -MF, -MT or -MQ given */
    const char *output; /* -o value or NULL */
    size_t source_count;
    size_t input_count;
    bool has_c_family; /* some source is C-family */
    bool has_fortran;  /* some source is Fortran */
} cc_cmdline;

/* Parses argv[1..argc-1] (expanding @response files as gcc does) into cmd. Sanitizer options
 * are normalised: "thread" is removed from -fsanitize lists (the wrapper adds it where it
 * belongs). Returns 0, or -1 with a message in err when the line cannot be honoured
 * (a sanitizer that conflicts with ThreadSanitizer instrumentation). */
int cc_parse(int argc, char **argv, cc_cmdline *cmd, char *err, size_t errlen);

/* Releases what cc_parse allocated. */
void cc_cmdline_free(cc_cmdline *cmd);

/* Classifies a file name by its extension (gcc's rules). */
source_lang cc_lang_of_file(const char *path);

/* Classifies a -x language name ("c", "c++", "f95", "assembler-with-cpp"...). */
source_lang cc_lang_of_xlang(const char *xlang);

#endif
