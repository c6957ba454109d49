/* Field access on a handed-out event: by name, by index, through the
 * event's metadata entry. */
#include "config.h"

#include <string.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/nettrace_internal.h"

static const nt_meta *
event_meta(const pp_trace_event *ev)
{
    const pp_trace_source *r = ev->source;
    if (!r)
        return NULL;
    if (r->last_meta && r->last_meta->id == ev->metadata_id)
        return r->last_meta;
    uint64_t *ix = pp_u64map_get(&r->meta_by_id, ev->metadata_id);
    return ix ? r->metas[*ix] : NULL;
}

const nt_meta *
nt_event_meta(const pp_trace_event *ev)
{
    return event_meta(ev);
}

int
pp_nettrace_field_index(const pp_trace_event *ev, const char *name, uint32_t *index)
{
    const nt_meta *m = event_meta(ev);
    if (!m || !m->has_layout || m->ntypes == 0)
        return PP_ENOTFOUND;
    const nt_type *root = &m->types[0];
    for (uint32_t i = 0; i < root->member_count; i++)
        if (strcmp(m->members[root->first_member + i].name, name) == 0) {
            *index = i;
            return PP_OK;
        }
    return PP_ENOTFOUND;
}

int
pp_nettrace_field_at(const pp_trace_event *ev, uint32_t index, pp_value *out)
{
    const nt_meta *m = event_meta(ev);
    if (!m || !m->has_layout || m->ntypes == 0)
        return PP_ENOTFOUND;
    return nt_decode_member((pp_trace_source *)ev->source, m, index, ev->payload, ev->payload_size,
                            out);
}

int
pp_nettrace_field(const pp_trace_event *ev, const char *name, pp_value *out)
{
    uint32_t ix;
    int rc = pp_nettrace_field_index(ev, name, &ix);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    return pp_nettrace_field_at(ev, ix, out);
}
