/* plugins/cpu: the tables finish builds, by their place in pp_cpu_tables
 * (tables.c), the descriptor's declarations. */
#ifndef PP_CPU_TABLES_H
#define PP_CPU_TABLES_H

#include <perfpipe/plugin.h>

enum {
    PP_CPU_T_RUNNING,
    PP_CPU_T_WAITING,
    PP_CPU_T_BLOCKING,
    PP_CPU_T_BY_METHOD,
    PP_CPU_T_BY_THREAD,
    PP_CPU_T_RUNNING_STACKS,
    PP_CPU_T_WAITING_STACKS,
    PP_CPU_T_BY_STACK,
    PP_CPU_T_BY_THREAD_STACK,
    PP_CPU_T_EXCEPTIONS,
    PP_CPU_T_CONTENTION,
    PP_CPU_T_CALLERS,
    PP_CPU_T_CALLEES,
    PP_CPU_T_MODULES,
    PP_CPU_T_END
};

/* Every table cpu writes, indexed by PP_CPU_T_*, ended by a NULL name. */
extern const pp_table_decl pp_cpu_tables[];

#endif
