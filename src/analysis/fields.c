/* Which fields of a structure a cell's code uses (fields.h). */
#include "fields.h"

#include <stdio.h>
#include <string.h>

#include "analyze.h"

#define MAX_MEMBERS 64

int ms_fields_touched(uint64_t bits, unsigned line, uint64_t phase, const ms_member *mem, int nmem, uint64_t elem,
                      char *out, size_t cap)
{
    out[0] = '\0';
    if (!elem || !line || line % elem != 0 || nmem <= 0) return 0;
    unsigned gran = line > 64 ? line / 64 : 1;
    unsigned char used[4096]; /* per element byte: referenced */
    if (elem > sizeof used) return 0;
    memset(used, 0, (size_t)elem);
    for (unsigned o = 0; o < line; o++) /* line offset o holds element byte (o - phase) mod elem */
        if (bits >> (o / gran) & 1) used[(o + line - phase % line) % elem] = 1;
    int touched[MAX_MEMBERS], n = 0;
    for (int i = 0; i < nmem && i < MAX_MEMBERS; i++) {
        int any = 0;
        for (uint64_t b = mem[i].offset; b < mem[i].offset + mem[i].size && b < elem; b++) any |= used[b];
        if (any) touched[n++] = i;
    }
    size_t len = 0;
    for (int k = 0; k < n; k++) {
        const char *sep = k == 0 ? "" : k == n - 1 ? " and " : ", ";
        int w = snprintf(out + len, cap - len, "%s%s", sep, mem[touched[k]].name);
        if (w < 0 || (size_t)w >= cap - len) { /* too long: what fits, then an ellipsis */
            if (cap > 4) strcpy(out + (len + 4 < cap ? len : cap - 4), "...");
            break;
        }
        len += (size_t)w;
    }
    return n;
}

/* The structure type named by a data bin "TYPE*.var" (TYPE no scalar) into type; 0, or -1. */
static int element_type(const char *name, char *type, size_t cap)
{
    const char *dot = strstr(name, "*.");
    if (!dot || dot == name || dot[-1] == '*' || strchr(name, '>') || ms_name_element_size(name)) return -1;
    static const char *const prefixes[] = { "const ", "volatile ", "struct ", "class " };
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
            size_t pl = strlen(prefixes[i]);
            if (strncmp(name, prefixes[i], pl) == 0) name += pl, again = 1;
        }
    }
    size_t n = (size_t)(dot - name);
    while (n && name[n - 1] == ' ') n--;
    if (!n || n >= cap) return -1;
    memcpy(type, name, n);
    type[n] = '\0';
    return 0;
}

void ms_analyze_fields(ms_model *m, const ms_raw_bin *bins, size_t nbins, ms_symbolizer *sym)
{
    if (!m->config.utilisation || !sym) return;
    unsigned line = m->config.level[0].line;
    for (size_t d = 0; d < m->ndata && d < nbins; d++) {
        const ms_raw_bin *b = &bins[d];
        char type[128];
        int wanted = 0;
        for (size_t i = 0; i < m->ncells && !wanted; i++) wanted = m->cells[i].data == d && m->cells[i].c.l1_ref_bits;
        if (!wanted || b->kind != MS_BIN_HEAP || !b->first_addr ||
            element_type(m->data[d].name, type, sizeof type) != 0)
            continue;
        ms_member mem[MAX_MEMBERS];
        uint64_t elem = 0;
        int nmem = ms_symbolize_struct(sym, type, mem, MAX_MEMBERS, &elem);
        if (nmem <= 0) continue;
        for (size_t i = 0; i < m->ncells; i++) {
            ms_cell *c = &m->cells[i];
            if (c->data == d && c->c.l1_ref_bits &&
                ms_fields_touched(c->c.l1_ref_bits, line, b->first_addr % line, mem, nmem, elem, c->fields,
                                  sizeof c->fields) == nmem)
                snprintf(c->fields, sizeof c->fields, "%s", MS_FIELDS_ALL);
        }
    }
}
