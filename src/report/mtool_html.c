/* MTOOL's HTML page (`memspy mtool --html FILE`): the paper's Figure 4, a histogram of the
 * mobjects by memory overhead, each bar split into the estimated (ideal-memory) time and the
 * overhead; a bar links to the mobject's source with its lines highlighted. Self-contained:
 * no script, the source excerpts are embedded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "report.h"

#define CONTEXT_LINES 3

/* Lines [lo, hi] of file (1-based) with [mark_lo, mark_hi] highlighted; nothing if unreadable. */
static void put_source(FILE *out, const char *file, int mark_lo, int mark_hi)
{
    FILE *f = file ? fopen(file, "r") : NULL;
    if (!f) {
        fputs("<p class=\"nosrc\">source not available</p>\n", out);
        return;
    }
    int lo = mark_lo - CONTEXT_LINES, hi = mark_hi + CONTEXT_LINES, n = 0;
    char line[4096];
    fputs("<pre>", out);
    while (fgets(line, sizeof line, f) && n < hi) {
        n++;
        if (n < lo) continue;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n') line[--len] = '\0';
        fprintf(out, "<span class=\"%s\">%5d  ", n >= mark_lo && n <= mark_hi ? "hot" : "ln", n);
        ms_html_put_escaped(out, line);
        fputs("</span>\n", out);
    }
    fputs("</pre>\n", out);
    fclose(f);
}

int ms_report_mtool_html(FILE *out, const ms_mtool_result *r, const char *title)
{
    double scale = 0;
    for (size_t i = 0; i < r->nmobjects; i++) {
        const ms_mobject *m = &r->mobjects[i];
        double w = m->measured_s > m->estimated_s ? m->measured_s : m->estimated_s;
        if (w > scale) scale = w;
    }
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>memspy mtool: ", out);
    ms_html_put_escaped(out, title);
    fputs("</title>\n<style>\n"
          "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}\n"
          "td{padding:2px 6px;vertical-align:middle}.bar{display:flex;width:420px;height:14px}\n"
          ".est{background:#4a78b5}.ovh{background:#d0453a}.neg{background:#9bb7dc}\n"
          "pre{background:#f6f6f6;padding:6px}.hot{background:#ffd9d2;font-weight:bold}\n"
          "section{display:none}section:target{display:block}.untimable{color:#888}\n"
          "</style></head><body>\n<h1>MTOOL: ",
          out);
    ms_html_put_escaped(out, title);
    fprintf(out,
            "</h1>\n<p>CPU model %s, effective clock %.2f GHz. Predicted time (ideal memory) %.3f s, "
            "measured %.3f s, memory overhead %.3f s; system time %.3f s (apart). Measured %.1f%% of memory "
            "operations; unexplained overhead %.1f%%.%s</p>\n",
            r->cpu_model ? r->cpu_model : "?", r->clock_hz * 1e-9, r->predicted_s, r->measured_s, r->memory_overhead_s,
            r->system_s, 100.0 * r->covered_memops, 100.0 * r->unexplained,
            r->incomplete ? " <b>Incomplete run.</b>" : "");
    for (size_t i = 0; i < r->nchains; i++) {
        const ms_mtool_chain *c = &r->chains[i];
        double off;
        if (ms_mtool_chain_misfit(c, &off) && c->corrected)
            fprintf(out,
                    "<p>Corrected: loops' dependency chains take this core's %.1f cycles for a dependent %s (%s's "
                    "model: %.1f).</p>\n",
                    c->core_cycles, c->insn, r->cpu_model ? r->cpu_model : "?", c->model_cycles);
        else if (ms_mtool_chain_misfit(c, &off))
            fprintf(out,
                    "<p class=\"warn\"><b>The %s model does not fit this core:</b> a dependent %s takes %.1f cycles "
                    "in it and %.1f here (%+.0f%%): code bound by it is estimated %s.</p>\n",
                    r->cpu_model ? r->cpu_model : "?", c->insn, c->model_cycles, c->core_cycles, 100 * off,
                    off > 0 ? "too slow" : "too fast");
    }
    fputs("<p>Bars: <span style=\"color:#4a78b5\">&#9632;</span> estimated time, "
          "<span style=\"color:#d0453a\">&#9632;</span> memory overhead (measured beyond the estimate). "
          "Click a bar for its source.</p>\n<table id=\"histogram\">\n",
          out);
    for (size_t i = 0; i < r->nmobjects; i++) {
        const ms_mobject *m = &r->mobjects[i];
        double est = scale > 0 ? 100.0 * m->estimated_s / scale : 0;
        double ovh = scale > 0 && m->measured_s > m->estimated_s ? 100.0 * (m->measured_s - m->estimated_s) / scale : 0;
        fprintf(out, "<tr class=\"mobject%s\" data-kind=\"%s\"><td>%s</td><td><a href=\"#src-%zu\">",
                m->timable ? "" : " untimable", m->kind == MS_MOBJ_LOOP ? "loop" : "procedure",
                m->kind == MS_MOBJ_LOOP ? "loop" : "procedure", i);
        ms_html_put_escaped(out, m->function);
        fprintf(out, " (%d-%d)</a></td><td><a class=\"bar\" href=\"#src-%zu\">", m->line, m->end_line, i);
        fprintf(out, "<span class=\"est\" style=\"width:%.2f%%\"></span>", est);
        fprintf(out, "<span class=\"ovh\" style=\"width:%.2f%%\"></span></a></td>", ovh);
        if (m->timable)
            fprintf(out, "<td>%.4f s</td><td>%.4f s</td><td class=\"overhead\">%+.0f%%</td></tr>\n", m->estimated_s,
                    m->measured_s, 100.0 * m->overhead);
        else
            fprintf(out, "<td>%.4f s</td><td>%.4f s</td><td class=\"overhead\">untimable</td></tr>\n", m->estimated_s,
                    m->measured_s);
    }
    fputs("</table>\n", out);
    for (size_t i = 0; i < r->nmobjects; i++) {
        const ms_mobject *m = &r->mobjects[i];
        fprintf(out, "<section id=\"src-%zu\"><h2>", i);
        ms_html_put_escaped(out, m->function);
        fputs(" &mdash; ", out);
        ms_html_put_escaped(out, m->file ? m->file : "??");
        fprintf(out, ":%d-%d</h2>\n", m->line, m->end_line);
        put_source(out, m->file, m->line, m->end_line);
        fputs("</section>\n", out);
    }
    fputs("</body></html>\n", out);
    return ferror(out) ? -1 : 0;
}
