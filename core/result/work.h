/* Private: the unit of work of a result document (WORK-CONTRACT.md).
 *
 * A closed-loop load serves more requests when the code is faster, so two
 * runs with identical knobs do not do identical work: compare and
 * candidates divide absolute figures by the work each side did and name
 * the unit they used. The unit is "request" when a request count is known
 * (the trace's Hosting RequestStop events, else a load tool's count given
 * as an input), else "second" (the capture's duration), else "operation"
 * (benchmark operations). Core writes it as the document's top-level
 * "work" object when a run ends. */
#ifndef PP_CORE_WORK_H
#define PP_CORE_WORK_H

#include <jansson.h>

#include <perfpipe/error.h>

typedef struct pp_work {
    const char *unit;            /* "request", "second", "operation"; NULL when unknown */
    double requests;             /* < 0: unknown (so for every figure) */
    const char *requests_source; /* "hosting", "load:wrk", ...; NULL when requests unknown */
    double seconds;
    double operations;
} pp_work;

/* Fills *w from doc's "work" object, or derives it from doc's inputs for
 * documents written before "work" existed. Borrowed strings live as long
 * as doc. PP_OK, or PP_EINVAL when doc has neither (w->unit NULL then;
 * the figures that are known are still filled). */
int pp_work_of(const json_t *doc, pp_work *w, pp_error *err);

/* The per-unit divisor of w for its unit (requests, seconds or
 * operations), or NAN when the unit is unknown or its figure is not > 0. */
double pp_work_per(const pp_work *w);

/* The "work" object for w (every figure null when unknown); NULL when out
 * of memory. */
json_t *pp_work_json(const pp_work *w);

/* Derive doc's work from its inputs and set doc's "work" (replacing one
 * already there). PP_OK or PP_ENOMEM. */
int pp_work_attach(json_t *doc);

#endif
