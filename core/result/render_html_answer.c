/* The answer of the html report, first on the page (after a compare's
 * verdict banner): each stage's headline (render_answer.c chooses it) and
 * the first candidate card with its fix; the candidates themselves as
 * cards in their stage. Evidence tables follow, caveats and inputs last. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"
#include "result/render_html.h"

static const char *
str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void
card_field(FILE *out, const char *label, const char *text)
{
    if (text == NULL || !*text)
        return;
    fprintf(out, "<dt>%s</dt><dd data-field=\"%s\">", label, label);
    pp_html_text(out, text);
    fputs("</dd>", out);
}

/* One candidate as a card: target and cost as its title, then the fix
 * shape, where it lands, how to verify it and the evidence. */
void
pp_html_card(const json_t *tj, const json_t *row, size_t rank, FILE *out)
{
    static const char *const rest[] = { "lands_why", "verify", "evidence", "axis", "rules", NULL };
    const char *lands = pp_render_row_str(tj, row, "lands");
    const char *site = pp_render_row_str(tj, row, "call_site");
    const char *mod = pp_render_row_str(tj, row, "module");
    char cost[256];

    pp_render_card_cost(cost, sizeof cost, tj, row);
    fprintf(out, "<div class=\"cand card\" data-card=\"%zu\"><h3>#%zu <span class=\"code\">", rank,
            rank);
    pp_html_text(out, pp_render_row_str(tj, row, "target"));
    fputs("</span> <small class=\"sub\">", out);
    pp_html_text(out, cost);
    fputs("</small></h3><dl class=\"kv\">", out);
    card_field(out, "fix", pp_render_row_str(tj, row, "fix"));
    if (lands != NULL || site != NULL) {
        fputs("<dt>lands</dt><dd data-field=\"lands\">", out);
        pp_html_text(out, lands ? lands : "");
        if (site != NULL) {
            fputs(": <span class=\"code\">", out);
            pp_html_text(out, site);
            fputs("</span>", out);
        }
        if (mod != NULL) {
            fputs(" (module ", out);
            pp_html_text(out, mod);
            fputc(')', out);
        }
        fputs("</dd>", out);
    }
    for (size_t i = 0; rest[i] != NULL; i++)
        card_field(out, rest[i], pp_render_row_str(tj, row, rest[i]));
    fputs("</dl></div>\n", out);
}

void
pp_html_answer(const json_t *doc, FILE *out)
{
    const json_t *st;
    size_t si;

    fputs("<section id=\"answer\"><h2>Answer</h2>\n", out);
    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        const char *sev;
        char *h = pp_render_headline(st, &sev);
        const json_t *cards = pp_render_cards_table(st);
        const json_t *first = json_array_get(json_object_get(cards, "rows"), 0);

        if (h == NULL && first == NULL)
            continue;
        fputs("<div class=\"card answer headline sev-", out);
        pp_html_text(out, sev);
        fputs("\" data-answer=\"", out);
        pp_html_text(out, str(st, "id"));
        fputs("\"><b>", out);
        pp_html_text(out, str(st, "id"));
        fputs("</b> &middot; ", out);
        pp_html_text(out, h ? h : "");
        fputs("</div>\n", out);
        free(h);
        if (first != NULL)
            pp_html_card(cards, first, 1, out);
    }
    fputs("</section>\n", out);
}

void
pp_html_cards(const json_t *tj, FILE *out)
{
    const json_t *row;
    size_t r;

    json_array_foreach(json_object_get(tj, "rows"), r, row)
        pp_html_card(tj, row, r + 1, out);
}
