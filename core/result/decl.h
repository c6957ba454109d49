/* Private: a descriptor's table declarations (ABI 1.5, pp_table_decl) in
 * the result document: tables[i].decl =
 *   {"subject": COLUMN, "key": [COLUMN...],
 *    "figures": {COLUMN: {"unit": U, "axis": A or null}, ...},
 *    "work_totals": [TOTAL...], "roles": {ROLE: COLUMN, ...}}
 * every member optional, every COLUMN one the table has (perfpipe(1)
 * RESULT DOCUMENT). Readers use it when present and fall back to the
 * table's names otherwise. */
#ifndef PP_RESULT_DECL_H
#define PP_RESULT_DECL_H

#include <jansson.h>

#include <perfpipe/plugin.h>

/* The axes a figure may be on (PP_AXIS_*), NULL-terminated: the one list
 * the loader checks declarations against and rule files' `axis` reads. */
extern const char *const pp_decl_axes[];

/* A column role (PP_COL_FLAG_* of ABI 1.7) and its word in "roles". */
typedef struct pp_decl_role {
    uint32_t flag;
    const char *word;
} pp_decl_role;

/* Every role, ended by one whose word is NULL. */
extern const pp_decl_role pp_decl_roles[];

/* The first column of decl that has the role flag, or NULL. */
const char *pp_decl_role_column(const pp_table_decl *decl, uint32_t flag);

/* The declaration of table `name` in a's descriptor, or NULL (none, or a
 * descriptor older than ABI 1.5). */
const pp_table_decl *pp_decl_find(const pp_analyzer *a, const char *name);

/* decl as a table's "decl" object, keeping only the columns table (a
 * table object of a result document) has: a new reference, or NULL out of
 * memory. */
json_t *pp_decl_json(const pp_table_decl *decl, const json_t *table);

/* Set "decl" on every table of stage (a stage object) that a declares;
 * a table already carrying one keeps it. PP_OK or PP_ENOMEM. */
int pp_decl_annotate(json_t *stage, const pp_analyzer *a);

/* Check a table's "decl" (validate.c): 0 when it is well formed, else -1
 * with what is wrong in why. */
int pp_decl_check(const json_t *decl, const json_t *table, char *why, size_t size);

#endif
