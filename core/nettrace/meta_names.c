/* TraceEvent's names of metadata rows ("Provider/EventName/Opcode") and
 * the events its TraceLog leaves out: what the counts shown beside
 * TraceEvent's are keyed by and compared on (split from metadata.c). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include "nettrace/nettrace_internal.h"
#include "nettrace/manifest.h"

static const char *
opcode_name(uint32_t op)
{
    switch (op) {
    case 1: return "Start";
    case 2: return "Stop";
    case 3: return "DataCollectionStart";
    case 4: return "DataCollectionStop";
    case 5: return "Extension";
    case 6: return "Reply";
    case 7: return "Resume";
    case 8: return "Suspend";
    case 9: return "Transfer";
    case 240: return "Receive";
    default: return NULL;
    }
}

const char *
nt_te_name(const nt_meta *m, char *buf, size_t size)
{
    if (m->provider_known >= PP_PROVIDER_RUNTIME && m->provider_known <= PP_PROVIDER_EVENTPIPE) {
        int exact;
        const nt_manifest_event *e = nt_manifest_find(m->provider_known, m->event_id, m->version,
                                                      &exact);
        if (e)
            return e->te_name;
        snprintf(buf, size, "EventID(%u)", m->event_id);
        return buf;
    }
    size_t len = strlen(m->name);
    uint32_t op = m->opcode;
    if (op == 0) {
        if (len > 5 && strcmp(m->name + len - 5, "Start") == 0)
            op = 1;
        else if (len > 4 && strcmp(m->name + len - 4, "Stop") == 0)
            op = 2;
    }
    if (op == 0) {
        snprintf(buf, size, "%s", m->name);
        return buf;
    }
    if (op == 1 && len > 5 && strcmp(m->name + len - 5, "Start") == 0)
        len -= 5;
    else if (op == 2 && len > 4 && strcmp(m->name + len - 4, "Stop") == 0)
        len -= 4;
    const char *on = opcode_name(op);
    if (on)
        snprintf(buf, size, "%.*s/%s", (int)len, m->name, on);
    else
        snprintf(buf, size, "%.*s/%u", (int)len, m->name, op);
    return buf;
}

int
nt_meta_is_tracelog_omitted(const nt_meta *m, const pp_trace_event *ev)
{
    uint32_t flags = 0;
    int have_flags = ev->payload_size >= 36;

    if (have_flags)
        flags = nt_rd32(ev->payload + 32);
    if (m->provider_known == PP_PROVIDER_RUNTIME) {
        switch (m->event_id) {
        case 190:
        case 82: return 1;                             /* ILToNativeMap, ClrStackWalk */
        case 143: return have_flags && !(flags & 0x9); /* MethodLoadVerbose */
        case 144: return have_flags && !(flags & 0x8); /* MethodUnloadVerbose */
        default: return 0;
        }
    }
    if (m->provider_known == PP_PROVIDER_RUNDOWN) {
        switch (m->event_id) {
        case 150:
        case 144: return 1; /* ILToNativeMapDCStop, DCStopVerbose */
        case 143: return m->version >= 2 || (have_flags && !(flags & 0x9));
        default: return 0;
        }
    }
    return 0;
}
