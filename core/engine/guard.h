/* Private: what the engine tells a watching parent while it runs stages in
 * a child process (core/run/isolate.c), and which stages an earlier attempt
 * found faulty. Types only, shared by engine.c and isolate.c so neither
 * calls the other's internals. */
#ifndef PP_CORE_GUARD_H
#define PP_CORE_GUARD_H

#include <stdint.h>
#include <jansson.h>

#define PP_PHASE_IDLE    0u
#define PP_PHASE_CREATE  1u
#define PP_PHASE_CONSUME 2u
#define PP_PHASE_FINISH  3u
#define PP_PHASE_DESTROY 4u

/* In shared memory: written by the child, read by the parent. Plain
 * volatile words: the parent only needs to see them change, and reads
 * after the child is gone are exact. */
typedef struct pp_guard_watch {
    volatile uint32_t stage;       /* stage index in a callback */
    volatile uint32_t phase;       /* PP_PHASE_*; IDLE outside plugin code */
    volatile uint64_t beat;        /* +1 on every callback entry and exit */
    volatile uint64_t input_bytes; /* bytes of the current input read so far */
    /* Set once an input was read on several threads (engine_par.c): the
     * counts above are then not the serial read's, so a fault is retried
     * with one thread and blamed from that attempt. */
    volatile uint32_t parallel;
    /* The interrupt protocol (isolate.c), read and written sequentially
     * consistent: the parent sets `interrupted` (the signal) before it
     * reads `writing`; the child sets `writing` before it reads
     * `interrupted`. So either the child sees the interrupt and writes
     * nothing, or the parent sees it writing and forwards the signal to
     * the host's handler, which removes its temporary files. */
    uint32_t writing;
    uint32_t interrupted;
    volatile uint64_t records[]; /* [nstages] records handed, then
                                      * [nstages] bytes written to stdout */
} pp_guard_watch;

typedef struct pp_guard {
    pp_guard_watch *watch; /* NULL: nobody watches */
    json_t *const *faults; /* [nstages]: the "error" object of a stage
                                      * not to run (a fault found before), or NULL */
} pp_guard;

#endif
