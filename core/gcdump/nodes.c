/* The node table and node blob of a Graphs.MemoryGraph (graph.c reads the
 * rest): each record's type, size, child count and children, into shapes
 * and CSR edges, one pass per record; a long table in two halves at once.
 *
 * Why two halves: the decode is a fifth of a retained=true run on the
 * bench heap (7.9 M nodes), all of it before any analysis can start, with
 * the second core doing only the file's hash. The halves are cut by node
 * index (at the node half way into the blob: split_at()): each record
 * stands alone (its children are deltas from its own index), so the
 * second half needs from the first only where its edges start, and which
 * shape indices the first half's shapes took. It decodes into its own
 * edge buffer and shape table, with edge offsets from 0, and the merge (in
 * two parts at once) shifts them, copies the edges behind the first half's
 * and renumbers its shapes (shapes first seen in the second half get the
 * next indices, in the order the second half first saw them: the serial
 * order).
 * Any failure in either half, or a merge the file's bounds refuse, throws
 * both away and decodes the whole table serially, so every error, offset
 * and message is the serial decode's. */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"

/* A node record's header (type/size word, explicit size, child count),
 * validated; *p moves past it. The checks and messages of the first of
 * the two passes the decoder used to make. */
static int
node_header(pp_fs *fs, const pp_gcdump *d, uint32_t i, size_t blob_at, uint32_t off,
            const uint8_t **pp, const uint8_t *blob_end, uint32_t *type, int32_t *size,
            int32_t *nchild)
{
    const uint8_t *p = *pp;
    int32_t tas;
    size_t used = pp_fs_cint(p, blob_end, &tas);
    if (!used || tas < 0)
        return pp_fs_fail(fs, PP_EFORMAT, blob_at + off,
                          "node %u: bad type/size word in its record", (unsigned)i);
    p += used;
    *type = (uint32_t)tas >> 1;
    if (*type >= d->snap.type_count)
        return pp_fs_fail(fs, PP_EFORMAT, blob_at + off,
                          "node %u: type index %u, but the type table has %u entries", (unsigned)i,
                          (unsigned)*type, (unsigned)d->snap.type_count);
    if (tas & 1) {
        if (!(used = pp_fs_cint(p, blob_end, size)) || *size < 0)
            return pp_fs_fail(fs, PP_EFORMAT, (size_t)(p - fs->data), "node %u: bad explicit size",
                              (unsigned)i);
        p += used;
    } else {
        *size = d->type_size[*type];
        if (*size < 0)
            return pp_fs_fail(fs, PP_EFORMAT, blob_at + off,
                              "node %u: implicit size, but type %u has no size", (unsigned)i,
                              (unsigned)*type);
    }
    if (!(used = pp_fs_cint(p, blob_end, nchild)) || *nchild < 0 ||
        (size_t)*nchild > (size_t)(blob_end - p - used))
        return pp_fs_fail(fs, PP_EFORMAT, (size_t)(p - fs->data), "node %u: bad child count",
                          (unsigned)i);
    *pp = p + used;
    return PP_OK;
}

static uint32_t
table_entry(const pp_fs *fs, size_t entry)
{
    const uint8_t *e = fs->data + entry;
    return (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
}

#define NO_BAD_CHILD UINT32_MAX
/* Decoded pages go back to the page cache in steps of this many bytes.
 * About two steps of each stream (the table, the blob) stay mapped beside
 * the snapshot: with 8 MB steps retained=false peaked 20 MB above the
 * bench heap's snapshot, with 1 MB (the hash's step) 7 MB. */
#define RELEASE_STEP ((size_t)1 << 20)

/* Nodes [i0, i1) of the table: shapes (indexed from i0), edges (from 0)
 * and d->edge_start32[i0, i1) (from 0). */
typedef struct node_range {
    pp_fs *fs;
    const pp_gcdump *d;
    size_t table_at, blob_at;
    uint32_t n, blob_len; /* the whole table's */
    uint32_t i0, i1;
    pp_shapes *shapes;
    uint32_t *edges;         /* [blob_len] reserved */
    uint32_t *edge_start;    /* d->edge_start32 */
    uint64_t nedges, sum;    /* out: edges kept, bytes */
    uint64_t dangling;       /* out: children past the node table, dropped */
    uint32_t dangling_nodes; /* out: nodes with at least one */
    uint64_t claimed;        /* out: children the records claim, kept or not */
} node_range;

/* Every child delta takes at least one blob byte, so the edges fit in
 * blob_len slots (reserved; pages are touched only as far as written).
 * Damage is reported as the two separate passes did: a bad header of any
 * node before a bad child of an earlier one, so once a child is bad only
 * the headers of the rest are checked. */
static int
decode_range(node_range *r)
{
    pp_fs *fs = r->fs;
    const pp_gcdump *d = r->d;
    const uint8_t *blob = fs->data + r->blob_at, *blob_end = blob + r->blob_len;
    uint64_t total_edges = 0, sum = 0;
    /* Records follow the table's order in every writer seen, so what lies
     * behind the current record is done with (a record placed earlier is
     * read again from the page cache: slower, same bytes). Behind means
     * behind the lowest record of the last stretch of nodes, not the
     * current one: dotnet-gcdump writes the root (node 0) last, and
     * following it kept the whole blob resident (51 MB of the bench heap). */
    size_t released_table = r->table_at + 4 * (size_t)r->i0, released_blob = r->blob_at;
    if (r->i0) {
        uint32_t first = table_entry(fs, released_table);
        released_blob += first < r->blob_len ? first : r->blob_len;
    }
    uint32_t lowest = UINT32_MAX;
    uint64_t claimed = 0, dangling = 0; /* children the records claim, past the table */
    uint32_t dangling_nodes = 0;
    /* The first bad child: node, child index, where it points, offset. */
    uint32_t bad_node = NO_BAD_CHILD;
    uint64_t bad_k = 0;
    int64_t bad_child = 0;
    size_t bad_at = 0;
    for (uint32_t i = r->i0; i < r->i1; i++) {
        size_t entry = r->table_at + 4 * (size_t)i;
        uint32_t off = table_entry(fs, entry);
        if (off >= r->blob_len)
            return pp_fs_fail(fs, PP_EFORMAT, entry,
                              "node %u: record offset %u is outside the %u-byte node blob",
                              (unsigned)i, (unsigned)off, (unsigned)r->blob_len);
        if (d->map && ((i - r->i0) & 0xffff) == 0) {
            if (entry - released_table >= RELEASE_STEP) {
                pp_gcdump_map_release(d->map, released_table, entry);
                released_table = entry;
            }
            if (lowest != UINT32_MAX && r->blob_at + lowest > released_blob + RELEASE_STEP) {
                pp_gcdump_map_release(d->map, released_blob, r->blob_at + lowest);
                released_blob = r->blob_at + lowest;
            }
            lowest = UINT32_MAX;
        }
        if (off < lowest)
            lowest = off;
        const uint8_t *p = blob + off;
        uint32_t type = 0;
        int32_t size = 0, nchild = 0;
        int rc = node_header(fs, d, i, r->blob_at, off, &p, blob_end, &type, &size, &nchild);
        if (rc != PP_OK)
            return rc;
        if (pp_shapes_set(r->shapes, i - r->i0, type, (uint32_t)size) != PP_OK)
            return pp_fs_fail(fs, PP_ENOMEM, entry, "out of memory for the node shapes");
        sum += (uint64_t)size;
        r->edge_start[i] = (uint32_t)total_edges;
        claimed += (uint64_t)nchild;
        /* Defined nodes own disjoint records, so more edges than blob
         * bytes means records overlap: refuse rather than write past. */
        if (claimed > r->blob_len)
            return pp_fs_fail(fs, PP_EFORMAT, entry,
                              "node %u: records claim more edges than the node blob can hold",
                              (unsigned)i);
        if (bad_node != NO_BAD_CHILD)
            continue;
        /* A child past the table is a node the writer cut (a node limit)
         * or never wrote: the edge is dropped and counted, the rest of
         * the graph stands (gcdump warns, gcdump.incomplete). A child
         * before node 0 or an unreadable delta is damage: refused. */
        uint64_t past = 0;
        for (int32_t c = 0; c < nchild; c++) {
            int32_t delta = 0;
            size_t used = pp_fs_cint(p, blob_end, &delta);
            int64_t child = (int64_t)i + delta;
            if (!used || child < 0) {
                bad_node = i;
                child = used ? child : 0;
                bad_k = (uint64_t)c;
                bad_child = child;
                bad_at = (size_t)(p - fs->data);
                break;
            }
            p += used;
            if (child >= (int64_t)r->n)
                past++;
            else
                r->edges[total_edges++] = (uint32_t)child;
        }
        dangling += past;
        dangling_nodes += past != 0;
    }
    if (bad_node != NO_BAD_CHILD && bad_child < 0)
        return pp_fs_fail(fs, PP_EFORMAT, bad_at,
                          "node %u: child %" PRIu64 " points at node %" PRId64 ", before node 0",
                          (unsigned)bad_node, bad_k, bad_child);
    if (bad_node != NO_BAD_CHILD)
        return pp_fs_fail(fs, PP_EFORMAT, bad_at, "node %u: child %" PRIu64 " is not a number",
                          (unsigned)bad_node, bad_k);
    r->nedges = total_edges;
    r->dangling = dangling;
    r->dangling_nodes = dangling_nodes;
    r->claimed = claimed;
    r->sum = sum;
    return PP_OK;
}

/* A half of a split decode: its own cursor (so its error is its own) and,
 * over a mapping, its own guard: a file that shrinks under it fails this
 * half, and the serial decode then reports it. */
typedef struct half {
    node_range r;
    pp_fs fs;
    pp_error err;
    int rc;
    pthread_t tid;
} half;

static int
half_run(void *p)
{
    return decode_range(&((half *)p)->r);
}

static void
half_decode(half *h)
{
    const pp_gcdump *d = h->r.d;
    h->err = (pp_error)PP_ERROR_INIT;
    h->rc = d->map ? pp_gcdump_map_run(d->map, d->map_name, half_run, h, &h->err) : half_run(h);
}

static void *
half_main(void *p)
{
    half_decode(p);
    return NULL;
}

/* A part of the merge of a split decode: the second half's nodes [i0, i1)
 * get their shapes renumbered and their edge offsets shifted by base, and
 * its edges [e0, e1) move behind the first half's. */
typedef struct merge_job {
    pp_gcdump *d;
    const pp_shapes *local;
    const uint32_t *map;
    const uint32_t *edges_b;
    uint32_t mid, i0, i1;
    uint64_t base, e0, e1;
} merge_job;

static void
merge_run(const merge_job *j)
{
    pp_gcdump *d = j->d;
    uint32_t base = (uint32_t)j->base;
    for (uint32_t i = j->i0; i < j->i1; i++) {
        uint32_t sh = j->map[pp_shapes_of(j->local, i - j->mid)];
        if (d->shapes.node16)
            d->shapes.node16[i] = (uint16_t)sh;
        else
            d->shapes.node32[i] = sh;
        d->edge_start32[i] += base;
    }
    memcpy(d->edges + j->base + j->e0, j->edges_b + j->e0, (j->e1 - j->e0) * sizeof(uint32_t));
}

static void *
merge_main(void *p)
{
    merge_run(p);
    return NULL;
}

/* Nodes [mid, n) in a thread beside [0, mid) here, then merged into d.
 * PP_OK, or not (nothing said: the caller decodes serially; d->shapes and
 * d->edges may have changed). */
static int
decode_split(pp_fs *fs, pp_gcdump *d, size_t table_at, uint32_t n, size_t blob_at,
             uint32_t blob_len, uint32_t mid)
{
    half h[2];
    pp_shapes local;
    memset(h, 0, sizeof(h));
    int rc = pp_shapes_init(&local, n - mid, d->shape16_max);
    uint32_t *edges_b = malloc((size_t)blob_len * sizeof(uint32_t));
    for (int k = 0; k < 2; k++) {
        h[k].fs = *fs; /* shares the file's type records, read only */
        h[k].fs.err = &h[k].err;
        h[k].r = (node_range){ &h[k].fs,
                               d,
                               table_at,
                               blob_at,
                               n,
                               blob_len,
                               k ? mid : 0,
                               k ? n : mid,
                               k ? &local : &d->shapes,
                               k ? edges_b : d->edges,
                               d->edge_start32,
                               0,
                               0,
                               0,
                               0,
                               0 };
    }
    int threaded = rc == PP_OK && edges_b && pthread_create(&h[1].tid, NULL, half_main, &h[1]) == 0;
    if (threaded) {
        half_decode(&h[0]);
        pthread_join(h[1].tid, NULL);
    }
    /* Each half checks its own claims against the blob; the serial
     * decode checks the whole table's (a fuzzer found halves that each
     * fit and together overlap). */
    rc = threaded && h[0].rc == PP_OK && h[1].rc == PP_OK &&
                 h[0].r.claimed + h[1].r.claimed <= blob_len ?
             PP_OK :
             PP_EFORMAT;
    uint32_t *map = rc == PP_OK ? malloc((local.count ? local.count : 1) * sizeof(uint32_t)) : NULL;
    if (rc == PP_OK && !map)
        rc = PP_ENOMEM;
    /* The second half's shapes after the first's, in its first-seen order
     * (pp_shapes_find widens d's indices past 16 bits as the serial decode
     * would, keeping the mid it has). */
    for (uint32_t sh = 0; rc == PP_OK && sh < local.count; sh++)
        rc = pp_shapes_find(&d->shapes, local.type[sh], local.size[sh], mid, &map[sh]);
    if (rc == PP_OK) {
        uint64_t base = h[0].r.nedges, nb = h[1].r.nedges;
        /* The merge in two parts at once: alone it was 41-48 ms of this
         * thread on a 21 M-object heap, with the second core idle (the
         * copy's fresh pages, 15 k faults, are most of it). */
        uint32_t cut = mid + (n - mid) / 2;
        uint64_t ecut = nb / 2;
        merge_job ma = { d, &local, map, edges_b, mid, mid, cut, base, 0, ecut },
                  mb = { d, &local, map, edges_b, mid, cut, n, base, ecut, nb };
        pthread_t tid;
        int two = pthread_create(&tid, NULL, merge_main, &mb) == 0;
        merge_run(&ma);
        if (two)
            pthread_join(tid, NULL);
        else
            merge_run(&mb);
        d->edge_start32[n] = (uint32_t)(base + nb);
        d->info.sum_node_sizes = h[0].r.sum + h[1].r.sum;
        d->info.dangling_edges = h[0].r.dangling + h[1].r.dangling;
        d->info.dangling_nodes = h[0].r.dangling_nodes + h[1].r.dangling_nodes;
    }
    free(map);
    free(edges_b);
    pp_shapes_free(&local);
    return rc;
}

/* Where the halves meet: the node whose record starts half way into the
 * blob, if the records follow the table's order (every writer seen; a
 * binary search over the offsets), kept within the middle half of the
 * nodes. The decode's time follows the bytes (the children) more than the
 * nodes: cut at n / 2, the first half of the 21 M-object bench heap held
 * 58 % of the edges and took 1.3x the second's time. Any cut gives the
 * same arrays. */
static uint32_t
split_at(const pp_fs *fs, size_t table_at, uint32_t n, uint32_t blob_len)
{
    uint32_t lo = n / 4 ? n / 4 : 1, hi = n - n / 4 < n ? n - n / 4 : n - 1, want = blob_len / 2;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (table_entry(fs, table_at + 4 * (size_t)m) < want)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

int
pp_gcdump_decode_nodes(pp_fs *fs, pp_gcdump *d, size_t table_at, uint32_t n, size_t blob_at,
                       uint32_t blob_len)
{
    d->edges = malloc((size_t)blob_len * sizeof(uint32_t));
    if (!d->edges)
        return pp_fs_fail(fs, PP_ENOMEM, blob_at, "out of memory for %u edges", (unsigned)blob_len);
    int split = d->split_nodes >= 2 && n >= d->split_nodes;
    int rc = split ? decode_split(fs, d, table_at, n, blob_at, blob_len,
                                  split_at(fs, table_at, n, blob_len)) :
                     PP_EFORMAT;
    d->decoded_split = rc == PP_OK;
    if (rc != PP_OK) {
        if (split) {
            pp_shapes_free(&d->shapes); /* start again from nothing */
            if (pp_shapes_init(&d->shapes, n, d->shape16_max) != PP_OK)
                return pp_fs_fail(fs, PP_ENOMEM, table_at, "out of memory for %u nodes",
                                  (unsigned)n);
        }
        node_range r = { fs,         d,        table_at,        blob_at, n, blob_len, 0, n,
                         &d->shapes, d->edges, d->edge_start32, 0,       0, 0,        0, 0 };
        if ((rc = decode_range(&r)) != PP_OK)
            return rc;
        d->edge_start32[n] = (uint32_t)r.nedges;
        d->info.sum_node_sizes = r.sum;
        d->info.dangling_edges = r.dangling;
        d->info.dangling_nodes = r.dangling_nodes;
    }
    d->snap.dangling_edges = d->info.dangling_edges;
    d->snap.dangling_nodes = d->info.dangling_nodes;
    uint64_t total_edges = d->edge_start32[n];
    pp_shapes_done(&d->shapes);
    uint32_t *shrunk = realloc(d->edges, total_edges ? total_edges * sizeof(uint32_t) : 1);
    if (shrunk)
        d->edges = shrunk;
    d->snap.edge_count = total_edges;
    return PP_OK;
}
