/* plugins/common: the module (assembly) of a frame and where a fix of it
 * lands, for the `module` and `call_site` columns and the `modules` table
 * of the analyzers that name frames (alloc, cpu, db).
 *
 * The host names a frame's module with trace_symbolize(PP_SYM_MODULE*)
 * when its host_features has PP_HOST_SYM_MODULE; an older host, or a trace
 * without module load/rundown events, leaves every module "" and class
 * "unknown". Each distinct IP costs four host calls once; modules are few. */
#ifndef PP_PLUGIN_MODULES_H
#define PP_PLUGIN_MODULES_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "strtab.h"
#include "u64map.h"

typedef struct pp_pc_modules {
    const pp_host_api *host;
    int on;                      /* the host knows PP_SYM_MODULE */
    pp_pc_u64map by_ip;          /* ip -> module id */
    pp_pc_strtab names;          /* module id -> assembly name; id 0 is "" */
    char **cls, **paths, **whys; /* [names.count], owned */
    uint8_t *used;               /* [names.count] listed in `modules` */
    uint32_t cap;
} pp_pc_modules;

/* Ready (and empty); never fails. */
void pp_pc_modules_init(pp_pc_modules *m, const pp_host_api *host);
void pp_pc_modules_free(pp_pc_modules *m);

/* The module id of ip in src (0: not known). From finish() only. PP_OK or
 * PP_ENOMEM. */
int pp_pc_modules_of(pp_pc_modules *m, const pp_trace_source *src, uint64_t ip, uint32_t *mod);
/* Its assembly name ("" when unknown) and class ("application", "package",
 * "framework", "unknown"); both borrowed from m. */
const char *pp_pc_modules_name(const pp_pc_modules *m, uint32_t mod);
const char *pp_pc_modules_class(const pp_pc_modules *m, uint32_t mod);
/* 1 when the module is the application's own code. */
int pp_pc_modules_is_app(const pp_pc_modules *m, uint32_t mod);
/* List mod in the `modules` table. */
void pp_pc_modules_use(pp_pc_modules *m, uint32_t mod);

/* Table `modules` (module, class, path, why) of the modules used, when any
 * is known; nothing otherwise. PP_OK or PP_ENOMEM. */
int pp_pc_modules_emit(const pp_pc_modules *m, pp_ctx *ctx);

/* The `modules` table's columns (NULL-terminated) and its declaration
 * (ABI 1.5), for the descriptor's tables of a plugin that emits it. */
extern const pp_column pp_pc_modules_columns[];
#define PP_PC_MODULES_TABLE_DECL                                                                   \
    {                                                                                              \
        .name = "modules", .columns = pp_pc_modules_columns,                                       \
        .key = (const char *const[]){ "module", NULL }, .subject = "module"                        \
    }

#endif
