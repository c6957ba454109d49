/* A pprof profile (google/pprof proto/profile.proto, perftools.profiles)
 * built from named frames and written gzip-compressed.
 *
 * The caller adds sample types, then samples whose stacks are folded strings
 * ("root;...;leaf", split like every flame renderer: pp_render_frame_end).
 * Each distinct frame name is one Function and one Location; a frame a
 * module was declared for (pp_pprof_frame_module) points at that module's
 * Mapping. Unresolved native frames keep their address: "?!0xADDR" gets
 * address ADDR and no mapping, "module!?+0xOFF" the module's mapping and
 * address OFF. Every Mapping says has_functions, so no tool tries to
 * symbolize the addresses again. Encoding is libprotobuf-c's (code generated
 * at build time from the .proto beside this file), gzip is zlib's. */
#ifndef PP_CORE_RESULT_PPROF_BUILD_H
#define PP_CORE_RESULT_PPROF_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <perfpipe/error.h>

typedef struct pp_pprof pp_pprof;

/* One sample label: a string (str != NULL) or a number with a unit. */
typedef struct pp_pprof_label {
    const char *key;
    const char *str;
    int64_t num;
    const char *unit; /* for num; NULL for none */
} pp_pprof_label;

/* An empty profile, NULL when out of memory. */
pp_pprof *pp_pprof_new(void);
void pp_pprof_free(pp_pprof *p);

/* Append a sample type (value index = number of calls before). PP_OK or
 * PP_ENOMEM. */
int pp_pprof_sample_type(pp_pprof *p, const char *type, const char *unit);
/* Which sample type tools show first (a type given above). */
int pp_pprof_default_type(pp_pprof *p, const char *type);
/* time_nanos, duration_nanos; period_type and period (type NULL: unset). */
int pp_pprof_times(pp_pprof *p, int64_t time_nanos, int64_t duration_nanos);
int pp_pprof_period(pp_pprof *p, const char *type, const char *unit, int64_t period);
/* A free-form comment line. */
int pp_pprof_comment(pp_pprof *p, const char *text);

/* Declare module `name`, loaded from `file` (NULL: the name), with a build
 * id (NULL or "": none). A second call for a name keeps the first. */
int pp_pprof_module(pp_pprof *p, const char *name, const char *file, const char *build_id);
/* Frames named `frame` belong to module `module` (declared or not). */
int pp_pprof_frame_module(pp_pprof *p, const char *frame, const char *module);

/* A sample: stack root first, one value per sample type, labels. PP_OK,
 * PP_ENOMEM, or PP_EINVAL when values do not match the sample types. */
int pp_pprof_sample(pp_pprof *p, const char *stack, const int64_t *values, size_t nvalues,
                    const pp_pprof_label *labels, size_t nlabels);

/* Encode, gzip and write the profile to out. PP_OK, PP_ENOMEM, PP_EIO. */
int pp_pprof_write(pp_pprof *p, FILE *out, pp_error *err);

#endif
