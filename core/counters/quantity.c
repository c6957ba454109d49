/* One vocabulary for the runtime's counters: the .NET 8+ System.Runtime
 * Meter and the older RuntimeEventSource EventCounters (by name and by the
 * display name CSV files show) map to the same canonical quantities, so the
 * analyzer speaks of the same things either way. */
#include "config.h"

#include <string.h>

#include <perfpipe/counters.h>

typedef struct quantity_map {
    const char *name; /* counter name or display name */
    const char *tag;  /* required tag "k=v", or NULL */
    const char *quantity;
} quantity_map;

static const quantity_map runtime_map[] = {
    /* System.Runtime Meter (.NET 9+; also via dotnet-counters on .NET 8) */
    { "dotnet.gc.heap.total_allocated", NULL, "alloc.bytes" },
    { "dotnet.gc.collections", "gc.heap.generation=gen0", "gc.collections.gen0" },
    { "dotnet.gc.collections", "gc.heap.generation=gen1", "gc.collections.gen1" },
    { "dotnet.gc.collections", "gc.heap.generation=gen2", "gc.collections.gen2" },
    { "dotnet.gc.pause.time", NULL, "gc.pause_time" },
    { "dotnet.process.cpu.time", "cpu.mode=user", "cpu.time.user" },
    { "dotnet.process.cpu.time", "cpu.mode=system", "cpu.time.system" },
    { "dotnet.monitor.lock_contentions", NULL, "lock.contentions" },
    { "dotnet.thread_pool.queue.length", NULL, "threadpool.queue_length" },
    { "dotnet.thread_pool.thread.count", NULL, "threadpool.threads" },
    { "dotnet.thread_pool.work_item.count", NULL, "threadpool.work_items" },
    { "dotnet.exceptions", NULL, "exceptions" },
    { "dotnet.jit.compilation.time", NULL, "jit.time" },
    { "dotnet.process.memory.working_set", NULL, "memory.working_set" },
    { "dotnet.gc.last_collection.heap.size", "gc.heap.generation=gen0", "gc.heap.gen0" },
    { "dotnet.gc.last_collection.heap.size", "gc.heap.generation=gen1", "gc.heap.gen1" },
    { "dotnet.gc.last_collection.heap.size", "gc.heap.generation=gen2", "gc.heap.gen2" },
    { "dotnet.gc.last_collection.heap.size", "gc.heap.generation=loh", "gc.heap.loh" },
    { "dotnet.gc.last_collection.heap.size", "gc.heap.generation=poh", "gc.heap.poh" },
    { "dotnet.gc.last_collection.memory.committed_size", NULL, "gc.committed" },
    /* RuntimeEventSource EventCounters: name, then display name */
    { "alloc-rate", NULL, "alloc.bytes" },
    { "Allocation Rate", NULL, "alloc.bytes" },
    { "gen-0-gc-count", NULL, "gc.collections.gen0" },
    { "Gen 0 GC Count", NULL, "gc.collections.gen0" },
    { "Gen 0 GC Rate", NULL, "gc.collections.gen0" },
    { "gen-1-gc-count", NULL, "gc.collections.gen1" },
    { "Gen 1 GC Count", NULL, "gc.collections.gen1" },
    { "Gen 1 GC Rate", NULL, "gc.collections.gen1" },
    { "gen-2-gc-count", NULL, "gc.collections.gen2" },
    { "Gen 2 GC Count", NULL, "gc.collections.gen2" },
    { "Gen 2 GC Rate", NULL, "gc.collections.gen2" },
    { "time-in-gc", NULL, "gc.time_percent" },
    { "% Time in GC since last GC", NULL, "gc.time_percent" },
    { "cpu-usage", NULL, "cpu.percent" },
    { "CPU Usage", NULL, "cpu.percent" },
    { "monitor-lock-contention-count", NULL, "lock.contentions" },
    { "Monitor Lock Contention Count", NULL, "lock.contentions" },
    { "threadpool-queue-length", NULL, "threadpool.queue_length" },
    { "ThreadPool Queue Length", NULL, "threadpool.queue_length" },
    { "threadpool-thread-count", NULL, "threadpool.threads" },
    { "ThreadPool Thread Count", NULL, "threadpool.threads" },
    { "threadpool-completed-items-count", NULL, "threadpool.work_items" },
    { "ThreadPool Completed Work Item Count", NULL, "threadpool.work_items" },
    { "exception-count", NULL, "exceptions" },
    { "Exception Count", NULL, "exceptions" },
    { "time-in-jit", NULL, "jit.time" },
    { "Time spent in JIT", NULL, "jit.time" },
    { "working-set", NULL, "memory.working_set" },
    { "Working Set", NULL, "memory.working_set" },
    { "gen-0-size", NULL, "gc.heap.gen0" },
    { "Gen 0 Size", NULL, "gc.heap.gen0" },
    { "gen-1-size", NULL, "gc.heap.gen1" },
    { "Gen 1 Size", NULL, "gc.heap.gen1" },
    { "gen-2-size", NULL, "gc.heap.gen2" },
    { "Gen 2 Size", NULL, "gc.heap.gen2" },
    { "loh-size", NULL, "gc.heap.loh" },
    { "LOH Size", NULL, "gc.heap.loh" },
    { "poh-size", NULL, "gc.heap.poh" },
    { "POH (Pinned Object Heap) Size", NULL, "gc.heap.poh" },
    { "gc-heap-size", NULL, "gc.heap.total" },
    { "GC Heap Size", NULL, "gc.heap.total" },
    { "gc-committed", NULL, "gc.committed" },
    { "GC Committed Bytes", NULL, "gc.committed" },
};

/* Is "k=v" one of the ';'-separated items of tags? */
static int
has_tag(const char *tags, const char *kv)
{
    size_t n = strlen(kv);

    for (const char *p = tags; p != NULL && *p != '\0';) {
        if (strncmp(p, kv, n) == 0 && (p[n] == ';' || p[n] == '\0'))
            return 1;
        p = strchr(p, ';');
        if (p != NULL)
            p++;
    }
    return 0;
}

const char *
pp_counters_quantity(const char *provider, const char *name, const char *tags)
{
    if (provider == NULL || name == NULL || strcmp(provider, "System.Runtime") != 0)
        return NULL;
    if (tags == NULL)
        tags = "";
    for (size_t i = 0; i < sizeof runtime_map / sizeof runtime_map[0]; i++) {
        const quantity_map *m = &runtime_map[i];
        if (strcmp(m->name, name) != 0)
            continue;
        if (m->tag != NULL && !has_tag(tags, m->tag))
            continue;
        return m->quantity;
    }
    return NULL;
}

const char *
pp_counters_quantity_axis(const char *quantity)
{
    static const char *const churn[] = { "alloc.", "gc.collections." };
    static const char *const footprint[] = { "memory.", "gc.heap.", "gc.committed" };

    if (quantity == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof churn / sizeof churn[0]; i++)
        if (strncmp(quantity, churn[i], strlen(churn[i])) == 0)
            return "churn";
    for (size_t i = 0; i < sizeof footprint / sizeof footprint[0]; i++)
        if (strncmp(quantity, footprint[i], strlen(footprint[i])) == 0)
            return "footprint";
    if (strncmp(quantity, "gc.", 3) == 0 || strncmp(quantity, "cpu.", 4) == 0 ||
        strncmp(quantity, "lock.", 5) == 0 || strncmp(quantity, "threadpool.", 11) == 0 ||
        strcmp(quantity, "exceptions") == 0 || strncmp(quantity, "jit.", 4) == 0)
        return "time";
    return NULL;
}
