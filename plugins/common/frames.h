/* plugins/common: naming and classifying stack frames.
 *
 *  - prefix lists from a string-list option (`framework: [System., Microsoft.]`),
 *    matched with plain prefix comparison, as the option's help promises;
 *  - unresolved frames: the host names them "?!0xADDR" or "module!?+0xOFF";
 *  - a per-stage IP -> name cache over host->trace_symbolize, so each
 *    distinct address costs one host call. */
#ifndef PP_PLUGIN_FRAMES_H
#define PP_PLUGIN_FRAMES_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "strtab.h"
#include "u64map.h"

typedef struct pp_pc_prefixes {
    const char **items; /* borrowed option strings (live until destroy) */
    uint32_t count;
} pp_pc_prefixes;

/* Read string-list option `name` into p (empty when unset). Items are
 * borrowed from the options; empty items are skipped. PP_OK, PP_ENOMEM or
 * PP_EINVAL (err filled through host->error_set). */
int pp_pc_prefixes_load(const pp_host_api *host, const pp_options *opts, const char *name,
                        pp_pc_prefixes *p, pp_error *err);
void pp_pc_prefixes_free(pp_pc_prefixes *p);
/* 1 when name starts with one of the prefixes. */
int pp_pc_prefixes_match(const pp_pc_prefixes *p, const char *name);

/* 1 when the host could not name the frame ("?!0x...", "module!?+0x..."). */
int pp_pc_frame_unresolved(const char *name);

/* The user method behind a compiler-generated frame: a lambda
 * ("Ns.T+<>c.<M>b__8_0"), a closure ("Ns.T+<>c__DisplayClass5_0.<M>b__0"),
 * an async or iterator state machine ("Ns.T+<M>d__3.MoveNext") or a local
 * function ("Ns.T.<M>g__Local|3_0") becomes "Ns.T.M" in out. Returns 1 when
 * name was such a frame (out filled), 0 otherwise (out untouched). */
int pp_pc_frame_user_method(const char *name, char *out, size_t size);

struct pp_pc_modules;

typedef struct pp_pc_symcache {
    const pp_host_api *host;
    pp_pc_u64map ip_to_name;    /* ip -> id in *names */
    pp_pc_strtab *names;        /* borrowed: the plugin's name table */
    struct pp_pc_modules *mods; /* NULL, or each name's module (track_modules) */
    uint32_t *name_mod;         /* [name_mod_cap] module id of a name id, 0 unknown */
    uint32_t name_mod_cap;
} pp_pc_symcache;

void pp_pc_symcache_init(pp_pc_symcache *c, const pp_host_api *host, pp_pc_strtab *names);
void pp_pc_symcache_free(pp_pc_symcache *c);
/* The name id of ip in src (interned in c->names). Call from finish() only:
 * method maps are complete at the end of the trace. src may be NULL (no
 * event was seen): the frame is then named "?!0xADDR". PP_OK or PP_ENOMEM. */
int pp_pc_symcache_name(pp_pc_symcache *c, const pp_trace_source *src, uint64_t ip, uint32_t *id);

/* From now on also note each name's module (common/modules.h; the first of
 * its addresses with a known module). PP_OK or PP_ENOMEM. */
int pp_pc_symcache_track_modules(pp_pc_symcache *c);
/* The module of a name the cache gave out ("" unknown), marked for the
 * `modules` table. */
const char *pp_pc_symcache_module(pp_pc_symcache *c, const char *name);

#endif
