/* gc's table declarations (ABI 1.5): report.c builds each table from its
 * declaration's columns, so the two cannot drift. */
#include "config.h"

#include <stddef.h>

#include "gc.h"

const pp_table_decl pp_gc_tables[] = {
    [PP_GC_TABLE_GCS] = { .name = "gcs",
      .columns = (const pp_column[]){
          { "number", PP_COL_COUNT, 0 }, { "gen", PP_COL_COUNT, 0 }, { "type", PP_COL_STRING, 0 },
          { "reason", PP_COL_STRING, 0 }, { "start", PP_COL_TIMESTAMP_NS, 0 },
          { "suspend", PP_COL_DURATION_NS, 0 }, { "pause", PP_COL_DURATION_NS, 0 },
          { "gc_duration", PP_COL_DURATION_NS, 0 }, { "heap_before", PP_COL_BYTES, 0 },
          { "heap_after", PP_COL_BYTES, 0 }, { "gen0_after", PP_COL_BYTES, 0 },
          { "gen1_after", PP_COL_BYTES, 0 }, { "gen2_after", PP_COL_BYTES, 0 },
          { "loh_after", PP_COL_BYTES, 0 }, { "poh_after", PP_COL_BYTES, 0 },
          { "promoted", PP_COL_BYTES, 0 }, { "pinned_objects", PP_COL_COUNT, 0 },
          { "allocated", PP_COL_BYTES, 0 }, { "heaps", PP_COL_COUNT, 0 },
          { "complete", PP_COL_COUNT, 0 }, { NULL, 0, 0 } },
      .key = (const char *const[]){ "number", NULL },
    },
    [PP_GC_TABLE_BY_GENERATION] = { .name = "by_generation",
      .columns = (const pp_column[]){
          { "gen", PP_COL_COUNT, 0 }, { "gcs", PP_COL_COUNT, 0 }, { "induced", PP_COL_COUNT, 0 },
          { "total_pause", PP_COL_DURATION_NS, 0 }, { "mean_pause", PP_COL_DURATION_NS, 0 },
          { "max_pause", PP_COL_DURATION_NS, 0 }, { "promoted", PP_COL_BYTES, 0 },
          { NULL, 0, 0 } },
      .key = (const char *const[]){ "gen", NULL },
    },
    /* the application frame that induces GCs, by the pause they cost */
    [PP_GC_TABLE_INDUCED_CALLERS] = { .name = "induced_callers",
      .columns = (const pp_column[]){ { "frame", PP_COL_STRING, 0 }, { "gcs", PP_COL_COUNT, 0 },
          { "pause", PP_COL_DURATION_NS, 0 }, { "pause_ms", PP_COL_NUMBER, 0 }, { NULL, 0, 0 } },
      .key = (const char *const[]){ "frame", NULL },
      .subject = "frame",
      .figures = (const pp_figure_decl[]){ { "pause_ms", "ms", PP_AXIS_TIME },
          { "gcs", "count", NULL }, { NULL, NULL, NULL } },
      .candidate = &(const pp_candidate_decl){ .cost = "pause_ms",
          .label = "time (GC pauses it induces)",
          .does = "pauses the process in the GCs it induces (GC.Collect)",
          .flags = PP_CANDIDATE_FRAME },
    },
    { .name = NULL },
};
