/* The pipeline model: lookups, names, release. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"

const char *const pp_pipeline_kind_names[] = { "nettrace", "gcdump", "counters", "spans", "bench", NULL };
const char *const pp_pipeline_format_names[] = { "table", "json", "markdown", "csv",
                                                 "folded", "speedscope", "svg", "pprof", NULL };

/* The bit of each name above, in the same order. */
static const uint32_t kind_bits[] = { PP_KIND_NETTRACE, PP_KIND_GCDUMP, PP_KIND_COUNTERS,
                                      PP_KIND_SPANS, PP_KIND_BENCH };

uint32_t
pp_pipeline_kind_bit(const char *kind)
{
    for (size_t k = 0; pp_pipeline_kind_names[k] != NULL; k++)
        if (strcmp(kind, pp_pipeline_kind_names[k]) == 0)
            return kind_bits[k];
    return 0;
}

const char *
pp_pipeline_kind_name(uint32_t bits)
{
    for (size_t k = 0; pp_pipeline_kind_names[k] != NULL; k++)
        if (bits & kind_bits[k])
            return pp_pipeline_kind_names[k];
    return NULL;
}

void
pp_pipeline_kind_list(uint32_t bits, const char *sep, char *buf, size_t size)
{
    size_t used = 0;

    if (size == 0)
        return;
    buf[0] = '\0';
    for (size_t k = 0; pp_pipeline_kind_names[k] != NULL && used < size; k++) {
        if (!(bits & kind_bits[k]))
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? sep : "",
                         pp_pipeline_kind_names[k]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

int
pp_pipeline_format_known(const char *format)
{
    for (size_t k = 0; pp_pipeline_format_names[k] != NULL; k++)
        if (strcmp(format, pp_pipeline_format_names[k]) == 0)
            return 1;
    return 0;
}

const char *
pp_pipeline_knob_value(const pp_pipeline *p, const char *key)
{
    for (uint32_t k = 0; k < p->knob_count; k++)
        if (strcmp(p->knobs[k].key, key) == 0)
            return p->knobs[k].value;
    return NULL;
}

const pp_pipeline_input *
pp_pipeline_find_input(const pp_pipeline *p, const char *name)
{
    for (uint32_t k = 0; k < p->input_count; k++)
        if (strcmp(p->inputs[k].name, name) == 0)
            return &p->inputs[k];
    return NULL;
}

static void
option_free(pp_pipeline_option *o)
{
    free(o->name);
    free(o->value);
    for (uint32_t k = 0; k < o->item_count; k++)
        free(o->items[k]);
    free(o->items);
    free(o->item_pos);
}

void
pp_pipeline_free(pp_pipeline *p)
{
    if (p == NULL)
        return;
    for (uint32_t k = 0; k < p->knob_count; k++) {
        free(p->knobs[k].key);
        free(p->knobs[k].value);
    }
    free(p->knobs);
    for (uint32_t k = 0; k < p->input_count; k++) {
        free(p->inputs[k].name);
        free(p->inputs[k].kind);
        free(p->inputs[k].path);
    }
    free(p->inputs);
    for (uint32_t k = 0; k < p->stage_count; k++) {
        pp_pipeline_stage *s = &p->stages[k];
        free(s->id);
        free(s->analyzer_name);
        for (uint32_t j = 0; j < s->input_count; j++)
            free(s->inputs[j].name);
        free(s->inputs);
        for (uint32_t j = 0; j < s->option_count; j++)
            option_free(&s->options[j]);
        free(s->options);
        pp_options_free(s->opts);
        free(s->input_index);
    }
    free(p->stages);
    for (uint32_t k = 0; k < p->output_count; k++) {
        free(p->outputs[k].format);
        free(p->outputs[k].path);
    }
    free(p->outputs);
    free(p->file);
    free(p->name);
    free(p->description);
    free(p->date);
    free(p);
}
