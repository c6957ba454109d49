/* plugins/common: frame -> module and where its fix lands (modules.h). */
#include "modules.h"

#include <stdlib.h>
#include <string.h>

void
pp_pc_modules_init(pp_pc_modules *m, const pp_host_api *host)
{
    memset(m, 0, sizeof *m);
    m->host = host;
    m->on = host != NULL && (host->host_features & PP_HOST_SYM_MODULE) != 0 &&
            PP_HOST_HAS(host, trace_symbolize) && host->trace_symbolize != NULL;
}

void
pp_pc_modules_free(pp_pc_modules *m)
{
    for (uint32_t i = 0; i < m->names.count && m->cls != NULL; i++) {
        free(m->cls[i]);
        free(m->paths[i]);
        free(m->whys[i]);
    }
    free(m->cls);
    free(m->paths);
    free(m->whys);
    free(m->used);
    pp_pc_strtab_free(&m->names);
    pp_pc_u64map_free(&m->by_ip);
    memset(m, 0, sizeof *m);
}

static int
grow(pp_pc_modules *m, uint32_t need)
{
    if (need <= m->cap)
        return PP_OK;
    uint32_t cap = m->cap ? m->cap * 2 : 16;
    while (cap < need)
        cap *= 2;
    char **c = realloc(m->cls, cap * sizeof *c);
    if (c)
        m->cls = c;
    char **p = realloc(m->paths, cap * sizeof *p);
    if (p)
        m->paths = p;
    char **w = realloc(m->whys, cap * sizeof *w);
    if (w)
        m->whys = w;
    uint8_t *u = realloc(m->used, cap);
    if (u)
        m->used = u;
    if (!c || !p || !w || !u)
        return PP_ENOMEM;
    m->cap = cap;
    return PP_OK;
}

/* Intern a module: name and its facts, once. */
static int
add(pp_pc_modules *m, const char *name, const char *cls, const char *path, const char *why,
    uint32_t *id)
{
    uint32_t before = m->names.count;
    if (pp_pc_strtab_intern(&m->names, name, strlen(name), id) != PP_OK ||
        grow(m, m->names.count) != PP_OK)
        return PP_ENOMEM;
    if (m->names.count == before)
        return PP_OK;
    m->cls[*id] = strdup(cls);
    m->paths[*id] = strdup(path);
    m->whys[*id] = strdup(why);
    m->used[*id] = 0;
    if (!m->cls[*id] || !m->paths[*id] || !m->whys[*id])
        return PP_ENOMEM;
    return PP_OK;
}

int
pp_pc_modules_of(pp_pc_modules *m, const pp_trace_source *src, uint64_t ip, uint32_t *mod)
{
    uint32_t id;

    *mod = 0;
    if (m->names.count == 0 &&
        add(m, "", "unknown", "", "no module: the trace has no module rundown", &id) != PP_OK)
        return PP_ENOMEM;
    if (!m->on || src == NULL)
        return PP_OK;
    if (pp_pc_u64map_get(&m->by_ip, ip, mod))
        return PP_OK;
    const pp_host_api *h = m->host;
    const char *name = h->trace_symbolize(src, ip, PP_SYM_MODULE);
    if (name == NULL || name[0] == '\0')
        id = 0;
    else if (add(m, name, h->trace_symbolize(src, ip, PP_SYM_MODULE_CLASS),
                 h->trace_symbolize(src, ip, PP_SYM_MODULE_PATH),
                 h->trace_symbolize(src, ip, PP_SYM_MODULE_WHY), &id) != PP_OK)
        return PP_ENOMEM;
    *mod = id;
    return pp_pc_u64map_put(&m->by_ip, ip, id);
}

const char *
pp_pc_modules_name(const pp_pc_modules *m, uint32_t mod)
{
    return mod < m->names.count ? pp_pc_strtab_get(&m->names, mod) : "";
}

const char *
pp_pc_modules_class(const pp_pc_modules *m, uint32_t mod)
{
    return mod < m->names.count ? m->cls[mod] : "unknown";
}

int
pp_pc_modules_is_app(const pp_pc_modules *m, uint32_t mod)
{
    return mod > 0 && mod < m->names.count && strcmp(m->cls[mod], "application") == 0;
}

void
pp_pc_modules_use(pp_pc_modules *m, uint32_t mod)
{
    if (mod > 0 && mod < m->names.count)
        m->used[mod] = 1;
}

const pp_column pp_pc_modules_columns[] = {
    { "module", PP_COL_STRING, 0 },
    { "class", PP_COL_STRING, 0 },
    { "path", PP_COL_STRING, 0 },
    { "why", PP_COL_STRING, 0 },
    { NULL, 0, 0 },
};

int
pp_pc_modules_emit(const pp_pc_modules *m, pp_ctx *ctx)
{
    uint32_t any = 0;

    for (uint32_t i = 1; i < m->names.count; i++)
        any += m->used[i];
    if (any == 0)
        return PP_OK;
    pp_table *t = m->host->table_new(ctx, "modules", 4, pp_pc_modules_columns, 1);
    if (!t)
        return PP_ENOMEM;
    for (uint32_t i = 1; i < m->names.count; i++) {
        if (!m->used[i])
            continue;
        pp_cell c[4] = { pp_cell_str(pp_pc_strtab_get(&m->names, i)), pp_cell_str(m->cls[i]),
                         pp_cell_str(m->paths[i]), pp_cell_str(m->whys[i]) };
        int rc = m->host->table_row(t, c);
        if (rc != PP_OK)
            return rc;
    }
    return PP_OK;
}
