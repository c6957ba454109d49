/* Private: names and payload layouts of the runtime providers' events.
 *
 * The runtime writes its own events (Microsoft-Windows-DotNETRuntime, its
 * Rundown provider, SampleProfiler, EventPipe) with empty names and no field
 * lists in the metadata (dotnet/runtime#96365), so the reader carries them,
 * keyed by (provider, event id, version), as the runtime manifest
 * (ClrEtwAll.man) declares them. */
#ifndef PP_NETTRACE_MANIFEST_H
#define PP_NETTRACE_MANIFEST_H

#include <stdint.h>

typedef struct nt_manifest_event {
    uint8_t provider; /* PP_PROVIDER_* */
    uint8_t version;
    uint16_t event_id;
    const char *name;    /* runtime manifest name, e.g. "GCAllocationTick_V4" */
    const char *te_name; /* TraceEvent's Task/Opcode name, e.g. "GC/AllocationTick" */
    /* "Name:type,..." with types u8 u16 u32 u64 i32 i64 f32 f64 b32 ptr
     * wstr guid; NULL when the layout is not carried. */
    const char *fields;
} nt_manifest_event;

/* The entry for (provider, id, version); if that version is absent, the
 * highest lower version of the same event (runtime versions only append
 * fields). NULL if the event is not in the table. *exact tells which. */
const nt_manifest_event *nt_manifest_find(uint32_t provider, uint32_t event_id, uint32_t version,
                                          int *exact);

#endif
