/* Private: a stage's validated, typed options (pp_options, opaque to
 * plugins, which read it through the host table's opt_* functions).
 *
 * Built once from an analyzer's option declarations plus settings given as
 * text (YAML scalars / sequences, or command-line strings); every declared
 * option with a default gets it, every setting is checked against its
 * declared type. After that the getters cannot fail for a declared option
 * except PP_ENOTFOUND (no value and no default). */
#ifndef PP_PIPELINE_OPTIONS_H
#define PP_PIPELINE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>
#include <perfpipe/plugin.h>

#include "pipeline/pos.h"

/* One setting as text. A string-list option takes `items` (a YAML sequence,
 * item_count scalars) or `value`: from the command line (from_file = 0) a
 * comma-separated list; from a file a single item (a comma there is an
 * error, since the user most likely meant a YAML list). Other types take
 * `value` only. Positions are used in messages when from_file is set. */
typedef struct pp_option_setting {
    const char *name;
    const char *value;        /* scalar text, or NULL when items is used */
    const char *const *items; /* YAML sequence, or NULL */
    uint32_t item_count;
    int from_file;
    pp_pos name_pos;
    pp_pos value_pos;
    const pp_pos *item_pos; /* [item_count] or NULL */
} pp_option_setting;

/* Build the options of analyzer `a` from n settings. `file` names where the
 * settings came from, for messages ("FILE:L:C: ..." or "FILE: ..."); NULL =
 * no prefix. Errors (PP_EINVAL, err filled): option not declared by the
 * analyzer (the message lists the declared ones), a value that does not
 * parse as the declared type, the same option set twice, a declaration
 * whose default does not parse (the plugin's bug: PP_EPLUGIN). PP_ENOMEM.
 * On success *out is the caller's; free it with pp_options_free. */
int pp_options_build_settings(const pp_analyzer *a, const char *file,
                              const pp_option_setting *settings, size_t n, pp_options **out,
                              pp_error *err);

/* The simple form for callers holding command-line text: `pairs` holds
 * npairs (name, value) pairs as pairs[2*i], pairs[2*i+1]; string lists are
 * comma-separated. npairs = 0 gives the declared defaults (`describe`). */
int pp_options_build(const pp_analyzer *a, const char *const *pairs, size_t npairs,
                     pp_options **out, pp_error *err);

void pp_options_free(pp_options *o);

/* Getters: the host table's opt_* functions (same signatures). PP_OK;
 * PP_ENOTFOUND if the option is declared but has no value (or o is NULL);
 * PP_EINVAL if it is not declared, or declared with another type. Strings
 * live as long as o. */
int pp_options_bool(const pp_options *o, const char *name, int *out);
int pp_options_int(const pp_options *o, const char *name, int64_t *out);
int pp_options_double(const pp_options *o, const char *name, double *out);
int pp_options_string(const pp_options *o, const char *name, const char **out);
int pp_options_list_count(const pp_options *o, const char *name, uint32_t *out);
int pp_options_list_item(const pp_options *o, const char *name, uint32_t index, const char **out);

/* Whether an option has a value (set or defaulted): 1, 0, or PP_EINVAL if
 * undeclared. For `describe` and the result document. */
int pp_options_is_set(const pp_options *o, const char *name);

/* The value as canonical text ("25", "true", "a,b"), for the result
 * document and `describe`; NULL if unset or undeclared. Lives as long as o. */
const char *pp_options_text(const pp_options *o, const char *name);

/* Parse one scalar as a type, exactly as the builder does. For bool:
 * true/false/yes/no/on/off (any case). Returns PP_OK or PP_EINVAL. */
int pp_option_parse_bool(const char *text, int *out);
int pp_option_parse_int(const char *text, int64_t *out);
int pp_option_parse_double(const char *text, double *out);

/* "bool", "int", "double", "string", "string list", or "?". */
const char *pp_option_type_name(uint32_t type);

#endif
