/* Heap-graph analysis shared by the gcdump and gcdump-diff plugins. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "heap_common.h"

void
hc_snapshot_view(const pp_heap_snapshot *in, pp_heap_snapshot *out)
{
    size_t n = in->struct_size < sizeof(*out) ? in->struct_size : sizeof(*out);
    memset(out, 0, sizeof(*out));
    memcpy(out, in, n);
    out->struct_size = sizeof(*out);
    /* Without both, a node has no shape to read (records.h). */
    if (!out->shape_type || !out->shape_size || (!out->node_shape16 && !out->node_shape32))
        out->shape_count = 0;
}

/* Nodes counted by shape, then folded by key: one pass over 2 bytes a
 * node and no per-node size load. Integer sums, so equal to a per-node
 * loop. PP_OK or PP_ENOMEM. */
static int
keys_by_shape(const pp_heap_snapshot *s, hc_keys *k, uint64_t *total)
{
    uint64_t *per = calloc(s->shape_count, sizeof(uint64_t));
    if (!per)
        return PP_ENOMEM;
    if (s->node_shape16)
        for (uint32_t i = 0; i < s->node_count; i++)
            per[s->node_shape16[i]]++;
    else
        for (uint32_t i = 0; i < s->node_count; i++)
            per[s->node_shape32[i]]++;
    *total = 0;
    for (uint32_t sh = 0; sh < s->shape_count; sh++) {
        uint32_t key = k->type_key[s->shape_type[sh]];
        uint64_t b = per[sh] * s->shape_size[sh];
        k->count[key] += per[sh];
        k->bytes[key] += b;
        *total += b;
    }
    free(per);
    return PP_OK;
}

int
hc_stack_reserve(void **st, size_t *cap, size_t sp, size_t elem)
{
    if (sp < *cap)
        return PP_OK;
    size_t ncap = *cap ? *cap * 2 : 4096;
    void *g = realloc(*st, ncap * elem);
    if (!g)
        return PP_ENOMEM;
    *st = g;
    *cap = ncap;
    return PP_OK;
}

/* Below this, a thread costs more than the half it takes (~50 us to
 * start); the tests set 0 to run the halves side by side on tiny graphs. */
uint64_t hc_split_min = 1u << 16;

typedef struct run2_arg {
    void (*fn)(void *);
    void *arg;
} run2_arg;

static void *
run2_main(void *p)
{
    run2_arg *r = p;
    r->fn(r->arg);
    return NULL;
}

void
hc_run2(void (*fn)(void *), void *a, void *b, uint64_t work)
{
    run2_arg rb = { fn, b };
    pthread_t tid;
    int threaded = work >= hc_split_min && pthread_create(&tid, NULL, run2_main, &rb) == 0;
    fn(a);
    if (threaded)
        pthread_join(tid, NULL);
    else
        fn(b);
}

void
hc_rpo_decode(const uint8_t *coded, uint32_t nr, uint8_t *rpo, unsigned width)
{
    uint32_t w = 0;
    size_t k = 0;
    for (uint32_t i = 0; i < nr; i++) {
        w = hc_delta_get(coded, &k, w);
        uint8_t *p = rpo + (size_t)i * width;
        p[0] = (uint8_t)w;
        p[1] = (uint8_t)(w >> 8);
        p[2] = (uint8_t)(w >> 16);
        if (width == 4)
            p[3] = (uint8_t)(w >> 24);
    }
}

size_t
hc_base_name_len(const char *name)
{
    /* dotnet-gcdump's GetObjectSizeSuffix: " (Bytes > 1K|10K|100K|1M|10M|100M)". */
    size_t n = strlen(name);
    static const char pre[] = " (Bytes > ";
    size_t pl = sizeof(pre) - 1;
    if (n < pl + 3 || name[n - 1] != ')')
        return n;
    size_t i = n - 1;
    if (name[i - 1] != 'K' && name[i - 1] != 'M')
        return n;
    i -= 1;
    size_t digits_end = i;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == digits_end || i < pl || memcmp(name + i - pl, pre, pl) != 0)
        return n;
    return i - pl;
}

typedef struct key_sort {
    const char *name;
    size_t len;
    uint32_t type;
} key_sort;

static int
cmp_key(const void *a, const void *b)
{
    const key_sort *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, m);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->type < y->type ? -1 : x->type > y->type;
}

void
hc_keys_free(hc_keys *k)
{
    if (k->name)
        for (uint32_t i = 0; i < k->nkeys; i++)
            free(k->name[i]);
    free(k->name);
    free(k->type_key);
    free(k->count);
    free(k->bytes);
    free(k->scount);
    free(k->sbytes);
    memset(k, 0, sizeof(*k));
}

int
hc_keys_build(const pp_heap_snapshot *s, int merge_buckets, hc_keys *k)
{
    memset(k, 0, sizeof(*k));
    uint32_t t = s->type_count;
    key_sort *ks = malloc((t ? t : 1) * sizeof(*ks));
    k->type_key = malloc((t ? t : 1) * sizeof(uint32_t));
    k->name = calloc(t ? t : 1, sizeof(char *));
    if (!ks || !k->type_key || !k->name)
        goto oom;
    for (uint32_t i = 0; i < t; i++) {
        const char *nm = s->types[i].name ? s->types[i].name : "";
        ks[i] = (key_sort){ nm, merge_buckets ? hc_base_name_len(nm) : strlen(nm), i };
    }
    qsort(ks, t, sizeof(*ks), cmp_key);
    for (uint32_t i = 0; i < t; i++) {
        if (i == 0 || ks[i].len != ks[i - 1].len ||
            memcmp(ks[i].name, ks[i - 1].name, ks[i].len) != 0) {
            char *copy = malloc(ks[i].len + 1);
            if (!copy)
                goto oom;
            memcpy(copy, ks[i].name, ks[i].len);
            copy[ks[i].len] = '\0';
            k->name[k->nkeys++] = copy;
        }
        k->type_key[ks[i].type] = k->nkeys - 1;
    }
    free(ks);
    ks = NULL;
    uint32_t nk = k->nkeys ? k->nkeys : 1;
    k->count = calloc(nk, sizeof(uint64_t));
    k->bytes = calloc(nk, sizeof(uint64_t));
    k->scount = calloc(nk, sizeof(double));
    k->sbytes = calloc(nk, sizeof(double));
    if (!k->count || !k->bytes || !k->scount || !k->sbytes)
        goto oom;
    if (!s->type_count_multiplier && !s->type_size_multiplier) {
        /* Unsampled: the scaled sums are the integer ones. Adding 1.0 and
         * exact u32 sizes in double stays exact while every partial sum
         * is below 2^53, which a total below 2^53 guarantees. */
        uint64_t total = 0;
        if (s->shape_count) {
            if (keys_by_shape(s, k, &total) != PP_OK)
                goto oom;
        } else {
            for (uint32_t i = 0; i < s->node_count; i++) {
                uint32_t key = k->type_key[s->node_type[i]];
                k->count[key]++;
                k->bytes[key] += s->node_size32[i];
                total += s->node_size32[i];
            }
        }
        if (total < ((uint64_t)1 << 53)) {
            for (uint32_t i = 0; i < k->nkeys; i++) {
                k->scount[i] = (double)k->count[i];
                k->sbytes[i] = (double)k->bytes[i];
            }
            return PP_OK;
        }
        memset(k->count, 0, nk * sizeof(uint64_t));
        memset(k->bytes, 0, nk * sizeof(uint64_t));
    }
    for (uint32_t i = 0; i < s->node_count; i++) {
        uint32_t ty, size;
        hc_node_type_size(s, i, &ty, &size);
        uint32_t key = k->type_key[ty];
        double cm = s->type_count_multiplier ? s->type_count_multiplier[ty] : 1.0;
        double sm = s->type_size_multiplier ? s->type_size_multiplier[ty] : cm;
        k->count[key]++;
        k->bytes[key] += size;
        k->scount[key] += cm;
        k->sbytes[key] += (double)size * sm;
    }
    return PP_OK;
oom:
    free(ks);
    hc_keys_free(k);
    return PP_ENOMEM;
}

uint32_t
hc_keys_find(const hc_keys *k, const char *name)
{
    uint32_t lo = 0, hi = k->nkeys;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(k->name[mid], name);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return HC_NONE;
}

void
hc_spare_put(hc_spare *sp, void *p, size_t bytes)
{
    for (int i = 0; i < 2; i++)
        if (!sp->buf[i]) {
            sp->buf[i] = p;
            sp->len[i] = bytes;
            return;
        }
    free(p);
}

void *
hc_spare_take(hc_spare *sp, size_t bytes)
{
    /* The smallest that fits. */
    int best = -1;
    for (int i = 0; i < 2; i++)
        if (sp->buf[i] && sp->len[i] >= bytes && (best < 0 || sp->len[i] < sp->len[best]))
            best = i;
    if (best < 0)
        return NULL;
    void *p = sp->buf[best];
    sp->buf[best] = NULL;
    sp->len[best] = 0;
    return p;
}

void
hc_spare_free(hc_spare *sp)
{
    for (int i = 0; i < 2; i++)
        free(sp->buf[i]);
    memset(sp, 0, sizeof(*sp));
}

int
hc_bfs_parents(const pp_heap_snapshot *s, uint32_t **parent_out)
{
    uint32_t *order, nreach;
    int rc = hc_bfs_order(s, parent_out, &order, &nreach);

    if (rc == PP_OK)
        free(order);
    return rc;
}

static void
append(char *buf, size_t size, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + 1 >= size)
        return;
    if (n > size - 1 - *len)
        n = size - 1 - *len;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

#define HC_PATH_SHOW 16

/* A node's label in a path. dotnet-gcdump names a static root
 * "[static var T.f]" with T the type the runtime logged for it: CoreCLR's
 * GCBulkRootStaticVar carries the held object's type, not the declaring
 * class, so when T is the type of the next node the class is unknown
 * ("[static field ?.f]"); a T that differs (writers that record the
 * declaring class) names it ("[static T.f]"). */
static void
append_label(char *buf, size_t size, size_t *len, const pp_heap_snapshot *s, uint32_t node,
             uint32_t next, int *unknown_class)
{
    const char *name = s->types[hc_node_type(s, node)].name;
    static const char pre[] = "[static var ";
    size_t n = strlen(name), pl = sizeof(pre) - 1;
    if (n > pl + 1 && memcmp(name, pre, pl) == 0 && name[n - 1] == ']' && next != HC_NONE) {
        const char *inner = name + pl, *end = name + n - 1, *dot = NULL;
        for (const char *p = inner; p < end; p++)
            if (*p == '.')
                dot = p;
        if (dot && dot > inner && dot + 1 < end) {
            const char *held = s->types[hc_node_type(s, next)].name;
            size_t hl = hc_base_name_len(held), tl = (size_t)(dot - inner);
            char label[1024];
            if (hl == tl && memcmp(held, inner, tl) == 0) {
                snprintf(label, sizeof(label), "[static field ?.%.*s]", (int)(end - dot - 1),
                         dot + 1);
                if (unknown_class)
                    *unknown_class = 1;
            } else {
                snprintf(label, sizeof(label), "[static %.*s]", (int)(end - inner), inner);
            }
            append(buf, size, len, label);
            return;
        }
    }
    append(buf, size, len, name);
}

uint32_t
hc_path_string_ex(const pp_heap_snapshot *s, const uint32_t *parent, uint32_t node, char *buf,
                  size_t size, int *unknown_class)
{
    if (size)
        buf[0] = '\0';
    if (node >= s->node_count || parent[node] == HC_NONE)
        return 0;
    uint32_t steps[HC_PATH_SHOW];
    uint32_t depth = 0, v = node;
    /* Walk up once to count, keeping the node end; the root end is walked
     * again below. Paths are BFS-shortest, so depth <= node count. */
    for (;;) {
        if (depth < HC_PATH_SHOW / 2)
            steps[depth] = v;
        depth++;
        if (v == s->root)
            break;
        v = parent[v];
    }
    uint32_t head_n = depth <= HC_PATH_SHOW ? depth : HC_PATH_SHOW / 2;
    uint32_t tail_n = depth <= HC_PATH_SHOW ? 0 : HC_PATH_SHOW / 2;
    /* Root end: the last head_n nodes walking up from node. */
    uint32_t root_end[HC_PATH_SHOW];
    uint32_t skip = depth - head_n;
    v = node;
    for (uint32_t i = 0; i < skip; i++)
        v = parent[v];
    for (uint32_t i = 0; i < head_n; i++) {
        root_end[head_n - 1 - i] = v;
        v = parent[v];
    }
    size_t len = 0;
    for (uint32_t i = 0; i < head_n; i++) {
        if (i)
            append(buf, size, &len, " > ");
        append_label(buf, size, &len, s, root_end[i], i + 1 < head_n ? root_end[i + 1] : HC_NONE,
                     unknown_class);
    }
    if (tail_n) {
        append(buf, size, &len, " > ...");
        for (uint32_t i = tail_n; i-- > 0;) {
            append(buf, size, &len, " > ");
            append_label(buf, size, &len, s, steps[i], i > 0 ? steps[i - 1] : HC_NONE,
                         unknown_class);
        }
    }
    return depth;
}

uint32_t
hc_path_string(const pp_heap_snapshot *s, const uint32_t *parent, uint32_t node, char *buf,
               size_t size)
{
    return hc_path_string_ex(s, parent, node, buf, size, NULL);
}

int
hc_bfs_order(const pp_heap_snapshot *s, uint32_t **parent_out, uint32_t **order_out,
             uint32_t *nreach)
{
    uint32_t n = s->node_count;
    uint32_t *parent = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t *queue = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!parent || !queue) {
        free(parent);
        free(queue);
        return PP_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        parent[i] = HC_NONE;
    uint32_t head = 0, tail = 0;
    parent[s->root] = s->root;
    queue[tail++] = s->root;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint64_t e = s->edge_start32[v]; e < s->edge_start32[v + 1]; e++) {
            uint32_t w = s->edges[e];
            if (parent[w] == HC_NONE) {
                parent[w] = v;
                queue[tail++] = w;
            }
        }
    }
    *parent_out = parent;
    *order_out = queue;
    *nreach = tail;
    return PP_OK;
}

void
hc_growth_free(hc_growth *g)
{
    free(g->pkey);
    free(g->ppar);
    free(g->mass);
    memset(g, 0, sizeof(*g));
}

int
hc_growth_init(const pp_heap_snapshot *s, const uint32_t *parent, const uint32_t *order,
               uint32_t nreach, const uint32_t *type_key, hc_growth *g)
{
    memset(g, 0, sizeof(*g));
    size_t nr = nreach ? nreach : 1;
    g->order = order;
    g->nreach = nreach;
    g->pkey = malloc(nr * sizeof(uint32_t));
    g->ppar = malloc(nr * sizeof(uint32_t));
    g->mass = malloc(nr * sizeof(uint64_t));
    if (!g->pkey || !g->ppar || !g->mass) {
        hc_growth_free(g);
        return PP_ENOMEM;
    }
    /* A BFS queue holds each node's tree children together, in the order
     * its edges first reached them, and parents are dequeued in order: the
     * parent positions never decrease, so one forward scan finds them. */
    uint32_t j = 0;
    for (uint32_t i = 0; i < nreach; i++) {
        uint32_t v = order[i];
        g->pkey[i] = type_key[hc_node_type(s, v)];
        if (i == 0) {
            g->ppar[0] = 0;
            continue;
        }
        while (order[j] != parent[v])
            j++;
        g->ppar[i] = j;
    }
    return PP_OK;
}

/* First position >= 1 whose parent position is >= p (ppar is sorted). */
static uint32_t
first_child_at(const hc_growth *g, uint32_t p)
{
    uint32_t lo = 1, hi = g->nreach;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->ppar[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t
hc_growth_path_end(const pp_heap_snapshot *s, hc_growth *g, uint32_t key)
{
    /* Bytes of the key's instances in each node's shortest-path subtree,
     * leaves first (reverse BFS order), by BFS position: both arrays are
     * read in order and the parent's slot is near the last one written. */
    uint32_t nr = g->nreach;
    uint64_t *mass = g->mass;
    if (!nr)
        return HC_NONE;
    memset(mass, 0, (size_t)nr * sizeof(uint64_t));
    for (uint32_t i = nr; i-- > 0;) {
        if (g->pkey[i] == key) {
            uint64_t sz = hc_node_size(s, g->order[i]);
            mass[i] += sz ? sz : 1;
        }
        if (i)
            mass[g->ppar[i]] += mass[i];
    }
    if (mass[0] == 0)
        return HC_NONE;
    /* Down from the root, always into the child holding the most (the
     * first such in edge order), until the first instance of the key (the
     * outermost: it holds the rest). */
    uint32_t p = 0;
    while (g->pkey[p] != key) {
        uint32_t best = HC_NONE;
        for (uint32_t i = first_child_at(g, p); i < nr && g->ppar[i] == p; i++)
            if (mass[i] > 0 && (best == HC_NONE || mass[i] > mass[best]))
                best = i;
        if (best == HC_NONE)
            break;
        p = best;
    }
    return g->order[p];
}

int
hc_reachable_from_named(const pp_heap_snapshot *s, const char *root_name, uint8_t **mark_out,
                        uint32_t *nstarts)
{
    uint32_t n = s->node_count;
    uint8_t *mark = calloc(n ? n : 1, 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!mark || !queue) {
        free(mark);
        free(queue);
        return PP_ENOMEM;
    }
    uint32_t head = 0, tail = 0, starts = 0;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(s->types[hc_node_type(s, i)].name, root_name) == 0) {
            mark[i] = 1;
            queue[tail++] = i;
            starts++;
        }
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint64_t e = s->edge_start32[v]; e < s->edge_start32[v + 1]; e++) {
            uint32_t w = s->edges[e];
            if (!mark[w]) {
                mark[w] = 1;
                queue[tail++] = w;
            }
        }
    }
    free(queue);
    *mark_out = mark;
    *nstarts = starts;
    return PP_OK;
}
