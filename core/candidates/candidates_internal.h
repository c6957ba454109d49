/* Private to candidates*.c: a candidate row and the groups they rank in. */
#ifndef PP_CORE_CANDIDATES_INTERNAL_H
#define PP_CORE_CANDIDATES_INTERNAL_H

#include <stddef.h>
#include <jansson.h>

#include <perfpipe/error.h>

#include "candidates_cost.h"
#include "candidates_lands.h"
#include "result/result.h"
#include "rules/evidence.h"
#include "rules/rules.h"

#define MAX_HITS 16

/* Where a table's candidates come from: its declaration's candidate part
 * (tables[i].decl.candidate), strings borrowed from the document. share_col
 * NULL: the share is the row's figure over the sum of the table's positive
 * figures. */
typedef struct cand_source {
    const char *table;
    const char *target_col;  /* the declared subject */
    const char *figure_col;  /* the declared cost figure */
    const char *share_col;   /* the declared figure of unit "percent" on no axis */
    pp_cand_measure measure; /* from the cost figure's unit */
    const char *axis;
    const char *cost_axis;     /* the cost figure's declared axis (PP_AXIS_*), or NULL */
    const char *what;          /* what the target does, for the evidence text */
    const char *growth_only;   /* status column: keep grew/appeared rows only */
    const char *superseded_by; /* skip this source where the stage has that table */
    const char *skip_if;       /* skip rows whose string in this column is not empty */
    const json_t *extra;       /* columns quoted in the evidence (an array), or NULL */
    const char *stacks;        /* the stage's ';'-joined stacks: a named frame's inclusive time */
    const char *waits;         /* the stage's table of blocked leaves */
    const char *callers;       /* the stage's table of each subject's callers */
    int heap_type;             /* a heap type: no module, the fix lands where it is made */
    int waits_filter;          /* leave out rows naming a known wait */
    int frame_target;          /* a code frame: a framework one moves to its app caller */
    int rule_gated;            /* a wait: a candidate only where a rule names it removable */
} cand_source;

typedef struct cand {
    cand_source r;
    char target[512];   /* where the fix lands: an application frame, a command... */
    char orig[512];     /* the framework frame (or command) the row named, when it moved */
    char orig_kind[16]; /* what orig is: framework, package, in-memory, command */
    double figure;
    double share;
    double cost; /* estimated ms per unit of work (candidates_cost.h) */
    pp_cand_unit unit;
    const json_t *doc;
    const char *pipeline;
    const json_t *knobs;
    const char *stage;
    const json_t *stage_obj;
    char extra[1536];   /* quoted columns (source->extra) */
    pp_lands lands;     /* where the fix lands (candidates_lands.c) */
    int dropped;        /* 1: no application caller (a followup); 2: a wait no rule
                                    names; 3: called under a frame a rule names (its evidence) */
    int inclusive;      /* figure is the frame's inclusive running time */
    int named;          /* a running frame a rule names (in any result of its capture) */
    int ruled;          /* a frame a rule names, from a stage without stacks (alloc's
                                    rows): its time is in another stage's stacks */
    char absorbed[512]; /* application callees whose time its call holds (evidence) */
    size_t held_by;     /* judge's scratch: called_under's answer */
} cand;

/* Candidates are merged by target: one row per place a fix lands. A group
 * is a run of list (sorted by target); its cost is that of its heaviest
 * (stage, source): the axes of one target measure overlapping work (a
 * frame's allocations cost running time its cpu row already counts), so
 * they are not added; rows of one stage and source are (framework frames
 * that moved to one caller). */
typedef struct group {
    size_t first, count;
    size_t rep; /* the member whose (stage, source) ranks it */
    double cost, figure, share;
} group;

/* Index of column name in table, or -1. */
int pp_cand_col(const json_t *table, const char *name);

/* A number cell as a double (0 when it is not a number). */
double pp_cand_num(const json_t *v);

/* A figure of measure m as text ("1.2 s", "340 MB"). */
void pp_cand_figure_text(pp_cand_measure m, double figure, char *buf, size_t size);

/* qsort order of cands: kept ones by target and unit, then followups
 * heaviest first. */
int pp_cand_by_target(const void *a, const void *b);

/* The groups of the kept candidates of list (n, sorted by
 * pp_cand_by_target), ranked by cost; NULL when out of memory. */
group *pp_cand_groups(const cand *list, size_t n, size_t *ng);

/* The rows of the candidates table (at most top groups), with row_rules and
 * row_lands aligned to them. */
int pp_cand_emit_candidates(const cand *list, const group *g, size_t ng, size_t top,
                            const json_t *const *docs, size_t ndocs, const pp_ruleset *rules,
                            pp_ev_cache *cache, pp_table *t, json_t *row_rules, json_t *row_lands,
                            pp_error *err);

/* Frames no fix lands in (no application caller), as followups. */
int pp_cand_emit_dropped(cand *list, size_t n, pp_table *f, pp_error *err);

#endif
