/* The counters-csv sample store: every sample, grouped by provider, counter
 * and tags, kept so finish() can take percentiles and regressions. Memory is
 * 16 bytes per sample plus the names: bounded by the input. */
#include <stdlib.h>
#include <string.h>

#include "counters_csv.h"

static uint64_t
hash3(const char *a, const char *b, const char *c)
{
    uint64_t h = UINT64_C(1469598103934665603);
    const char *parts[3] = { a, b, c };

    for (int i = 0; i < 3; i++) {
        for (const unsigned char *p = (const unsigned char *)parts[i]; *p; p++) {
            h ^= *p;
            h *= UINT64_C(1099511628211);
        }
        h ^= 0x1f;
        h *= UINT64_C(1099511628211);
    }
    return h;
}

static char *
dup_or_empty(const char *s)
{
    return strdup(s != NULL ? s : "");
}

static int
rehash(cc_store *st)
{
    size_t nslots = st->nslots ? st->nslots * 2 : 64;
    uint32_t *slots = calloc(nslots, sizeof *slots);

    if (slots == NULL)
        return PP_ENOMEM;
    for (size_t i = 0; i < st->n; i++) {
        cc_series *s = &st->s[i];
        size_t j = hash3(s->provider, s->name, s->tags) & (nslots - 1);
        while (slots[j] != 0)
            j = (j + 1) & (nslots - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(st->slots);
    st->slots = slots;
    st->nslots = nslots;
    return PP_OK;
}

static cc_series *
find_or_add(cc_store *st, const pp_counter_sample *smp)
{
    const char *prov = smp->provider ? smp->provider : "";
    const char *name = smp->name ? smp->name : "";
    const char *tags = smp->tags ? smp->tags : "";
    size_t j;
    cc_series *s;

    if (st->nslots == 0 || (st->n + 1) * 2 > st->nslots) {
        if (rehash(st) != PP_OK)
            return NULL;
    }
    j = hash3(prov, name, tags) & (st->nslots - 1);
    while (st->slots[j] != 0) {
        s = &st->s[st->slots[j] - 1];
        if (strcmp(s->provider, prov) == 0 && strcmp(s->name, name) == 0 &&
            strcmp(s->tags, tags) == 0)
            return s;
        j = (j + 1) & (st->nslots - 1);
    }
    if (st->n == UINT32_MAX - 1)
        return NULL;
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 32;
        cc_series *ns = realloc(st->s, cap * sizeof *ns);
        if (ns == NULL)
            return NULL;
        st->s = ns;
        st->cap = cap;
    }
    s = &st->s[st->n];
    memset(s, 0, sizeof *s);
    s->provider = dup_or_empty(prov);
    s->name = dup_or_empty(name);
    s->tags = dup_or_empty(tags);
    s->unit = dup_or_empty(smp->unit);
    s->quantity = smp->quantity != NULL ? strdup(smp->quantity) : NULL;
    s->counter_type = smp->counter_type;
    s->interval_s = 1;
    if (PP_HAS_FIELD(smp, pp_counter_sample, interval_s) && smp->interval_s > 0)
        s->interval_s = smp->interval_s;
    if (s->provider == NULL || s->name == NULL || s->tags == NULL || s->unit == NULL ||
        (smp->quantity != NULL && s->quantity == NULL)) {
        free(s->provider);
        free(s->name);
        free(s->tags);
        free(s->unit);
        free(s->quantity);
        return NULL;
    }
    st->slots[j] = (uint32_t)(st->n + 1);
    st->n++;
    return s;
}

int
cc_store_add(cc_store *st, const pp_counter_sample *smp)
{
    cc_series *s = find_or_add(st, smp);

    if (s == NULL)
        return PP_ENOMEM;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        cc_point *np = realloc(s->pts, cap * sizeof *np);
        if (np == NULL)
            return PP_ENOMEM;
        s->pts = np;
        s->cap = cap;
    }
    s->pts[s->n].t = smp->time_ns;
    s->pts[s->n].v = smp->value;
    s->n++;
    return PP_OK;
}

void
cc_store_free(cc_store *st)
{
    for (size_t i = 0; i < st->n; i++) {
        cc_series *s = &st->s[i];
        free(s->provider);
        free(s->name);
        free(s->tags);
        free(s->unit);
        free(s->quantity);
        free(s->pts);
    }
    free(st->s);
    free(st->slots);
    memset(st, 0, sizeof *st);
}
