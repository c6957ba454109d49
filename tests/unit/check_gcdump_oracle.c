/* Test helper: fixture discovery and oracle loading (gcdump_oracle.h). */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_gcdump_oracle.h"

char *
gco_data_path(const char *name)
{
    const char *dir = getenv("PP_TESTDATA");
    if (!dir || !*dir)
        return NULL;
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

int
gco_exists(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t
gco_list_gcdumps(char ***out)
{
    *out = NULL;
    const char *dir = getenv("PP_TESTDATA");
    if (!dir)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0, cap = 0;
    char **list = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 7, ".gcdump") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            list = realloc(list, cap * sizeof(*list));
            if (!list)
                abort();
        }
        list[n++] = gco_data_path(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(list, n, sizeof(*list), cmp_str);
    *out = list;
    return n;
}

void
gco_free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

json_t *
gco_oracle_for(const char *gcdump_path)
{
    size_t len = strlen(gcdump_path);
    if (len < 7)
        return NULL;
    char *p = malloc(len + 16);
    if (!p)
        return NULL;
    memcpy(p, gcdump_path, len - 7);
    strcpy(p + len - 7, ".oracle.json");
    json_t *j = gco_exists(p) ? json_load_file(p, 0, NULL) : NULL;
    free(p);
    return j;
}
