/* CSV export: one row per (code segment, data bin) cell of the matrix, with a header row
 * naming every column (RFC 4180 quoting), for spreadsheets and scripts. */
#include <string.h>

#include "export_fields.h"
#include "report.h"

/* A field, quoted when it holds a comma, a quote or a line break ("" for a NULL string). */
static void put_text(FILE *out, const char *s)
{
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int ms_export_csv(FILE *out, const ms_model *m)
{
    ms_export_field fields[MS_EXPORT_MAX_FIELDS];
    size_t nfields = ms_export_fields(m->config.nlevels, m->nprocs > 1, fields);
    fputs("code,data,file,line", out);
    for (size_t f = 0; f < nfields; f++) fprintf(out, ",%s", fields[f].csv);
    fputc('\n', out);
    for (size_t i = 0; i < m->ncells; i++) {
        const ms_cell *cell = &m->cells[i];
        const ms_code_bin *code = cell->code < m->ncode ? &m->code[cell->code] : NULL;
        const ms_data_bin *data = cell->data < m->ndata ? &m->data[cell->data] : NULL;
        put_text(out, code ? code->name : NULL);
        fputc(',', out);
        put_text(out, data ? data->name : NULL);
        fputc(',', out);
        put_text(out, code ? code->file : NULL);
        fprintf(out, ",%d", code ? code->line : 0);
        for (size_t f = 0; f < nfields; f++)
            fprintf(out, ",%llu", (unsigned long long)ms_export_value(&fields[f], &cell->c));
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}
