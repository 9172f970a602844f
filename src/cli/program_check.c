/* Checks on the program `memspy run` is asked to start: find it in PATH and make sure an ELF
 * executable was built with memspy-cc (it defines the runtime's marker symbol). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "program_check.h"

#define RUNTIME_MARKER "__memspy_runtime_v1"

static int is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *ms_find_program(const char *name)
{
    if (strchr(name, '/')) return is_executable_file(name) ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *dir = path;;) {
        const char *colon = strchr(dir, ':');
        size_t len = colon ? (size_t)(colon - dir) : strlen(dir);
        size_t need = len + strlen(name) + 3;
        char *cand = malloc(need);
        if (!cand) return NULL;
        /* An empty PATH entry means the current directory. */
        snprintf(cand, need, "%.*s%s%s", (int)len, len ? dir : ".", "/", name);
        if (is_executable_file(cand)) return cand;
        free(cand);
        if (!colon) return NULL;
        dir = colon + 1;
    }
}

/* What the symbol tables and the dynamic section say about the program. */
typedef struct {
    int instrumented;   /* defines the runtime's marker */
    int starts_threads; /* see ms_program_starts_threads */
} elf_facts;

/* Whether a symbol name says the program starts threads: an OpenMP entry point, C11 or C++
 * thread creation, pthread_create (when not memspy's own definition), or memspy's marker that
 * the runtime's thread interposers were linked because the program calls them. */
static int is_thread_symbol(const char *name, int undefined)
{
    if (strcmp(name, MS_THREADS_MARKER) == 0) return !undefined;
    if (!undefined) return 0;
    return strncmp(name, "GOMP_", 5) == 0 || strncmp(name, "__kmpc_", 7) == 0 || strncmp(name, "omp_", 4) == 0 ||
           strcmp(name, "pthread_create") == 0 || strcmp(name, "thrd_create") == 0 ||
           strncmp(name, "_ZNSt6thread", 12) == 0;
}

/* An OpenMP runtime among the needed libraries. */
static int is_openmp_library(const char *lib)
{
    return strncmp(lib, "libgomp.so", 10) == 0 || strncmp(lib, "libomp.so", 9) == 0 ||
           strncmp(lib, "libiomp5.so", 11) == 0;
}

/* Add what one symbol table or dynamic section says to *f. */
static void scan_section(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, elf_facts *f)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || sh->sh_entsize == 0) return;
    size_t n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < n; i++) {
        if (sh->sh_type == SHT_DYNAMIC) {
            GElf_Dyn dyn;
            if (!gelf_getdyn(data, (int)i, &dyn)) break;
            const char *lib = dyn.d_tag == DT_NEEDED ? elf_strptr(elf, sh->sh_link, dyn.d_un.d_val) : NULL;
            if (lib && is_openmp_library(lib)) f->starts_threads = 1;
            continue;
        }
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym)) break;
        const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
        if (!name || !*name) continue;
        int undefined = sym.st_shndx == SHN_UNDEF;
        if (!undefined && strcmp(name, RUNTIME_MARKER) == 0) f->instrumented = 1;
        if (is_thread_symbol(name, undefined)) f->starts_threads = 1;
    }
}

ms_program_kind ms_check_program(const char *path, int *starts_threads, char *err, size_t errlen)
{
    *starts_threads = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return MS_PROGRAM_ERROR;
    }
    ms_program_kind kind = MS_PROGRAM_NOT_ELF;
    Elf *elf = NULL;
    if (elf_version(EV_CURRENT) != EV_NONE) elf = elf_begin(fd, ELF_C_READ, NULL);
    if (elf && elf_kind(elf) == ELF_K_ELF) {
        elf_facts f = { 0, 0 };
        for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
            GElf_Shdr sh;
            if (gelf_getshdr(scn, &sh) &&
                (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_DYNAMIC))
                scan_section(elf, scn, &sh, &f);
        }
        kind = f.instrumented ? MS_PROGRAM_INSTRUMENTED : MS_PROGRAM_PLAIN_ELF;
        *starts_threads = f.starts_threads;
    }
    if (elf) elf_end(elf);
    close(fd);
    return kind;
}

int ms_cli_check_program(const char *cmd, const char *name, char **path, int *starts_threads, int *script)
{
    *path = ms_find_program(name);
    if (!*path) return ms_cli_error(cmd, "%s: program not found (or not executable)", name);
    char err[512];
    ms_program_kind kind = ms_check_program(*path, starts_threads, err, sizeof err);
    *script = kind == MS_PROGRAM_NOT_ELF;
    if (kind == MS_PROGRAM_ERROR || kind == MS_PROGRAM_PLAIN_ELF) {
        if (kind == MS_PROGRAM_ERROR)
            ms_cli_error(cmd, "%s", err);
        else
            ms_cli_error(cmd,
                         "%s was not built with memspy-cc: rebuild it with CC=memspy-cc "
                         "(or memspy-c++ / memspy-fortran), e.g. 'make CC=memspy-cc', "
                         "then run memspy again",
                         name);
        free(*path);
        *path = NULL;
        return MS_EXIT_USAGE;
    }
    return 0;
}
