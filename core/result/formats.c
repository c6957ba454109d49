/* The output format registry (formats.h). One row per format; render.c,
 * the pipeline's `outputs:` check and the CLI's usage, errors and
 * completion all read these rows, so a new format is one row here and its
 * renderer. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "result/formats.h"
#include "result/render_util.h"

/* tests/registry adds a dummy row here to prove the rows are the only list
 * (it compiles this file with -include tests/registry/extra.h). */
#ifndef PP_REGISTRY_EXTRA_FORMATS
#define PP_REGISTRY_EXTRA_FORMATS
#endif

static int
json_doc(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err)
{
    (void)o;
    return pp_render_json(doc, out, err);
}

static int
csv_doc(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err)
{
    (void)o;
    return pp_render_csv(doc, out, err);
}

static int
counters_svg(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err)
{
    /* The GC pause chart where the document has GCs, else the counters charts. */
    int rc = pp_render_pauses_svg(doc, out, err);

    (void)o;
    return rc != PP_ENOTFOUND ? rc : pp_render_counters_svg(doc, out, err);
}

const pp_output_format pp_output_formats[] = {
    { .name = "table",
      .kind = PP_FORMAT_DOCUMENT,
      .doc = pp_render_text_table,
      .summary = "aligned text in human units (the default)" },
    { .name = "json",
      .kind = PP_FORMAT_DOCUMENT,
      .doc = json_doc,
      .summary = "the result document (perfpipe-result/1), exact values" },
    { .name = "markdown",
      .kind = PP_FORMAT_DOCUMENT,
      .doc = pp_render_markdown,
      .summary = "GitHub pipe tables in human units" },
    { .name = "csv",
      .kind = PP_FORMAT_DOCUMENT,
      .doc = csv_doc,
      .one_table = pp_render_csv_one,
      .summary = "RFC 4180 blocks per table, raw values" },
    { .name = "html",
      .kind = PP_FORMAT_DOCUMENT,
      .doc = pp_render_html,
      .summary = "one self-contained page: findings, flame graphs, charts, tables" },
    { .name = "folded",
      .kind = PP_FORMAT_STACKS,
      .stacks = pp_render_folded,
      .summary = "`frame;frame;... weight` lines (flamegraph.pl, inferno)" },
    { .name = "speedscope",
      .kind = PP_FORMAT_STACKS,
      .stacks = pp_render_speedscope,
      .per_thread = 1,
      .summary = "speedscope's file format, one profile per thread" },
    { .name = "svg",
      .kind = PP_FORMAT_STACKS,
      .stacks = pp_render_svg,
      .no_stacks = counters_svg,
      .summary = "an interactive flame graph (the counters charts without stacks)" },
    { .name = "pprof",
      .kind = PP_FORMAT_STACKS,
      .whole = pp_render_pprof_doc,
      .summary = "gzip protobuf profile for go tool pprof, Pyroscope, Parca (-o FILE.pb.gz)" },
    PP_REGISTRY_EXTRA_FORMATS{ .name = NULL },
};

const pp_output_format *
pp_output_format_named(const char *name)
{
    if (name == NULL)
        return NULL;
    for (const pp_output_format *f = pp_output_formats; f->name != NULL; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

size_t
pp_output_format_names(unsigned kinds, const char **names, size_t max)
{
    size_t n = 0;

    if (max == 0)
        return 0;
    for (const pp_output_format *f = pp_output_formats; f->name != NULL && n + 1 < max; f++)
        if (f->kind & kinds)
            names[n++] = f->name;
    names[n] = NULL;
    return n;
}

char *
pp_output_format_list(unsigned kinds, const char *sep, const char *last, char *buf, size_t size)
{
    const char *names[64];
    size_t n = pp_output_format_names(kinds, names, sizeof names / sizeof names[0]);
    size_t used = 0;

    if (size == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s",
                         i == 0     ? "" :
                         i + 1 == n ? last :
                                      sep,
                         names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}
