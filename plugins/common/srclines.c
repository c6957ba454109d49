/* The `source` column of frame tables: see srclines.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/records.h>

#include "srclines.h"

pp_pc_srclines *
pp_pc_srclines_new(const pp_host_api *h, const pp_trace_source *trace, uint32_t nstacks)
{
    if (!trace || !(h->host_features & PP_HOST_SYM_SOURCE))
        return NULL;
    pp_pc_srclines *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->host = h;
    s->trace = trace;
    s->nstacks = nstacks;
    pp_pc_agg_init(&s->lines, 1);
    s->stack_line = calloc(nstacks ? nstacks : 1, sizeof *s->stack_line);
    s->noted = calloc(nstacks ? nstacks : 1, 1);
    if (!s->stack_line || !s->noted) {
        pp_pc_srclines_free(s);
        return NULL;
    }
    return s;
}

void
pp_pc_srclines_free(pp_pc_srclines *s)
{
    if (!s)
        return;
    pp_pc_agg_free(&s->lines);
    free(s->stack_line);
    free(s->noted);
    free(s->ips);
    free(s);
}

uint64_t *
pp_pc_srclines_ips(pp_pc_srclines *s, uint32_t depth)
{
    if (depth > s->ips_cap) {
        uint64_t *g = realloc(s->ips, (size_t)depth * sizeof *g);
        if (!g)
            return NULL;
        s->ips = g;
        s->ips_cap = depth;
    }
    return s->ips;
}

int
pp_pc_srclines_note(pp_pc_srclines *s, uint32_t stack, uint32_t row, uint64_t ip, uint32_t at,
                    int app)
{
    static const int64_t zero[1] = { 0 };
    uint32_t flags = at > 0 ? PP_SYM_CALLER : 0;
    if (stack >= s->nstacks || s->noted[stack])
        return PP_OK;
    s->noted[stack] = 1;
    const char *line = s->host->trace_symbolize(s->trace, ip, PP_SYM_SOURCE | flags);
    if (!line || !line[0]) {
        if (app) {
            const char *why = s->host->trace_symbolize(s->trace, ip, PP_SYM_SOURCE_WHY | flags);
            char *slot = why && !strncmp(why, "no IL-to-native map", 19) ? s->why_map : s->why_pdb;
            size_t cap = slot == s->why_map ? sizeof s->why_map : sizeof s->why_pdb;
            if (why && why[0] && !slot[0])
                snprintf(slot, cap, "%s", why);
            s->app_frames++;
        }
        return PP_OK;
    }
    s->app_frames += app;
    s->app_lined += app;
    char key[1200];
    int n = snprintf(key, sizeof key, "%u\t%s", row, line);
    if (n < 0 || (size_t)n >= sizeof key)
        return PP_OK;
    uint32_t r;
    int rc = pp_pc_agg_add(&s->lines, key, (size_t)n, zero, &r);
    if (rc == PP_OK)
        s->stack_line[stack] = r + 1;
    return rc;
}

int
pp_pc_srclines_noted(const pp_pc_srclines *s, uint32_t stack)
{
    return stack < s->nstacks && s->noted[stack];
}

void
pp_pc_srclines_add(pp_pc_srclines *s, uint32_t stack, int64_t weight)
{
    if (stack < s->nstacks && s->stack_line[stack]) {
        int64_t *v = pp_pc_agg_vals_mut(&s->lines, s->stack_line[stack] - 1);
        v[0] = pp_i64_add_sat(v[0], weight);
    }
}

const char **
pp_pc_srclines_best(const pp_pc_srclines *s, uint32_t nrows)
{
    const char **best = calloc(nrows ? nrows : 1, sizeof *best);
    int64_t *most = calloc(nrows ? nrows : 1, sizeof *most);
    if (!best || !most) {
        free(best);
        free(most);
        return NULL;
    }
    for (uint32_t i = 0; i < pp_pc_agg_count(&s->lines); i++) {
        const char *key = pp_pc_agg_key(&s->lines, i);
        char *tab;
        unsigned long row = strtoul(key, &tab, 10);
        int64_t v = pp_pc_agg_vals(&s->lines, i)[0];
        /* Ties keep the first line met, so the choice does not depend on order of rank. */
        if (*tab == '\t' && row < nrows && (!best[row] || v > most[row])) {
            best[row] = tab + 1;
            most[row] = v;
        }
    }
    free(most);
    return best;
}

void
pp_pc_srclines_findings(const pp_pc_srclines *s, const char *stage, pp_ctx *ctx)
{
    char code[64];
    if (s->why_map[0]) {
        snprintf(code, sizeof code, "%s.source_no_map", stage);
        s->host->finding(ctx, PP_SEVERITY_INFO, code,
                         "%u of %u application frames have no source line: %s",
                         s->app_frames - s->app_lined, s->app_frames,
                         s->why_map + strlen("no IL-to-native map for the method: "));
    }
    /* Information, even for a refused PDB: the figures stand, only the
     * source column is empty; a warning would become the stage's headline
     * whenever the BEFORE capture of a fix is read after the rebuild. */
    if (s->why_pdb[0]) {
        snprintf(code, sizeof code, "%s.source_no_pdb", stage);
        s->host->finding(ctx, PP_SEVERITY_INFO, code,
                         "application frames without a source line: %s", s->why_pdb);
    }
}
