/* Dominator tree and retained sizes of a heap graph (heap_common.h):
 * semi-NCA over the graph's own CSR, in DFS preorder numbers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "heap_common.h"

void hc_dom_free(hc_dom *d)
{
    free(d->idom);
    free(d->retained);
    free(d->rpo);
    free(d->ipre);
    memset(d, 0, sizeof(*d));
}

/* A stack that grows as deep as the walk goes: heaps hold lists millions
 * deep, but most walks stay shallow, so only what is pushed is touched. */
typedef struct frame {
    uint64_t cur, end;           /* next edge (or child) and the end of the range */
    uint32_t pre;                /* preorder number of the node being scanned */
} frame;

static int push(frame **st, size_t *cap, size_t sp, frame f)
{
    if (sp == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4096;
        frame *g = realloc(*st, ncap * sizeof(*g));
        if (!g)
            return PP_ENOMEM;
        *st = g;
        *cap = ncap;
    }
    (*st)[sp] = f;
    return PP_OK;
}

/* Depth-first preorder from the root with DFS-tree parents. On the way,
 * epre[e] gets the preorder number of edge e's target and cnt[t + 2] the
 * number of predecessors of preorder t (see fill_preds). Returns the
 * number of reachable nodes, or 0 on ENOMEM. */
static uint32_t dfs(const pp_heap_snapshot *s, uint32_t *pre, uint32_t *rpo, uint32_t *parent,
                    uint32_t *epre, uint32_t *cnt)
{
    frame *st = NULL;
    size_t cap = 0, sp = 0;
    uint32_t count = 0;
    pre[s->root] = count;
    rpo[count] = s->root;
    parent[count++] = HC_NONE;
    if (push(&st, &cap, sp++, (frame){ s->edge_start[s->root], s->edge_start[s->root + 1], 0 }))
        return 0;
    while (sp) {
        frame *f = &st[sp - 1];
        if (f->cur == f->end) {
            sp--;
            continue;
        }
        uint64_t e = f->cur++;
        /* The walk is bound by the latency of pre[]: ask for the next
         * sibling's slot while this one is looked at. */
        if (e + 1 < f->end)
            __builtin_prefetch(&pre[s->edges[e + 1]]);
        uint32_t w = s->edges[e], pw = pre[w];
        if (pw == HC_NONE) {
            pw = pre[w] = count;
            rpo[count] = w;
            parent[count++] = f->pre;
            if (push(&st, &cap, sp++, (frame){ s->edge_start[w], s->edge_start[w + 1], pw })) {
                free(st);
                return 0;
            }
        }
        epre[e] = pw;
        cnt[(size_t)pw + 2]++;
    }
    free(st);
    return count;
}

/* Predecessor lists in preorder numbers: cnt held counts at [t + 2]; after
 * the prefix sum cnt[t + 1] is where t's list starts, and filling moves it
 * to where t + 1's starts, so cnt ends as the list starts [0 .. nr]. The
 * lists are filled in node order (all reads sequential); semidominators
 * take a minimum over them, so their order does not matter. */
static void fill_preds(const pp_heap_snapshot *s, const uint32_t *pre, const uint32_t *epre,
                       uint32_t nr, uint32_t *cnt, uint32_t *preds)
{
    for (uint32_t i = 0; i + 2 <= nr + 1; i++)
        cnt[i + 2] += cnt[i + 1];
    for (uint32_t v = 0; v < s->node_count; v++) {
        uint32_t pv = pre[v];
        if (pv == HC_NONE)
            continue;
        uint64_t end = s->edge_start[v + 1];
        for (uint64_t e = s->edge_start[v]; e < end; e++) {
            /* The counters are hit at random: fetch ahead along epre,
             * which is defined everywhere (HC_NONE off the reachable). */
            if (e + 8 < s->edge_count && epre[e + 8] != HC_NONE)
                __builtin_prefetch(&cnt[(size_t)epre[e + 8] + 1], 1);
            preds[cnt[(size_t)epre[e] + 1]++] = pv;
        }
    }
}

/* Semidominators in reverse preorder, with link-eval path compression.
 * lab[y] is the least semidominator on y's compressed path (what the
 * textbook reaches through label[y]); only the value is ever needed. */
static int semidominators(uint32_t nr, const uint32_t *pstart, const uint32_t *preds,
                          const uint32_t *parent, uint32_t *semi, uint32_t *lab, uint32_t *anc)
{
    uint32_t *path = malloc((nr ? nr : 1) * sizeof(uint32_t));   /* touched as deep as used */
    if (!path)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < nr; i++) {
        semi[i] = lab[i] = i;
        anc[i] = HC_NONE;
    }
    for (uint32_t w = nr; w-- > 1;) {
        uint32_t sw = w;
        for (uint32_t k = pstart[w]; k < pstart[w + 1]; k++) {
            if (k + 4 < pstart[w + 1])
                __builtin_prefetch(&anc[preds[k + 4]]);
            uint32_t v = preds[k], val = v;
            if (anc[v] != HC_NONE) {
                uint32_t x = v, top = 0;
                while (anc[anc[x]] != HC_NONE) {
                    path[top++] = x;
                    x = anc[x];
                }
                while (top) {
                    uint32_t y = path[--top], a = anc[y];
                    if (lab[a] < lab[y])
                        lab[y] = lab[a];
                    anc[y] = anc[a];
                }
                val = lab[v];
            }
            if (val < sw)
                sw = val;
        }
        semi[w] = lab[w] = sw;
        anc[w] = parent[w];
    }
    free(path);
    return PP_OK;
}

/* Semi-NCA (Georgiadis; Lengauer-Tarjan's semidominators, then nearest
 * common ancestors on the DFS tree): O(m log n), iterative throughout.
 * Work arrays are indexed by preorder number and freed as soon as the next
 * phase no longer needs them, so the peak is about 24 bytes a node plus 4
 * an edge beyond the outputs. */
int hc_dominators(const pp_heap_snapshot *s, hc_dom *d)
{
    memset(d, 0, sizeof(*d));
    uint32_t n = s->node_count, nr;
    size_t nn = n ? n : 1;
    uint64_t m = s->edge_count;
    uint32_t *pre = NULL, *epre = NULL, *cnt = NULL, *preds = NULL, *semi = NULL, *lab = NULL,
             *anc = NULL, *parent = NULL;
    d->n = n;
    d->rpo = hc_huge(malloc(nn * sizeof(uint32_t)), nn * sizeof(uint32_t));              /* preorder -> node */
    parent = hc_huge(malloc(nn * sizeof(uint32_t)), nn * sizeof(uint32_t));              /* later: idom, by preorder */
    pre = hc_huge(malloc(nn * sizeof(uint32_t)), nn * sizeof(uint32_t));                 /* node -> preorder */
    cnt = hc_huge(calloc(nn + 2, sizeof(uint32_t)), (nn + 2) * sizeof(uint32_t));
    epre = hc_huge(malloc((m ? m : 1) * sizeof(uint32_t)), (m ? m : 1) * sizeof(uint32_t));
    if (!d->rpo || !parent || !pre || !cnt || !epre)
        goto oom;
    memset(pre, 0xff, nn * sizeof(uint32_t));
    memset(epre, 0xff, (m ? m : 1) * sizeof(uint32_t));
    if (!(nr = dfs(s, pre, d->rpo, parent, epre, cnt)))
        goto oom;
    d->nreach = nr;
    uint64_t npred = 0;
    for (uint32_t i = 0; i < nr; i++)
        npred += cnt[i + 2];
    preds = hc_huge(malloc((npred ? npred : 1) * sizeof(uint32_t)), (npred ? npred : 1) * sizeof(uint32_t));
    if (!preds)
        goto oom;
    fill_preds(s, pre, epre, nr, cnt, preds);
    /* Fresh pages cost a fault and a clear each: the next phases take over
     * the buffers of the last (pre holds semi, then the node-indexed idom;
     * epre holds lab when it is large enough). */
    semi = pre;
    pre = NULL;
    if (m >= nr && (lab = realloc(epre, (size_t)(nr ? nr : 1) * sizeof(uint32_t))) != NULL) {
        epre = NULL;             /* shrunk in place: the tail goes back */
    } else {
        free(epre);
        epre = NULL;
        lab = hc_huge(malloc((size_t)(nr ? nr : 1) * sizeof(uint32_t)), (size_t)nr * sizeof(uint32_t));
    }
    anc = hc_huge(malloc((size_t)(nr ? nr : 1) * sizeof(uint32_t)), (size_t)nr * sizeof(uint32_t));
    if (!lab || !anc || semidominators(nr, cnt, preds, parent, semi, lab, anc) != PP_OK)
        goto oom;
    free(preds);
    free(cnt);
    free(lab);
    free(anc);
    preds = cnt = lab = anc = NULL;
    /* Immediate dominators: the nearest DFS ancestor not below the
     * semidominator; parent[w] becomes idom[w] in place (x < w is done). */
    parent[0] = 0;
    for (uint32_t w = 1; w < nr; w++) {
        uint32_t x = parent[w];
        while (x > semi[w])
            x = parent[x];
        parent[w] = x;
    }
    d->idom = semi;
    semi = NULL;
    d->ipre = parent;
    parent = NULL;
    d->retained = hc_huge(calloc(nn, sizeof(uint64_t)), nn * sizeof(uint64_t));
    if (!d->retained)
        goto oom;
    memset(d->idom, 0xff, nn * sizeof(uint32_t));
    for (uint32_t w = 0; w < nr; w++)
        d->idom[d->rpo[w]] = d->rpo[d->ipre[w]];
    /* Subtree sizes: a dominator precedes what it dominates in preorder. */
    for (uint32_t w = nr; w-- > 0;) {
        uint32_t v = d->rpo[w];
        d->retained[v] += s->node_size[v];
        if (w)
            d->retained[d->rpo[d->ipre[w]]] += d->retained[v];
    }
    return PP_OK;
oom:
    free(pre);
    free(epre);
    free(cnt);
    free(preds);
    free(semi);
    free(lab);
    free(anc);
    free(parent);
    hc_dom_free(d);
    return PP_ENOMEM;
}

int hc_retained_by_key(const pp_heap_snapshot *s, const hc_dom *d, const hc_keys *k,
                       uint64_t *out)
{
    uint32_t nr = d->nreach;
    memset(out, 0, k->nkeys * sizeof(uint64_t));
    /* Dominator-tree children in CSR over preorder numbers (the same count,
     * prefix, fill as fill_preds), then a depth-first walk keeping how many
     * ancestors of each key are open. */
    uint32_t *cstart = hc_huge(calloc((size_t)nr + 2, sizeof(uint32_t)), ((size_t)nr + 2) * sizeof(uint32_t));
    uint32_t *child = hc_huge(malloc((nr ? nr : 1) * sizeof(uint32_t)), (size_t)nr * sizeof(uint32_t));
    uint32_t *open = calloc(k->nkeys ? k->nkeys : 1, sizeof(uint32_t));
    frame *st = NULL;
    size_t cap = 0, sp = 0;
    int rc = PP_ENOMEM;
    if (!cstart || !child || !open)
        goto out;
    for (uint32_t w = 1; w < nr; w++)
        cstart[(size_t)d->ipre[w] + 2]++;
    for (uint32_t i = 0; i + 2 <= nr + 1; i++)
        cstart[i + 2] += cstart[i + 1];
    for (uint32_t w = 1; w < nr; w++)
        child[cstart[(size_t)d->ipre[w] + 1]++] = w;
#define KEY_OF(p) k->type_key[s->node_type[d->rpo[p]]]
    if (nr) {
        uint32_t key = KEY_OF(0);
        out[key] += d->retained[d->rpo[0]];
        open[key]++;
        if (push(&st, &cap, sp++, (frame){ cstart[0], cstart[1], 0 }))
            goto out;
    }
    while (sp) {
        frame *f = &st[sp - 1];
        if (f->cur == f->end) {
            open[KEY_OF(f->pre)]--;
            sp--;
            continue;
        }
        uint32_t c = child[f->cur++];
        uint32_t key = KEY_OF(c);
        if (!open[key])
            out[key] += d->retained[d->rpo[c]];
        open[key]++;
        if (push(&st, &cap, sp++, (frame){ cstart[c], cstart[(size_t)c + 1], c }))
            goto out;
    }
#undef KEY_OF
    rc = PP_OK;
out:
    free(st);
    free(cstart);
    free(child);
    free(open);
    return rc;
}
