/* Private: reading the raw tables of a result document (columns as objects
 * or names, rows as arrays) for the evidence views and landing sites. */
#ifndef PP_CORE_RULES_CELLS_H
#define PP_CORE_RULES_CELLS_H

#include <jansson.h>

/* Index of column `name` of a raw table, or -1 (also for a NULL name). */
int pp_ev_raw_col(const json_t *table, const char *name);

/* The string cell i of row, or "" (a number, null, or i < 0). */
const char *pp_ev_raw_str(const json_t *row, int i);

#endif
