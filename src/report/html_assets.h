/* The inline stylesheet and scripts of memspy's HTML pages (html_style.c, html_script.c). */
#ifndef MEMSPY_REPORT_HTML_ASSETS_H
#define MEMSPY_REPORT_HTML_ASSETS_H

extern const char ms_html_css[];       /* both pages */
extern const char ms_html_js_common[]; /* both pages, before the page's own script */
extern const char ms_html_js_report[]; /* the report of one run: reads #memspy-model, #memspy-sources */
extern const char ms_html_js_diff[];   /* the comparison page: reads #memspy-diff */

#endif
