/* plugins/db: SQL command text to its normalized form, so executions of
 * one statement with different literals aggregate as one command.
 *
 *  - whitespace runs (newlines included) become one space, ends trimmed;
 *  - string literals ('...', '' escapes) and numeric literals become ?;
 *  - IN lists of literals and/or parameters collapse to IN (...);
 *  - parameter names (@p0, :id, $1) and quoted identifiers ("x", [x], `x`)
 *    are kept verbatim: EF Core's parameter names tell statements apart;
 *  - comments are kept (EF Core's TagWith() comments name the call site). */
#ifndef PP_PLUGIN_DB_NORMALIZE_H
#define PP_PLUGIN_DB_NORMALIZE_H

#include <stddef.h>

/* Normalize sql into out (capacity outcap; 2 * strlen(sql) + 8 bytes are
 * always enough — only "IN(x)" -> "IN (...)" grows — and a smaller buffer
 * truncates, never overflows). Returns the length written. */
size_t db_normalize_sql(const char *sql, char *out, size_t outcap);

#endif
