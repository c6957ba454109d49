/* Private to the engine: the run state shared by the serial read
 * (engine.c) and the parallel one (engine_par.c). */
#ifndef PP_CORE_ENGINE_INTERNAL_H
#define PP_CORE_ENGINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "engine.h"
#include "guard.h"
#include "hash.h"
#include "host.h"
#include "input/source.h"
#include "input/unpack.h"

typedef struct stage_run {
    const pp_plan_stage *plan;
    pp_ctx ctx;
    void *state;
    int created;
    int failed;
} stage_run;

typedef struct pp_bg_hash pp_bg_hash;

/* Progress is reported at most once per this many bytes. */
#define PP_PROGRESS_STEP (32u << 20)

typedef struct input_run {
    const pp_plan_input *plan;
    /* Where the input is read: a relative path made absolute before any
     * plugin's create() runs (a plugin's chdir moves nothing), else NULL
     * and plan->path is read. Messages and the document show plan->path. */
    char *where;
    const pp_source_ops *ops;
    void *src;
    pp_hash *hash;
    json_t *entry; /* the input's object in the document */
    uint64_t size;
    uint64_t done;
    uint64_t next_progress;
    const pp_run_hooks *hooks;
    pp_source_hooks sh; /* borrowed by the reader until close */
    uint64_t warnings;  /* reader warnings: each is damage */
    pp_source_damage damage;
    int damaged;
    /* A split read's hash still running (engine_hash.c), and the document's
     * hash object it fills when joined (pp_engine_hash_join). */
    pp_bg_hash *bg;
    json_t *hash_entry;
    /* A compressed file being decompressed for the reader (unpack.h): the
     * reader reads `where` ("/dev/fd/N"); NULL for a file read as it is. */
    pp_unpack *unpack;
} input_run;

/* Tell a watching parent which plugin callback runs (guard.h). */
static inline void
watch_enter(const pp_guard *g, size_t stage, uint32_t phase)
{
    if (g != NULL && g->watch != NULL) {
        g->watch->stage = (uint32_t)stage;
        g->watch->phase = phase;
        g->watch->beat++;
    }
}

static inline void
watch_leave(const pp_guard *g)
{
    if (g != NULL && g->watch != NULL) {
        g->watch->phase = PP_PHASE_IDLE;
        g->watch->beat++;
    }
}

/* Fail stage s: fmt has three %s (id, analyzer, detail); the first
 * failure of the run is kept in *first (may be NULL). */
void pp_engine_stage_fail(stage_run *s, pp_error *first, const char *fmt, const char *detail);

/* Whether stage st consumes input `index` as the parallel read needs it:
 * records of kind nettrace through exactly one slot. */
int pp_engine_stage_reads(const stage_run *st, size_t index);

/* engine_par.c. Read nettrace input `in` (opened, nothing read yet) as
 * regions on up to `jobs` threads, each region into children forked from
 * the states of the stages that read it, then merge the children in file
 * order. Taken only when every such stage has fork and merge (plugin.h,
 * ABI 1.3) and the file splits as inspect's does (region.h). Returns
 *  0  read: in->src holds what a serial read leaves, every byte went
 *     through in->sh.on_bytes in order, the reader's warnings were replayed
 *     in file order; a merge failure failed its stage (*first);
 *  1  not read in parallel: the states are untouched and in->src is open
 *     with nothing read (reopened if the attempt moved it): read serially;
 *  <0 PP_ENOMEM, or reopening failed: err set. */
int pp_engine_read_parallel(input_run *in, size_t index, stage_run *stages, size_t nstages,
                            const pp_guard *g, unsigned jobs, pp_error *first, pp_error *err);

/* engine_stage.c. in->done = done, and the run's progress hook told when it
 * has moved PP_PROGRESS_STEP since it last was (the serial read's bytes
 * and the split read's workers alike). */
void pp_engine_progress(input_run *in, uint64_t done);

/* engine_hash.c. The content hash of bytes [at, size) of fd into hash, on
 * a thread of its own; fd is the hasher's from a successful new on (closed
 * by free). new: NULL when out of memory (fd stays the caller's). start:
 * begin now (again: nothing); with no thread to be had, join hashes on the
 * caller's. join: wait; 0 when every byte up to size was hashed, 1 when the
 * file ended first; *hashed says how far it got. free (NULL: nothing): a
 * hash still running is stopped unfinished. Nothing else may touch hash
 * between start and join. */
pp_bg_hash *pp_bg_hash_new(pp_hash *hash, int fd, uint64_t at, uint64_t size);
void pp_bg_hash_start(pp_bg_hash *h);
int pp_bg_hash_join(pp_bg_hash *h, uint64_t *hashed);
void pp_bg_hash_free(pp_bg_hash *h);

/* engine.c. Finish input in's hash if a split read left it running: the
 * document's hash value is then set. PP_OK, or PP_EIO when the file ended
 * before the bytes the read saw (it changed while read): err set. */
int pp_engine_hash_join(input_run *in, pp_error *err);

/* The path an input is read from (input_run.where, else its plan's). */
static inline const char *
pp_engine_input_path(const input_run *in)
{
    return in->where != NULL ? in->where : in->plan->path;
}

#endif
