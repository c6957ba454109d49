/* Heap-graph analysis shared by the gcdump and gcdump-diff plugins. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "heap_common.h"

size_t hc_base_name_len(const char *name)
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

static int cmp_key(const void *a, const void *b)
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

void hc_keys_free(hc_keys *k)
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

int hc_keys_build(const pp_heap_snapshot *s, int merge_buckets, hc_keys *k)
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
    for (uint32_t i = 0; i < s->node_count; i++) {
        uint32_t ty = s->node_type[i];
        uint32_t key = k->type_key[ty];
        double cm = s->type_count_multiplier ? s->type_count_multiplier[ty] : 1.0;
        double sm = s->type_size_multiplier ? s->type_size_multiplier[ty] : cm;
        k->count[key]++;
        k->bytes[key] += s->node_size[i];
        k->scount[key] += cm;
        k->sbytes[key] += (double)s->node_size[i] * sm;
    }
    return PP_OK;
oom:
    free(ks);
    hc_keys_free(k);
    return PP_ENOMEM;
}

uint32_t hc_keys_find(const hc_keys *k, const char *name)
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

void hc_dom_free(hc_dom *d)
{
    free(d->idom);
    free(d->retained);
    free(d->rpo);
    memset(d, 0, sizeof(*d));
}

/* Semi-NCA (Georgiadis; Lengauer-Tarjan's semidominators, then nearest
 * common ancestors on the DFS tree): O(m log n), iterative throughout since
 * heaps hold linked lists millions deep. All work arrays are indexed by DFS
 * preorder number, which also keeps memory access sequential. */
int hc_dominators(const pp_heap_snapshot *s, hc_dom *d)
{
    memset(d, 0, sizeof(*d));
    uint32_t n = s->node_count;
    int rc = PP_ENOMEM;
    uint32_t *pre = NULL, *parent = NULL, *semi = NULL, *label = NULL, *anc = NULL,
             *idom = NULL, *stack = NULL, *pred_start = NULL, *preds = NULL;
    uint64_t *next = NULL;
    d->n = n;
    d->idom = malloc((n ? n : 1) * sizeof(uint32_t));
    d->retained = calloc(n ? n : 1, sizeof(uint64_t));
    d->rpo = malloc((n ? n : 1) * sizeof(uint32_t));     /* preorder -> node */
    pre = malloc((n ? n : 1) * sizeof(uint32_t));        /* node -> preorder */
    parent = malloc((n ? n : 1) * sizeof(uint32_t));
    stack = malloc((n ? n : 1) * sizeof(uint32_t));
    next = malloc((n ? n : 1) * sizeof(uint64_t));
    if (!d->idom || !d->retained || !d->rpo || !pre || !parent || !stack || !next)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        pre[i] = HC_NONE;
        d->idom[i] = HC_NONE;
    }
    /* Depth-first preorder with DFS-tree parents. */
    uint32_t sp = 0, count = 0;
    pre[s->root] = count;
    d->rpo[count] = s->root;
    parent[count++] = HC_NONE;
    stack[sp++] = s->root;
    next[s->root] = s->edge_start[s->root];
    while (sp) {
        uint32_t v = stack[sp - 1];
        if (next[v] < s->edge_start[v + 1]) {
            uint32_t w = s->edges[next[v]++];
            if (pre[w] == HC_NONE) {
                pre[w] = count;
                d->rpo[count] = w;
                parent[count++] = pre[v];
                next[w] = s->edge_start[w];
                stack[sp++] = w;
            }
        } else {
            sp--;
        }
    }
    uint32_t nr = count;
    d->nreach = nr;
    /* Predecessors, in preorder numbers, of reachable nodes. */
    pred_start = calloc((size_t)nr + 1, sizeof(uint32_t));
    if (!pred_start)
        goto out;
    uint64_t npred = 0;
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t v = d->rpo[i];
        for (uint64_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++) {
            pred_start[pre[s->edges[e]] + 1]++;
            npred++;
        }
    }
    for (uint32_t i = 0; i < nr; i++)
        pred_start[i + 1] += pred_start[i];
    preds = malloc((npred ? npred : 1) * sizeof(uint32_t));
    semi = malloc((nr ? nr : 1) * sizeof(uint32_t));
    label = malloc((nr ? nr : 1) * sizeof(uint32_t));
    anc = malloc((nr ? nr : 1) * sizeof(uint32_t));
    idom = malloc((nr ? nr : 1) * sizeof(uint32_t));
    if (!preds || !semi || !label || !anc || !idom)
        goto out;
    memcpy(stack, pred_start, nr * sizeof(uint32_t));     /* fill cursor */
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t v = d->rpo[i];
        for (uint64_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++)
            preds[stack[pre[s->edges[e]]]++] = i;
    }
    for (uint32_t i = 0; i < nr; i++) {
        semi[i] = label[i] = i;
        anc[i] = HC_NONE;
    }
    /* Semidominators, in reverse preorder, with link-eval path compression. */
    for (uint32_t w = nr; w-- > 1;) {
        for (uint32_t k = pred_start[w]; k < pred_start[w + 1]; k++) {
            uint32_t v = preds[k], u = v;
            if (anc[v] != HC_NONE) {
                /* Compress v's ancestor chain, root end first. */
                uint32_t x = v, top = 0;
                while (anc[anc[x]] != HC_NONE) {
                    stack[top++] = x;
                    x = anc[x];
                }
                while (top) {
                    uint32_t y = stack[--top], a = anc[y];
                    if (semi[label[a]] < semi[label[y]])
                        label[y] = label[a];
                    anc[y] = anc[a];
                }
                u = label[v];
            }
            if (semi[u] < semi[w])
                semi[w] = semi[u];
        }
        anc[w] = parent[w];
    }
    /* Immediate dominators: the nearest ancestor not below the semidominator. */
    idom[0] = 0;
    for (uint32_t w = 1; w < nr; w++) {
        uint32_t x = parent[w];
        while (x > semi[w])
            x = idom[x];
        idom[w] = x;
    }
    for (uint32_t w = 0; w < nr; w++)
        d->idom[d->rpo[w]] = d->rpo[idom[w]];
    /* Subtree sizes: a dominator precedes what it dominates in preorder. */
    for (uint32_t w = nr; w-- > 0;) {
        uint32_t v = d->rpo[w];
        d->retained[v] += s->node_size[v];
        if (w)
            d->retained[d->rpo[idom[w]]] += d->retained[v];
    }
    rc = PP_OK;
out:
    free(pre);
    free(parent);
    free(semi);
    free(label);
    free(anc);
    free(idom);
    free(stack);
    free(next);
    free(pred_start);
    free(preds);
    if (rc != PP_OK)
        hc_dom_free(d);
    return rc;
}

int hc_retained_by_key(const pp_heap_snapshot *s, const hc_dom *d, const hc_keys *k,
                       uint64_t *out)
{
    uint32_t n = s->node_count;
    memset(out, 0, k->nkeys * sizeof(uint64_t));
    /* Dominator-tree children in CSR, then a depth-first walk keeping how
     * many ancestors of each key are open. */
    uint32_t *cstart = calloc((size_t)n + 1, sizeof(uint32_t));
    uint32_t *child = malloc((d->nreach ? d->nreach : 1) * sizeof(uint32_t));
    uint32_t *cursor = malloc((size_t)n * sizeof(uint32_t) + 1);
    uint32_t *open = calloc(k->nkeys ? k->nkeys : 1, sizeof(uint32_t));
    uint32_t *stack = malloc((d->nreach ? d->nreach : 1) * sizeof(uint32_t));
    if (!cstart || !child || !cursor || !open || !stack) {
        free(cstart);
        free(child);
        free(cursor);
        free(open);
        free(stack);
        return PP_ENOMEM;
    }
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t v = d->rpo[i];
        if (v != s->root)
            cstart[d->idom[v] + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        cstart[i + 1] += cstart[i];
    memcpy(cursor, cstart, n * sizeof(uint32_t));
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t v = d->rpo[i];
        if (v != s->root)
            child[cursor[d->idom[v]]++] = v;
    }
    memcpy(cursor, cstart, n * sizeof(uint32_t));
    uint32_t sp = 0;
    stack[sp++] = s->root;
    {
        uint32_t key = k->type_key[s->node_type[s->root]];
        out[key] += d->retained[s->root];
        open[key]++;
    }
    while (sp) {
        uint32_t v = stack[sp - 1];
        if (cursor[v] < cstart[v + 1]) {
            uint32_t w = child[cursor[v]++];
            uint32_t key = k->type_key[s->node_type[w]];
            if (open[key] == 0)
                out[key] += d->retained[w];
            open[key]++;
            stack[sp++] = w;
        } else {
            open[k->type_key[s->node_type[v]]]--;
            sp--;
        }
    }
    free(cstart);
    free(child);
    free(cursor);
    free(open);
    free(stack);
    return PP_OK;
}

int hc_bfs_parents(const pp_heap_snapshot *s, uint32_t **parent_out)
{
    uint32_t *order, nreach;
    int rc = hc_bfs_order(s, parent_out, &order, &nreach);

    if (rc == PP_OK)
        free(order);
    return rc;
}

static void append(char *buf, size_t size, size_t *len, const char *s)
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
static void append_label(char *buf, size_t size, size_t *len, const pp_heap_snapshot *s,
                         uint32_t node, uint32_t next, int *unknown_class)
{
    const char *name = s->types[s->node_type[node]].name;
    static const char pre[] = "[static var ";
    size_t n = strlen(name), pl = sizeof(pre) - 1;
    if (n > pl + 1 && memcmp(name, pre, pl) == 0 && name[n - 1] == ']' && next != HC_NONE) {
        const char *inner = name + pl, *end = name + n - 1, *dot = NULL;
        for (const char *p = inner; p < end; p++)
            if (*p == '.')
                dot = p;
        if (dot && dot > inner && dot + 1 < end) {
            const char *held = s->types[s->node_type[next]].name;
            size_t hl = hc_base_name_len(held), tl = (size_t)(dot - inner);
            char label[1024];
            if (hl == tl && memcmp(held, inner, tl) == 0) {
                snprintf(label, sizeof(label), "[static field ?.%.*s]", (int)(end - dot - 1), dot + 1);
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

uint32_t hc_path_string_ex(const pp_heap_snapshot *s, const uint32_t *parent, uint32_t node,
                           char *buf, size_t size, int *unknown_class)
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

uint32_t hc_path_string(const pp_heap_snapshot *s, const uint32_t *parent, uint32_t node,
                        char *buf, size_t size)
{
    return hc_path_string_ex(s, parent, node, buf, size, NULL);
}

int hc_bfs_order(const pp_heap_snapshot *s, uint32_t **parent_out, uint32_t **order_out,
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
        for (uint64_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++) {
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

uint32_t hc_growth_path_end(const pp_heap_snapshot *s, const uint32_t *parent,
                            const uint32_t *order, uint32_t nreach, const uint32_t *type_key,
                            uint32_t key, uint64_t *mass)
{
    /* Bytes of the key's instances in each node's shortest-path subtree,
     * leaves first (reverse BFS order). */
    for (uint32_t i = 0; i < nreach; i++)
        mass[order[i]] = 0;
    for (uint32_t i = nreach; i-- > 0;) {
        uint32_t v = order[i];
        if (type_key[s->node_type[v]] == key)
            mass[v] += s->node_size[v] ? s->node_size[v] : 1;
        if (v != s->root)
            mass[parent[v]] += mass[v];
    }
    if (mass[s->root] == 0)
        return HC_NONE;
    /* Down from the root, always into the child holding the most, until
     * the first instance of the key (the outermost: it holds the rest). */
    uint32_t v = s->root;
    while (type_key[s->node_type[v]] != key) {
        uint32_t best = HC_NONE;
        for (uint64_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++) {
            uint32_t w = s->edges[e];
            if (w != s->root && parent[w] == v && mass[w] > 0 &&
                (best == HC_NONE || mass[w] > mass[best]))
                best = w;
        }
        if (best == HC_NONE)
            break;
        v = best;
    }
    return v;
}

int hc_reachable_from_named(const pp_heap_snapshot *s, const char *root_name,
                            uint8_t **mark_out, uint32_t *nstarts)
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
        if (strcmp(s->types[s->node_type[i]].name, root_name) == 0) {
            mark[i] = 1;
            queue[tail++] = i;
            starts++;
        }
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint64_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++) {
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
