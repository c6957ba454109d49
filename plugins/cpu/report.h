/* plugins/cpu: the report's state, shared by the files of the report side:
 * report.c (naming, folding, the method and thread tables), report_rank.c
 * (ranking), report_fold.c (folded stacks as name-id sequences),
 * report_stacks.c (the stack tables), report_findings.c (totals, findings). */
#ifndef PP_CPU_REPORT_H
#define PP_CPU_REPORT_H

#include "cpu.h"

#include "../common/strbuf.h"
#include "blocked.h"

#define NO_STACK_NAME "[no stack]"
#define ROOT_NAME     "[root]"
#define SELF_NAME     "[self]"

typedef struct stack_facts {
    uint32_t leaf;   /* name id */
    uint32_t folded; /* folded stack id */
    uint32_t depth;
    uint32_t unresolved;
} stack_facts;

typedef struct method_sums {
    int64_t excl_s, excl_ns, incl_s, incl_ns;
} method_sums;

typedef struct report {
    pp_cpu *c;
    pp_ctx *ctx;
    pp_pc_strtab names;
    pp_pc_symcache syms;
    stack_facts *facts;
    uint32_t *ip_name; /* [stacks.nip] name id of each distinct IP */
    /* Folded stacks: distinct name-id sequences. A name holding ';' could
     * make two sequences one string, so then the strings are the key
     * (folded_by_string, the folded table). */
    int folded_by_string;
    pp_pc_strtab folded;
    uint32_t nfolded;
    uint32_t *folded_stack; /* [nfolded] a stack with that sequence */
    uint32_t *fslots;       /* open addressing over folded ids + 1 */
    uint32_t nfslots;
    int64_t *folded_vals; /* [nfolded * 2] samples, ns */
    uint32_t no_stack_name, root_name, self_name;
    int64_t median_ns;
    int64_t unsampled_ns; /* gap time beyond the cap, attributed to nobody */
    uint64_t capped_samples;
    int64_t total_ns; /* thread time in the view */
    int64_t total_samples;
    int64_t frames, unresolved_frames; /* sample-weighted */
    uint32_t bare_addrs;               /* "?!0x..." names: native, no module map */
    int native_named;                  /* some "module!fn" name: the trace had a map */
    uint64_t truncated_samples;
    method_sums *m;  /* [names.count] */
    uint32_t *stamp; /* [names.count] per-sample dedupe marks */
    uint32_t stamp_now;
    uint8_t *is_focus; /* [names.count] */
    uint32_t focus_names;
    method_sums *callers, *callees; /* [names.count], only incl_* used */
    int64_t focus_s, focus_ns;
    int64_t *thread_s, *thread_ns;
    pp_pc_agg thread_leaf; /* key {slot, name id}: samples, ns */
    pp_cpu_states states;  /* running vs waiting, per stack (blocked.c) */
    uint32_t *tmp_ids;     /* one stack's name ids, for states */
    pp_pc_strbuf buf;
} report;

static inline double
pp_cpu_ms(int64_t ns)
{
    return (double)ns / 1e6;
}
static inline double
pp_cpu_pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* report_fold.c. The folded id of stack s (a new one for a new name
 * sequence): PP_OK or PP_ENOMEM. */
int pp_cpu_fold_id(report *r, uint32_t s, uint32_t *out);
/* The folded string of stack s into r->buf: PP_OK or PP_ENOMEM. */
int pp_cpu_fold_string(report *r, uint32_t s);
/* strcmp of two folded stacks' strings (folded ids). */
int pp_cpu_folded_cmp(const report *r, uint32_t a, uint32_t b);

/* report_rank.c. Name ids with a weight in sums, ranked (by inclusive time first
 * when inclusive, else exclusive); caller frees; NULL when out of memory. */
uint32_t *pp_cpu_ranked(report *r, const method_sums *sums, int inclusive, uint32_t *count);

/* report_stacks.c: by_stack (top-stacks rows) and by_thread_stack. PP_OK,
 * PP_ENOMEM or the host's refusal. */
int pp_cpu_emit_stacks(report *r);
int pp_cpu_emit_thread_stacks(report *r);
/* running_stacks / waiting_stacks: by_thread_stack's rows of one state
 * (stack, samples, ms, thread); running_stacks is the default flame graph. */
int pp_cpu_emit_running_stacks(report *r);
int pp_cpu_emit_waiting_stacks(report *r);

/* report_findings.c: the totals (PP_OK or the host's refusal) and the
 * findings of a report whose sums are complete. */
int pp_cpu_emit_totals(report *r, int64_t span);
void pp_cpu_emit_findings(report *r, int64_t span);

#endif
