/* Symbolization of the raw profile's pcs and global addresses with elfutils libdw. */
#ifndef MEMSPY_ANALYSIS_SYMBOLIZE_H
#define MEMSPY_ANALYSIS_SYMBOLIZE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../format/raw.h"

/* One logical frame. Strings belong to the symbolizer (live until ms_symbolizer_free). */
typedef struct {
    const char *func;      /* function name, "??" if unknown */
    const char *decl_file; /* the function's declaration file, NULL if unknown */
    int decl_line;
    const char *file; /* source position of the pc in this frame, NULL if unknown */
    int line, col;
    /* Code of a library without DWARF (named from its symbol tables): the library's file
     * name ("libzstd.so.1") and the symbol that covers the pc (NULL if none covers it; func
     * is then "libzstd.so.1+0xOFFSET"). NULL for code with DWARF and the program's own. */
    const char *module, *symbol;
    bool exported; /* symbol is a global or weak one (an entry point of the library) */
    bool member;   /* func is a member function of a class, structure or union (DWARF: the parent
                    * of its declaration), so its scope is a type, not a namespace */
} ms_frame;

/* A pc's frames, innermost first: the (possibly inlined) function containing it, then the
 * functions it was inlined into, each positioned at the inlined call. At least one frame. */
typedef struct {
    uint64_t pc;
    bool return_address;
    ms_frame *frames;
    size_t nframes;
    uint64_t entry; /* the start of the (not inlined) function holding pc (DWARF, else its symbol), 0 unknown */
} ms_sym;

typedef struct ms_symbolizer ms_symbolizer;

/* Report every module of raw (path, load bias) to a fresh libdw session. Modules whose file
 * cannot be opened are skipped and noted in *note_out (malloc'd text or NULL).
 * Returns 0, or -1 with err set. */
int ms_symbolizer_new(const ms_raw *raw, ms_symbolizer **out, char **note_out, char *err, size_t errlen);
void ms_symbolizer_free(ms_symbolizer *s);

/* Frames of pc (a return address is looked up at pc - 1, so the call's line is found).
 * Results are cached per pc. Returns NULL only when out of memory. */
const ms_sym *ms_symbolize(ms_symbolizer *s, uint64_t pc, bool return_address);

/* The addresses in [lo, hi) where a row of the line table (a source position) starts, in
 * address order, up to cap of them into out (rows of line 0 left out): with ms_symbolize, the
 * source positions of a stretch of code. Returns how many. */
size_t ms_symbolize_rows(ms_symbolizer *s, uint64_t lo, uint64_t hi, uint64_t *out, size_t cap);

/* The compiler that made the code at pc: its unit's DW_AT_producer ("GNU C17 12.2.0 -O2 ...",
 * "Debian clang version 14.0.6"), NULL unknown. Lives as long as s. */
const char *ms_symbolize_producer(ms_symbolizer *s, uint64_t pc);

/* DWARF facts about the global variable at runtime address addr: its source name, the
 * function owning it if it is a function-local static (else NULL), its declaration file and
 * line (NULL/0 if unknown). Returns 0 if the variable was found, -1 if not. */
int ms_symbolize_global(ms_symbolizer *s, uint64_t addr, const char **name, const char **scope_func,
                        const char **decl_file, int *decl_line);

/* The global variable at runtime address addr (DWARF): in *row the bytes of one row of an
 * array of two or more static dimensions (its innermost dimension times the element's
 * size), 0 for any other variable. Returns 0, or -1 if the variable is unknown. */
int ms_symbolize_global_row(ms_symbolizer *s, uint64_t addr, uint64_t *row);

/* The global variable at runtime address addr (DWARF): in *unit the name of the compilation
 * unit that defines it (DW_AT_name, NULL unknown; a header's static table has one per unit
 * that includes it). Returns 0, or -1 if the variable is unknown. */
int ms_symbolize_global_unit(ms_symbolizer *s, uint64_t addr, const char **unit);

/* The same for the thread-local variable at offset in the TLS block of raw module index
 * module (DWARF: a constant then DW_OP_form_tls_address or DW_OP_GNU_push_tls_address). */
int ms_symbolize_tls(ms_symbolizer *s, uint32_t module, uint64_t offset, const char **name, const char **scope_func,
                     const char **decl_file, int *decl_line);

/* The run's note on the libraries whose code was named so far from their symbol tables (no
 * DWARF): which names they lack and why, one line; NULL if none (or out of memory). */
char *ms_symbolizer_library_note(const ms_symbolizer *s);

/* A symbol name as people write it: C++ names demangled ("std::runtime_error::runtime_error",
 * "typeinfo name for std::exception"), without parameter lists; others unchanged. The result
 * lives as long as s. */
const char *ms_symbolizer_readable(ms_symbolizer *s, const char *name);

/* One member of a structure (ms_symbolize_struct): its name, byte offset and size. */
typedef struct {
    const char *name;
    uint64_t offset, size;
} ms_member;

/* The layout of the structure (or class, or a typedef of one) named type in the DWARF of raw's
 * modules (the first definition found, the program's first): up to cap members into out, in
 * declaration order, and the structure's size into *size. Returns the number of members, or -1
 * if there is no such structure. Names live as long as s. */
int ms_symbolize_struct(ms_symbolizer *s, const char *type, ms_member *out, size_t cap, uint64_t *size);

#endif
