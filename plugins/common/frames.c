/* plugins/common: frame naming and classification (see frames.h). */
#include "frames.h"
#include "modules.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
pp_pc_prefixes_load(const pp_host_api *host, const pp_options *opts, const char *name,
                    pp_pc_prefixes *p, pp_error *err)
{
    p->items = NULL;
    p->count = 0;
    uint32_t n = 0;
    int rc = host->opt_list_count(opts, name, &n);
    if (rc == PP_ENOTFOUND || (rc == PP_OK && n == 0))
        return PP_OK;
    if (rc != PP_OK) {
        host->error_set(err, PP_EINVAL, "option '%s': expected a list of strings", name);
        return PP_EINVAL;
    }
    p->items = calloc(n, sizeof *p->items);
    if (!p->items) {
        host->error_set(err, PP_ENOMEM, "option '%s': out of memory", name);
        return PP_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *s = NULL;
        if (host->opt_list_item(opts, name, i, &s) != PP_OK || !s) {
            host->error_set(err, PP_EINVAL, "option '%s': item %u is not a string", name, i + 1);
            pp_pc_prefixes_free(p);
            return PP_EINVAL;
        }
        if (*s)
            p->items[p->count++] = s;
    }
    return PP_OK;
}

void
pp_pc_prefixes_free(pp_pc_prefixes *p)
{
    free(p->items);
    p->items = NULL;
    p->count = 0;
}

int
pp_pc_prefixes_match(const pp_pc_prefixes *p, const char *name)
{
    for (uint32_t i = 0; i < p->count; i++)
        if (strncmp(name, p->items[i], strlen(p->items[i])) == 0)
            return 1;
    return 0;
}

int
pp_pc_frame_unresolved(const char *name)
{
    return name[0] == '\0' || name[0] == '?' || strstr(name, "!?") != NULL;
}

int
pp_pc_frame_user_method(const char *name, char *out, size_t size)
{
    /* The first "<Ident>" with a non-empty identifier names the method;
     * "<>c" (the lambda cache class) has none. */
    for (const char *p = strchr(name, '<'); p != NULL; p = strchr(p + 1, '<')) {
        const char *q = strchr(p + 1, '>');
        size_t plen = (size_t)(p - name);

        if (q == NULL)
            return 0;
        if (q == p + 1 || plen == 0)
            continue;
        /* Declaring type: the text before, without the trailing '.' or '+'
         * and without a nested "+<>c..." closure class. */
        while (plen > 0 && (name[plen - 1] == '.' || name[plen - 1] == '+'))
            plen--;
        for (size_t i = plen; i > 0; i--)
            if (name[i - 1] == '+' && name[i] == '<') {
                plen = i - 1;
                break;
            }
        if (plen == 0 || (size_t)snprintf(out, size, "%.*s.%.*s", (int)plen, name, (int)(q - p - 1),
                                          p + 1) >= size)
            return 0;
        return 1;
    }
    return 0;
}

void
pp_pc_symcache_init(pp_pc_symcache *c, const pp_host_api *host, pp_pc_strtab *names)
{
    memset(c, 0, sizeof *c);
    c->host = host;
    c->names = names;
}

void
pp_pc_symcache_free(pp_pc_symcache *c)
{
    pp_pc_u64map_free(&c->ip_to_name);
    if (c->mods)
        pp_pc_modules_free(c->mods);
    free(c->mods);
    free(c->name_mod);
    c->mods = NULL;
    c->name_mod = NULL;
}

int
pp_pc_symcache_track_modules(pp_pc_symcache *c)
{
    if (c->mods)
        return PP_OK;
    c->mods = malloc(sizeof *c->mods);
    if (!c->mods)
        return PP_ENOMEM;
    pp_pc_modules_init(c->mods, c->host);
    return PP_OK;
}

const char *
pp_pc_symcache_module(pp_pc_symcache *c, const char *name)
{
    uint32_t id;
    if (!c->mods || !pp_pc_strtab_find(c->names, name, strlen(name), &id) || id >= c->name_mod_cap)
        return "";
    pp_pc_modules_use(c->mods, c->name_mod[id]);
    return pp_pc_modules_name(c->mods, c->name_mod[id]);
}

/* Note the module of ip for name id (a name keeps its first known one). */
static int
note_module(pp_pc_symcache *c, const pp_trace_source *src, uint64_t ip, uint32_t id)
{
    if (id >= c->name_mod_cap) {
        uint32_t cap = c->name_mod_cap ? c->name_mod_cap : 256;
        while (cap <= id)
            cap *= 2;
        uint32_t *m = realloc(c->name_mod, cap * sizeof *m);
        if (!m)
            return PP_ENOMEM;
        memset(m + c->name_mod_cap, 0, (cap - c->name_mod_cap) * sizeof *m);
        c->name_mod = m;
        c->name_mod_cap = cap;
    }
    return c->name_mod[id] ? PP_OK : pp_pc_modules_of(c->mods, src, ip, &c->name_mod[id]);
}

int
pp_pc_symcache_name(pp_pc_symcache *c, const pp_trace_source *src, uint64_t ip, uint32_t *id)
{
    if (pp_pc_u64map_get(&c->ip_to_name, ip, id))
        return PP_OK;
    const char *name = NULL;
    char buf[32];
    if (src && PP_HOST_HAS(c->host, trace_symbolize) && c->host->trace_symbolize)
        name = c->host->trace_symbolize(src, ip, 0);
    if (!name || !*name) {
        snprintf(buf, sizeof buf, "?!0x%" PRIx64, ip);
        name = buf;
    }
    int rc = pp_pc_strtab_intern(c->names, name, strlen(name), id);
    if (rc == PP_OK && c->mods && c->mods->on)
        rc = note_module(c, src, ip, *id);
    if (rc != PP_OK)
        return rc;
    return pp_pc_u64map_put(&c->ip_to_name, ip, *id);
}
