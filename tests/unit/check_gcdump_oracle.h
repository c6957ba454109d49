/* Test helper: finds the .gcdump fixtures in $PP_TESTDATA and loads the
 * oracle (<name>.oracle.json, from the dotnet-gcdump/TraceEvent heap-graph
 * reader) and workload ground truth (<scenario>.truth.json) beside them. */
#ifndef PP_TEST_GCDUMP_ORACLE_H
#define PP_TEST_GCDUMP_ORACLE_H

#include <stddef.h>
#include <jansson.h>

/* $PP_TESTDATA/name (malloc'ed), or NULL when PP_TESTDATA is unset. */
char *gco_data_path(const char *name);
/* 1 if the file exists. */
int gco_exists(const char *path);
/* The *.gcdump files in $PP_TESTDATA, sorted, malloc'ed full paths; returns
 * the count (0 if none or no PP_TESTDATA). Free with gco_free_list. */
size_t gco_list_gcdumps(char ***out);
void gco_free_list(char **list, size_t n);
/* foo.gcdump -> foo.oracle.json loaded, or NULL if absent. */
json_t *gco_oracle_for(const char *gcdump_path);

#endif
