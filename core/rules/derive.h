/* Private: the cells rules' derived evidence computes from one value (a
 * database command's text, a heap path, a stack), apart from evidence.c,
 * which decides from a table's declaration where they apply. */
#ifndef PP_CORE_RULES_DERIVE_H
#define PP_CORE_RULES_DERIVE_H

#include <stddef.h>

#include <jansson.h>

/* SELECT, INSERT, ... of a normalized command into buf; "" when it has no
 * word. */
void pp_ev_sql_verb(const char *cmd, char *buf, size_t size);

/* Top-level items of a command's SELECT list; 0 when it is no SELECT. */
json_int_t pp_ev_select_columns(const char *cmd);

/* The root group a heap path starts from: static, finalizer, local, handle
 * or other. */
const char *pp_ev_root_kind(const char *path);

/* 1 when a ';'-joined stack is a thread-pool thread's. */
int pp_ev_pool_stack(const char *stack);

#endif
