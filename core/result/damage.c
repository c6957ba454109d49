/* Damage in the result document (damage.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "damage.h"
#include "result/result.h"

json_t *
pp_damage_json(const pp_source_damage *d, uint64_t warnings)
{
    return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:I}", "truncated_at",
                     d->truncated_at >= 0 ? json_integer(d->truncated_at) : json_null(),
                     "dropped_events", (json_int_t)d->dropped_events, "repeated_blocks",
                     (json_int_t)d->repeated_blocks, "reordered_blocks",
                     (json_int_t)d->reordered_blocks, "missing_blocks",
                     (json_int_t)d->missing_blocks, "sequence_gaps", (json_int_t)d->sequence_gaps,
                     "reader_warnings", (json_int_t)warnings);
}

int
pp_damage_any(const pp_source_damage *d, uint64_t warnings)
{
    return d->truncated_at >= 0 || d->dropped_events || d->repeated_blocks || d->reordered_blocks ||
           d->missing_blocks || d->sequence_gaps || warnings;
}

static void
add(char *buf, size_t size, size_t *used, const char *fmt, unsigned long long n, const char *one,
    const char *many)
{
    int w;

    if (n == 0 || *used >= size)
        return;
    w = snprintf(buf + *used, size - *used, fmt, *used ? "; " : "", n, n == 1 ? one : many);
    if (w > 0)
        *used += (size_t)w < size - *used ? (size_t)w : size - *used - 1;
}

void
pp_damage_text(char *buf, size_t size, const char *name, const char *path,
               const pp_source_damage *d, uint64_t warnings)
{
    char what[512] = "";
    size_t used = 0;

    if (d->truncated_at >= 0)
        used = (size_t)snprintf(what, sizeof what, "truncated at byte %lld",
                                (long long)d->truncated_at);
    add(what, sizeof what, &used, "%s%llu %s dropped", d->dropped_events, "event", "events");
    add(what, sizeof what, &used, "%s%llu sequence %s", d->sequence_gaps, "gap", "gaps");
    add(what, sizeof what, &used, "%s%llu repeated %s skipped", d->repeated_blocks, "block",
        "blocks");
    add(what, sizeof what, &used, "%s%llu %s out of order", d->reordered_blocks, "block", "blocks");
    add(what, sizeof what, &used, "%s%llu missing %s", d->missing_blocks, "block", "blocks");
    if (used == 0)
        add(what, sizeof what, &used, "%s%llu reader %s (see inputs[].warnings)", warnings,
            "warning", "warnings");
    snprintf(buf, size,
             "input '%s' (%s) is damaged: %s; these results cover what could be "
             "read",
             name, path, what);
}

int
pp_damage_mark_stage(json_t *stage, const char *text)
{
    const char *status = json_string_value(json_object_get(stage, "status"));

    if (status != NULL && strcmp(status, "ok") == 0 &&
        json_object_set_new(stage, "status", json_string("partial")) != 0)
        return PP_ENOMEM;
    return pp_result_finding(stage, PP_SEVERITY_WARNING, "input.damaged", text);
}
