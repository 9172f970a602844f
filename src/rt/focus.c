/* `memspy run --focus NAME...` (MEMSPY_FOCUS=NAME,NAME...): only the named functions and
 * loops, and whatever they call while they run, are simulated; every other reference is
 * dropped before the simulator (its blocks are still counted), so a long program's bottleneck
 * gets full detail in the time of a capture run plus the focus's simulation.
 *
 * A function is named by its symbol (C), its unmangled identifier (C++: `_Z6gatherPKlll` is
 * `gather`; a qualified `ns::f` is matched by its last component) or a gcc clone of it
 * (`gather.constprop.0`, `main._omp_fn.0`: the name before the first dot). Each thread's
 * shadow stack marks a frame in focus when its function is named or its caller was in focus
 * at the call (frame_push); records are kept when the innermost frame is (ms_focus_skips).
 *
 * A loop (format/focus_spec.h: FUNC:loop@A-B or FILE:A-B) is matched by its lines (those of
 * its blocks and its nested loops' blocks, as the analysis computes them) and, in the first
 * form, by the function holding its header; the file of the second form is not known here
 * (the run's check of the names, analysis/focus_names.c, refuses a name that would match
 * loops of other files). A loop is in focus when it or an enclosing loop is named. No loop
 * event is needed: every block word names the block's innermost loop, so the drain (plugin.c)
 * switches the innermost frame's focus at each block word, and a callee's frame inherits its
 * caller's focus at the call (ms_blocks_in_focus, blocks.c).
 *
 * The cache state at each entry (docs/mtool.md, "Focus"): the simulated caches see the focus's
 * references only, so the focus finds the lines it left at its last exit ("warm" by its own
 * earlier executions); the interference of the rest of the program is not simulated and
 * its misses are a lower bound of a full run's. */
#include "rt.h"
#include "../format/focus_spec.h"

#define MAX_NAMES 32
#define MAX_RANGES 256

int ms_focus_active, ms_focus_loops;
static const char *names[MAX_NAMES];
static uint32_t nnames, matched[MAX_NAMES];
/* From the arena when there is a focus (the runtime's static data, and with it the program's
 * layout, stays as it was without): each name's parsed form and the function it gives (a
 * loop's: NULL if none), NUL-terminated; the names entry of each range. */
static ms_focus_spec *specs;
static const char **funcs;
static uint8_t *range_name;
static struct {
    uintptr_t lo, hi;
} ranges[MAX_RANGES];
static uint32_t nranges;
static uint64_t skipped;

void ms_focus_init(const char *spec)
{
    if (!spec || !*spec) return;
    char *copy = ms_arena_strdup(spec);
    specs = ms_arena_alloc(MAX_NAMES * sizeof *specs);
    funcs = ms_arena_alloc(MAX_NAMES * sizeof *funcs);
    range_name = ms_arena_alloc(MAX_RANGES);
    if (!copy || !specs || !funcs || !range_name) return;
    for (char *p = copy; *p && nnames < MAX_NAMES;) {
        char *start = p;
        while (*p && *p != ',') p++;
        if (*p) *p++ = '\0';
        if (!*start) continue;
        ms_focus_spec *sp = &specs[nnames];
        if (ms_focus_spec_parse(start, ms_strlen(start), sp) < 0) continue; /* the CLI refuses it */
        funcs[nnames] = sp->func ? ms_arena_strndup(sp->func, sp->func_len) : NULL;
        if (sp->func && !funcs[nnames]) continue;
        ms_focus_loops |= sp->kind == MS_FOCUS_LOOP;
        names[nnames++] = start;
    }
    ms_focus_active = nnames > 0;
}

/* The identifier of an Itanium-mangled name's last component ("_Z6gatherPKlll" -> "gather",
 * "_ZN2ns5Kern3runEv" -> "run"), in *len; NULL if sym is not such a name. */
static const char *mangled_identifier(const char *sym, size_t *len)
{
    if (sym[0] != '_' || sym[1] != 'Z') return NULL;
    const char *p = sym + 2, *last = NULL;
    if (*p == 'L') p++; /* internal linkage: a static function ("_ZL5visiti") */
    int nested = *p == 'N';
    if (nested) p++;
    while (*p == 'K' || *p == 'V' || *p == 'r') p++; /* cv-qualifiers of a member function */
    for (;;) {
        size_t n = 0;
        if (*p < '0' || *p > '9') break;
        while (*p >= '0' && *p <= '9') n = n * 10 + (size_t)(*p++ - '0');
        for (size_t i = 0; i < n; i++)
            if (!p[i]) return NULL;
        last = p;
        *len = n;
        p += n;
        if (!nested) break;
    }
    return last;
}

/* Whether symbol sym is the function `want`: the same name, the same identifier once
 * unmangled, or a gcc clone of it ("want.part.0"). */
static int names_function(const char *sym, const char *want)
{
    size_t wl = ms_strlen(want), sl = 0;
    const char *colons = want; /* "ns::f" is matched by "f" */
    for (const char *q = want; *q; q++)
        if (q[0] == ':' && q[1] == ':') colons = q + 2;
    if (colons != want) return names_function(sym, colons);
    const char *id = mangled_identifier(sym, &sl);
    if (id) return sl == wl && !ms_strncmp(id, want, wl);
    return !ms_strncmp(sym, want, wl) && (sym[wl] == '\0' || sym[wl] == '.');
}

void ms_focus_consider(const char *sym, uintptr_t addr, uint64_t size)
{
    if (!ms_focus_active || !sym) return;
    for (uint32_t i = 0; i < nnames; i++) {
        if (!funcs[i] || !names_function(sym, funcs[i])) continue;
        if (specs[i].kind == MS_FOCUS_FUNCTION) matched[i]++;
        if (nranges < MAX_RANGES) {
            ranges[nranges].lo = addr;
            range_name[nranges] = (uint8_t)i;
            ranges[nranges++].hi = addr + size;
        }
    }
}

/* The tab-separated field k of rec into buf (size bytes, cut); 0, or -1 if rec has fewer. */
static int record_field(const char *rec, int k, char *buf, size_t size)
{
    for (; k > 0; k--) {
        while (*rec && *rec != '\t') rec++;
        if (!*rec++) return -1;
    }
    size_t n = 0;
    while (rec[n] && rec[n] != '\t' && n + 1 < size) {
        buf[n] = rec[n];
        n++;
    }
    buf[n] = 0;
    return 0;
}

/* Whether focus name want ("PARENT: omp KIND @LINE", as code bins name an OpenMP region)
 * names the region of record rec (msplug_abi.h: "omp", FILE, PARENT, KIND, LINE, ...). */
static int names_region(const char *want, const char *rec)
{
    static const char tag[] = ": omp ";
    char parent[256], kind[64], line[16];
    const char *t = want;
    while (*t && ms_strncmp(t, tag, sizeof tag - 1)) t++;
    if (!*t || (size_t)(t - want) >= sizeof parent || record_field(rec, 2, parent, sizeof parent) < 0 ||
        record_field(rec, 3, kind, sizeof kind) < 0 || record_field(rec, 4, line, sizeof line) < 0)
        return 0;
    char wparent[256];
    ms_memcpy(wparent, want, (size_t)(t - want));
    wparent[t - want] = 0;
    const char *wkind = t + sizeof tag - 1, *at = wkind;
    while (*at && *at != '@') at++;
    size_t klen = ms_strlen(kind), llen = ms_strlen(line);
    return *at && (size_t)(at - wkind) == klen + 1 && !ms_strncmp(wkind, kind, klen) && wkind[klen] == ' ' &&
           ms_strlen(at + 1) == llen && !ms_strncmp(at + 1, line, llen) && names_function(parent, wparent);
}

void ms_focus_omp_region(const char *rec, uintptr_t pc)
{
    uintptr_t lo, hi;
    if (!ms_focus_active || ms_function_range(pc, &lo, &hi) < 0) return;
    for (uint32_t i = 0; i < nnames; i++) {
        if (!funcs[i] || specs[i].kind != MS_FOCUS_FUNCTION || !names_region(funcs[i], rec)) continue;
        int known = 0;
        for (uint32_t r = 0; r < nranges && !known; r++) known = range_name[r] == i && ranges[r].lo == lo;
        if (known || nranges >= MAX_RANGES) continue;
        matched[i]++;
        ranges[nranges].lo = lo;
        range_name[nranges] = (uint8_t)i;
        ranges[nranges++].hi = hi;
    }
}

/* Whether pc lies in a function of name i. */
static int in_function_of(uint32_t i, uintptr_t pc)
{
    for (uint32_t r = 0; r < nranges; r++)
        if (range_name[r] == i && pc - ranges[r].lo < ranges[r].hi - ranges[r].lo) return 1;
    return 0;
}

int ms_focus_contains(uintptr_t pc)
{
    for (uint32_t i = 0; i < nnames; i++)
        if (specs[i].kind == MS_FOCUS_FUNCTION && in_function_of(i, pc)) return 1;
    return 0;
}

int ms_focus_names_loop(uintptr_t header_pc, uint32_t line, uint32_t end)
{
    int named = 0;
    for (uint32_t i = 0; i < nnames; i++) {
        const ms_focus_spec *sp = &specs[i];
        if (sp->kind != MS_FOCUS_LOOP || !ms_focus_spec_lines_match(sp, line, end)) continue;
        if (funcs[i] && !in_function_of(i, header_pc - 1)) continue;
        matched[i]++;
        named = 1;
    }
    return named;
}

void ms_focus_count_skipped(uint64_t n)
{
    if (n) __atomic_fetch_add(&skipped, n, __ATOMIC_RELAXED);
}

/* Append s at *p without passing end - 1. */
static void add(char **p, char *end, const char *s)
{
    size_t n = ms_strlen(s);
    if (n > (size_t)(end - *p) - 1) n = (size_t)(end - *p) - 1;
    ms_memcpy(*p, s, n);
    *p += n;
    **p = '\0';
}

const char *ms_focus_note(void)
{
    static char note[1024];
    if (!ms_focus_active) return NULL;
    ms_blocks_focus_resolve(); /* every registered loop matched against the names */
    char *p = note, *end = note + sizeof note, num[24];
    add(&p, end, "focus: only ");
    for (uint32_t i = 0; i < nnames; i++) {
        if (i) add(&p, end, ", ");
        add(&p, end, names[i]);
    }
    add(&p, end, " (and what they call) simulated; about ");
    *ms_utoa(num, __atomic_load_n(&skipped, __ATOMIC_RELAXED)) = '\0';
    add(&p, end, num);
    add(&p, end, " references outside were not, nor their interference with the focus (docs/mtool.md, Focus)");
    for (uint32_t i = 0; i < nnames; i++)
        if (!matched[i]) {
            add(&p, end, specs[i].kind == MS_FOCUS_LOOP ? "; no loop named " : "; no function named ");
            add(&p, end, names[i]);
        }
    return note;
}
