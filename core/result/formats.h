/* The output format registry: one row per format --format and a
 * pipeline's `outputs:` know. Usage, errors, validation and completion
 * read it (perfpipe help --list formats); adding a format is one row in
 * core/result/formats.c (HACKING.md "Adding an output format"). */
#ifndef PP_RESULT_FORMATS_H
#define PP_RESULT_FORMATS_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include <perfpipe/error.h>

#include "result/result.h"

/* What a format draws. */
#define PP_FORMAT_DOCUMENT 1u /* the whole document (or one named table) */
#define PP_FORMAT_STACKS   2u /* one stack table: a flame graph or a profile export */

typedef int (*pp_render_doc_fn)(const json_t *doc, const pp_render_opts *o, FILE *out,
                                pp_error *err);
typedef int (*pp_render_stacks_fn)(const json_t *doc, const json_t *st, const json_t *tj,
                                   const pp_render_opts *o, FILE *out, pp_error *err);

typedef struct pp_output_format {
    const char *name;    /* what --format and `format:` say */
    unsigned kind;       /* PP_FORMAT_DOCUMENT or PP_FORMAT_STACKS */
    const char *summary; /* for people: one line */
    /* PP_FORMAT_DOCUMENT: the renderer; one_table, when not NULL, draws a
     * single named table its own way (csv: one plain file). */
    pp_render_doc_fn doc;
    int (*one_table)(const json_t *tj, FILE *out, pp_error *err);
    /* PP_FORMAT_STACKS: the renderer; per_thread asks for the stage's
     * stack table with a "thread" column by default; no_stacks, when not
     * NULL, draws a result that has no stack table (svg: counters charts). */
    pp_render_stacks_fn stacks;
    int per_thread;
    pp_render_doc_fn no_stacks;
    /* When not NULL, the format picks its own table (table: the one the
     * user named, or NULL) and the rest of the row is not used (pprof: the
     * stack table with the most labels, else a heap stage's types). */
    int (*whole)(const json_t *doc, const char *table, const pp_render_opts *o, FILE *out,
                 pp_error *err);
} pp_output_format;

/* The rows, ended by one whose name is NULL. */
extern const pp_output_format pp_output_formats[];

/* The row of a format name, or NULL. */
const pp_output_format *pp_output_format_named(const char *name);

/* The names of the formats whose kind is in kinds (PP_FORMAT_* bits), in
 * registry order, joined by sep, the last two by last (", " and " or ");
 * cut to size. Returns buf. */
char *pp_output_format_list(unsigned kinds, const char *sep, const char *last, char *buf,
                            size_t size);

/* The names of the formats whose kind is in kinds into names[0..max-1],
 * NULL-terminated; returns how many. */
size_t pp_output_format_names(unsigned kinds, const char **names, size_t max);

#endif
