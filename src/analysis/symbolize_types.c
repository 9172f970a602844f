/* Types from DWARF: the row length of a variable's static array and the members of a named
 * structure. */
#include "symbolize_internal.h"

#include <dwarf.h>
#include <string.h>

/* ---- rows ---- */

/* The type of die with typedefs and qualifiers peeled off; false if it has none. */
static bool peeled_type(Dwarf_Die *die, Dwarf_Die *out)
{
    Dwarf_Attribute attr;
    if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, out)) return false;
    for (int i = 0; i < 16; i++) {
        int tag = dwarf_tag(out);
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
            tag != DW_TAG_restrict_type)
            return true;
        if (!dwarf_attr_integrate(out, DW_AT_type, &attr) || !dwarf_formref_die(&attr, out)) return false;
    }
    return false;
}

/* A variable of an array type with two or more static dimensions: the bytes of one row (its
 * innermost dimension's count times the element's size); else 0. */
uint64_t symbolize_row_bytes(Dwarf_Die *var)
{
    Dwarf_Die type, sub, elem;
    if (!peeled_type(var, &type) || dwarf_tag(&type) != DW_TAG_array_type || dwarf_child(&type, &sub) != 0) return 0;
    int dims = 0;
    Dwarf_Word count = 0;
    do {
        if (dwarf_tag(&sub) != DW_TAG_subrange_type) continue;
        Dwarf_Attribute a;
        Dwarf_Word upper;
        if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &count) == 0)
            dims++;
        else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &upper) == 0)
            count = upper + 1, dims++;
        else
            return 0; /* a dimension without a static size */
    } while (dwarf_siblingof(&sub, &sub) == 0);
    Dwarf_Word esize;
    if (dims < 2 || !count || !peeled_type(&type, &elem) || dwarf_aggregate_size(&elem, &esize) != 0) return 0;
    return (uint64_t)count * esize;
}

/* ---- structure layouts ---- */

/* The structure die of d: d itself, or what a typedef (or cv-qualifier) of it names. */
static int struct_die(Dwarf_Die *d, Dwarf_Die *out)
{
    Dwarf_Die cur = *d;
    for (int hops = 0; hops < 8; hops++) {
        int tag = dwarf_tag(&cur);
        if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) {
            Dwarf_Attribute attr;
            if (dwarf_attr(&cur, DW_AT_declaration, &attr)) return -1; /* an incomplete type */
            *out = cur;
            return 0;
        }
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type) return -1;
        Dwarf_Attribute attr;
        if (!dwarf_formref_die(dwarf_attr(&cur, DW_AT_type, &attr), &cur)) return -1;
    }
    return -1;
}

/* The members of structure die st into out (at most cap); their number. */
static int struct_members(Dwarf_Die *st, ms_member *out, size_t cap)
{
    Dwarf_Die m;
    size_t n = 0;
    if (dwarf_child(st, &m) != 0) return 0;
    do {
        Dwarf_Attribute attr;
        Dwarf_Word off;
        Dwarf_Die type;
        if (dwarf_tag(&m) != DW_TAG_member || n == cap) continue;
        if (dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &attr), &off) != 0) continue;
        out[n].name = symbolize_die_name(&m);
        out[n].offset = off;
        out[n].size = 0;
        if (dwarf_formref_die(dwarf_attr_integrate(&m, DW_AT_type, &attr), &type)) {
            Dwarf_Word sz;
            if (dwarf_aggregate_size(&type, &sz) == 0) out[n].size = sz;
        }
        if (out[n].name && out[n].size) n++;
    } while (dwarf_siblingof(&m, &m) == 0);
    return (int)n;
}

int ms_symbolize_struct(ms_symbolizer *s, const char *type, ms_member *out, size_t cap, uint64_t *size)
{
    for (size_t i = 0; i < s->nraw_mods; i++) {
        Dwarf_Addr bias;
        Dwarf *dw = s->raw_mods[i] ? dwfl_module_getdwarf(s->raw_mods[i], &bias) : NULL;
        Dwarf_Off off = 0, next;
        size_t header;
        while (dw && dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
            Dwarf_Die cu, d, st;
            if (dwarf_offdie(dw, off + header, &cu) && dwarf_child(&cu, &d) == 0) do {
                    const char *name = dwarf_diename(&d);
                    Dwarf_Word sz;
                    if (!name || strcmp(name, type) != 0 || struct_die(&d, &st) != 0) continue;
                    Dwarf_Attribute attr;
                    if (dwarf_formudata(dwarf_attr(&st, DW_AT_byte_size, &attr), &sz) != 0 || !sz) continue;
                    *size = sz;
                    return struct_members(&st, out, cap);
                } while (dwarf_siblingof(&d, &d) == 0);
            off = next;
        }
    }
    return -1;
}
