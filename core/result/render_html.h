/* Private to the html renderer of core/result: its assets and helpers
 * shared by the page builder and the charts. */
#ifndef PP_CORE_RESULT_RENDER_HTML_H
#define PP_CORE_RESULT_RENDER_HTML_H

#include <stdio.h>
#include <jansson.h>

#include <perfpipe/error.h>

extern const char pp_html_css[];
extern const char pp_html_js[];
extern const char pp_html_js_head[];

/* The charts of a stage drawn as inline <svg class="chart"> elements
 * (counters: one line chart per footprint series with its trend line and
 * the leak verdict). Writes nothing for a stage without chartable data.
 * PP_OK or PP_ENOMEM. */
int pp_html_stage_charts(const json_t *st, FILE *out, pp_error *err);
/* The GC pause chart of a stage with a per-GC table (render_pauses.c); nothing otherwise. */
int pp_html_stage_pauses(const json_t *st, FILE *out, pp_error *err);

/* render_html_answer.c: the answer section (each stage's headline, the
 * first candidate card), one candidate card, and a table's rows as cards. */
void pp_html_answer(const json_t *doc, FILE *out);
void pp_html_card(const json_t *tj, const json_t *row, size_t rank, FILE *out);
void pp_html_cards(const json_t *tj, FILE *out);

#endif
