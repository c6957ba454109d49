/* The checks a plugin's descriptor must pass before any of its code runs
 * (loader.h: pp_plugin_check), shared by the loader and its probe child. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "engine/host.h"
#include "loader.h"
#include "registry/kinds.h"
#include "result/decl.h"

/* Bounds on what a descriptor may declare: far above any real analyzer,
 * low enough that a lying descriptor cannot make the host allocate or loop
 * without end. */
#define PP_MAX_ANALYZER_NAME 64
#define PP_MAX_INPUT_SLOTS   16
#define PP_MAX_OPTIONS       256
#define PP_MAX_TEXT          1024

#define MAX_TABLE_DECLS 64
#define MAX_DECL_ITEMS  64

/* Whether name is one of the declared columns (any, when none are). */
static int
decl_has_column(const pp_table_decl *t, const char *name)
{
    if (t->columns == NULL)
        return 1;
    for (uint32_t i = 0; i < MAX_DECL_ITEMS && t->columns[i].name != NULL; i++)
        if (strcmp(t->columns[i].name, name) == 0)
            return 1;
    return 0;
}

/* A NULL-terminated list of names: each short, each a declared column
 * when columns is set; PP_OK or PP_EPLUGIN naming what is wrong. */
static int
check_names(const pp_analyzer *d, const pp_table_decl *t, const char *const *names,
            const char *what, int are_columns, const char *path, pp_error *err)
{
    uint32_t i;

    for (i = 0; names != NULL && i <= MAX_DECL_ITEMS && names[i] != NULL; i++)
        if (strnlen(names[i], PP_MAX_ANALYZER_NAME + 1) > PP_MAX_ANALYZER_NAME ||
            names[i][0] == '\0' || (are_columns && !decl_has_column(t, names[i]))) {
            pp_error_set(err, PP_EPLUGIN,
                         "%s: analyzer '%s': table '%s' declares %s '%.64s', "
                         "which is empty, too long or not one of its columns",
                         path, d->name, t->name, what, names[i]);
            return PP_EPLUGIN;
        }
    if (i > MAX_DECL_ITEMS) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: analyzer '%s': table '%s' declares more than %d %s "
                     "(is the list NULL-terminated?)",
                     path, d->name, t->name, MAX_DECL_ITEMS, what);
        return PP_EPLUGIN;
    }
    return PP_OK;
}

static int
check_figures(const pp_analyzer *d, const pp_table_decl *t, const char *path, pp_error *err)
{
    for (uint32_t i = 0; t->figures != NULL && t->figures[i].column != NULL; i++) {
        const pp_figure_decl *f = &t->figures[i];
        const char *name[2] = { f->column, NULL };
        int known = f->axis == NULL;

        if (i >= MAX_DECL_ITEMS || check_names(d, t, name, "figure", 1, path, err) != PP_OK) {
            if (i >= MAX_DECL_ITEMS)
                pp_error_set(err, PP_EPLUGIN,
                             "%s: analyzer '%s': table '%s' declares more "
                             "than %d figures",
                             path, d->name, t->name, MAX_DECL_ITEMS);
            return PP_EPLUGIN;
        }
        for (size_t a = 0; !known && pp_decl_axes[a] != NULL; a++)
            known = strcmp(f->axis, pp_decl_axes[a]) == 0;
        if (!known || f->unit == NULL || strnlen(f->unit, 33) > 32) {
            pp_error_set(err, PP_EPLUGIN,
                         "%s: analyzer '%s': table '%s' figure '%s' needs a "
                         "unit (max 32) and an axis of time, allocation, footprint, database, "
                         "load or none",
                         path, d->name, t->name, f->column);
            return PP_EPLUGIN;
        }
    }
    return PP_OK;
}

/* A table's candidate declaration: its columns declared, its words short. */
static int
check_candidate(const pp_analyzer *d, const pp_table_decl *t, const char *path, pp_error *err)
{
    const pp_candidate_decl *c = t->candidate;
    const char *cols[] = { c->cost, c->status, c->skip_if };
    const char *words[] = { c->superseded_by, c->stacks, c->waits, c->callers };

    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        const char *one[2] = { cols[i], NULL };

        if (check_names(d, t, one, "candidate column", 1, path, err) != PP_OK)
            return PP_EPLUGIN;
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        const char *one[2] = { words[i], NULL };

        if (check_names(d, t, one, "candidate table", 0, path, err) != PP_OK)
            return PP_EPLUGIN;
    }
    if (check_names(d, t, c->evidence, "evidence column", 1, path, err) != PP_OK)
        return PP_EPLUGIN;
    if ((c->label != NULL && strnlen(c->label, PP_MAX_TEXT + 1) > PP_MAX_TEXT) ||
        (c->does != NULL && strnlen(c->does, PP_MAX_TEXT + 1) > PP_MAX_TEXT)) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: analyzer '%s': table '%s': a candidate's label or "
                     "does is longer than %d",
                     path, d->name, t->name, PP_MAX_TEXT);
        return PP_EPLUGIN;
    }
    return PP_OK;
}

/* ABI 1.5: the table declarations, every string read once (in the probe's
 * child first, as the rest). */
static int
check_tables(const pp_analyzer *d, const char *path, pp_error *err)
{
    const pp_table_decl *tables = PP_ANALYZER_HAS(d, tables) ? d->tables : NULL;

    for (uint32_t n = 0; tables != NULL && tables[n].name != NULL; n++) {
        const pp_table_decl *t = &tables[n];
        const char *subject[2] = { t->subject, NULL };

        if (n >= MAX_TABLE_DECLS ||
            strnlen(t->name, PP_MAX_ANALYZER_NAME + 1) > PP_MAX_ANALYZER_NAME) {
            pp_error_set(err, PP_EPLUGIN,
                         "%s: analyzer '%s' declares more than %d tables, or "
                         "a table name longer than %d",
                         path, d->name, MAX_TABLE_DECLS, PP_MAX_ANALYZER_NAME);
            return PP_EPLUGIN;
        }
        for (uint32_t i = 0; t->columns != NULL && t->columns[i].name != NULL; i++)
            if (i >= MAX_DECL_ITEMS || t->columns[i].type < PP_COL_STRING ||
                t->columns[i].type > PP_COL_NUMBER ||
                strnlen(t->columns[i].name, PP_MAX_ANALYZER_NAME + 1) > PP_MAX_ANALYZER_NAME) {
                pp_error_set(err, PP_EPLUGIN,
                             "%s: analyzer '%s': table '%s' column %u has an "
                             "unknown type or a name too long (or more than %d columns)",
                             path, d->name, t->name, (unsigned)i, MAX_DECL_ITEMS);
                return PP_EPLUGIN;
            }
        if (check_names(d, t, t->key, "key column", 1, path, err) != PP_OK ||
            check_names(d, t, subject, "subject", 1, path, err) != PP_OK ||
            check_names(d, t, t->work_totals, "work total", 0, path, err) != PP_OK ||
            check_figures(d, t, path, err) != PP_OK ||
            (t->candidate != NULL && check_candidate(d, t, path, err) != PP_OK))
            return PP_EPLUGIN;
    }
    return PP_OK;
}

int
pp_plugin_check(const pp_analyzer *d, const char *name, const char *path, pp_error *err)
{
    if (d == NULL) {
        pp_error_set(err, PP_EPLUGIN, "%s: perfpipe_plugin_entry returned no descriptor", path);
        return PP_EPLUGIN;
    }
    /* The three leading words are the same in every ABI version. */
    if (d->abi_major != PP_ABI_MAJOR) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: plugin ABI %u.%u, host ABI %u.%u: the major versions differ; "
                     "rebuild the plugin against perfpipe's ABI %u headers",
                     path, (unsigned)d->abi_major, (unsigned)d->abi_minor, PP_ABI_MAJOR,
                     PP_ABI_MINOR, PP_ABI_MAJOR);
        return PP_EPLUGIN;
    }
    if (d->abi_minor > PP_ABI_MINOR) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: plugin ABI %u.%u is newer than host ABI %u.%u: upgrade perfpipe", path,
                     (unsigned)d->abi_major, (unsigned)d->abi_minor, PP_ABI_MAJOR, PP_ABI_MINOR);
        return PP_EPLUGIN;
    }
    if (d->struct_size < PP_ANALYZER_MIN_SIZE_1_0) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: descriptor is %u bytes, ABI %u.%u needs at least %u "
                     "(plugin ABI %u.%u, host ABI %u.%u)",
                     path, (unsigned)d->struct_size, (unsigned)d->abi_major, (unsigned)d->abi_minor,
                     (unsigned)PP_ANALYZER_MIN_SIZE_1_0, (unsigned)d->abi_major,
                     (unsigned)d->abi_minor, PP_ABI_MAJOR, PP_ABI_MINOR);
        return PP_EPLUGIN;
    }
    if (d->struct_size > sizeof(pp_analyzer)) {
        /* A plugin of minor <= ours cannot know a longer descriptor. */
        pp_error_set(err, PP_EPLUGIN,
                     "%s: descriptor claims %u bytes, ABI %u.%u has %u: "
                     "struct_size is wrong",
                     path, (unsigned)d->struct_size, PP_ABI_MAJOR, PP_ABI_MINOR,
                     (unsigned)sizeof(pp_analyzer));
        return PP_EPLUGIN;
    }
    if (d->flags & PP_ANALYZER_FLAG_STANDIN) {
        pp_error_set(err, PP_EPLUGIN, "%s: descriptor sets flags bit 31, which is the host's",
                     path);
        return PP_EPLUGIN;
    }
    if (d->required_host_features & ~pp_host_api_get()->host_features) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: the plugin requires host features 0x%llx, this "
                     "perfpipe offers 0x%llx: upgrade perfpipe",
                     path, (unsigned long long)d->required_host_features,
                     (unsigned long long)pp_host_api_get()->host_features);
        return PP_EPLUGIN;
    }
    if (d->name == NULL || d->name[0] == '\0' || d->version == NULL) {
        pp_error_set(err, PP_EPLUGIN, "%s: descriptor has no name or version", path);
        return PP_EPLUGIN;
    }
    if (strnlen(d->name, PP_MAX_ANALYZER_NAME + 1) > PP_MAX_ANALYZER_NAME ||
        strnlen(d->version, 65) > 64 ||
        (d->summary != NULL && strnlen(d->summary, PP_MAX_TEXT + 1) > PP_MAX_TEXT)) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: descriptor name (max %d), version (64) or summary "
                     "(1024) is too long",
                     path, PP_MAX_ANALYZER_NAME);
        return PP_EPLUGIN;
    }
    if (name != NULL && strcmp(d->name, name) != 0) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: descriptor names the analyzer '%s', but it was loaded as '%s' "
                     "(the file must be NAME.so for analyzer NAME)",
                     path, d->name, name);
        return PP_EPLUGIN;
    }
    if (d->create == NULL || d->consume == NULL || d->finish == NULL || d->destroy == NULL) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: descriptor of '%s' lacks a callback "
                     "(create, consume, finish and destroy are required)",
                     path, d->name);
        return PP_EPLUGIN;
    }
    if (d->input_kinds == 0) {
        pp_error_set(err, PP_EPLUGIN, "%s: analyzer '%s' declares no input kind", path, d->name);
        return PP_EPLUGIN;
    }
    if (d->input_kinds & ~pp_input_kinds_all()) {
        pp_error_set(err, PP_EPLUGIN, "%s: analyzer '%s' declares unknown input kinds 0x%x", path,
                     d->name, (unsigned)(d->input_kinds & ~pp_input_kinds_all()));
        return PP_EPLUGIN;
    }
    if (d->input_slot_count > PP_MAX_INPUT_SLOTS || d->option_count > PP_MAX_OPTIONS) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s: analyzer '%s' declares %u input slots (max %d) and "
                     "%u options (max %d)",
                     path, d->name, (unsigned)d->input_slot_count, PP_MAX_INPUT_SLOTS,
                     (unsigned)d->option_count, PP_MAX_OPTIONS);
        return PP_EPLUGIN;
    }
    for (uint32_t i = 0; d->input_slots != NULL && i < d->input_slot_count; i++)
        if (d->input_slots[i] == NULL || d->input_slots[i][0] == '\0') {
            pp_error_set(err, PP_EPLUGIN, "%s: analyzer '%s': input slot %u has no name", path,
                         d->name, (unsigned)i);
            return PP_EPLUGIN;
        }
    if (d->input_slot_count > 1 && d->input_slots == NULL) {
        pp_error_set(err, PP_EPLUGIN, "%s: analyzer '%s' takes %u inputs but names none", path,
                     d->name, (unsigned)d->input_slot_count);
        return PP_EPLUGIN;
    }
    if (d->option_count > 0 && d->options == NULL) {
        pp_error_set(err, PP_EPLUGIN, "%s: analyzer '%s' declares %u options but no table", path,
                     d->name, (unsigned)d->option_count);
        return PP_EPLUGIN;
    }
    for (uint32_t i = 0; d->input_slots != NULL && i < d->input_slot_count; i++)
        if (strnlen(d->input_slots[i], PP_MAX_ANALYZER_NAME + 1) > PP_MAX_ANALYZER_NAME) {
            pp_error_set(err, PP_EPLUGIN,
                         "%s: analyzer '%s': input slot %u's name is longer "
                         "than %d",
                         path, d->name, (unsigned)i, PP_MAX_ANALYZER_NAME);
            return PP_EPLUGIN;
        }
    for (uint32_t i = 0; i < d->option_count; i++) {
        const pp_option_decl *o = &d->options[i];

        if (o->name == NULL || o->type < PP_OPT_BOOL || o->type > PP_OPT_STRING_LIST) {
            pp_error_set(err, PP_EPLUGIN,
                         "%s: analyzer '%s': option %u has no name or an unknown type", path,
                         d->name, (unsigned)i);
            return PP_EPLUGIN;
        }
        /* Every string `describe` and the option parser read, read once
         * here (in the probe's child first: a wild pointer crashes it). */
        if (strnlen(o->name, PP_MAX_ANALYZER_NAME + 1) > PP_MAX_ANALYZER_NAME ||
            (o->help != NULL && strnlen(o->help, PP_MAX_TEXT + 1) > PP_MAX_TEXT) ||
            (o->default_value != NULL &&
             strnlen(o->default_value, PP_MAX_TEXT + 1) > PP_MAX_TEXT)) {
            pp_error_set(err, PP_EPLUGIN,
                         "%s: analyzer '%s': option %u's name (max %d), help or "
                         "default (%d) is too long",
                         path, d->name, (unsigned)i, PP_MAX_ANALYZER_NAME, PP_MAX_TEXT);
            return PP_EPLUGIN;
        }
    }
    return check_tables(d, path, err);
}
