/* The load input kind's word, once: its reader's kind (load/source.c; the
 * kinds registry reads it from the ops), the key of its facts in an input
 * of a result document (inputs[].load: tool, requests, duration_ns, knobs),
 * the work source a load tool's count gives ("load", "load:hey"), and diagnose's
 * knob of the command whose output is a load input. */
#ifndef PP_LOAD_KIND_H
#define PP_LOAD_KIND_H

#include <jansson.h>

#define PP_LOAD_KIND "load"

/* The load facts of one input of a result document (inputs[i]), or NULL
 * when it is no load input. Borrowed from input. */
static inline const json_t *
pp_load_facts(const json_t *input)
{
    return json_object_get(input, PP_LOAD_KIND);
}

#endif
