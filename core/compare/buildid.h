/* Private: whether two results measured the same build (issue #44).
 *
 * A nettrace input's summary lists the build identity of each application
 * module (inputs[].nettrace.modules[]: name, pdb_guid, pdb_age; see
 * core/nettrace/modident.h). Two results whose application modules are the
 * same set with equal identities ran the same build: comparing routes,
 * knobs or configuration of one build is legitimate (compare warns beside
 * its verdict), but a fix's verification cannot judge a change that was
 * never deployed.
 *
 * The seam for `verify` (issue #38): call pp_buildid_verify_deployed with
 * the before and after results and the user's --config-only; a return of 1
 * means the verdict is "cannot judge" with msg as its reason. */
#ifndef PP_CORE_BUILDID_H
#define PP_CORE_BUILDID_H

#include <stddef.h>

#include <jansson.h>

/* 1 when both documents name an identity for every application module and
 * every identity is equal (the same names on both sides); msg then says
 * "both sides ran the same build of MODULE[, MODULE...] (...)" and what it
 * means. 0 when a module differs, or either side names none (an input with
 * no module events, a gcdump, a counters file: nothing is claimed); msg is
 * "" then. */
int pp_buildid_same(const json_t *base, const json_t *cand, char *msg, size_t size);

/* For the verification of a fix: 1 when the change cannot be judged
 * because both results ran the same build, msg (NUL-terminated) being the
 * "cannot judge: the change is not deployed" reason with what to do; 0 when
 * the builds differ or are unknown, or when config_only (the user declared
 * a configuration-only change: one build, other settings, is what is
 * measured). */
int pp_buildid_verify_deployed(const json_t *before, const json_t *after, int config_only,
                               char *msg, size_t size);

#endif
