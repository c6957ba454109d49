/* Regions of a V4/V5 .nettrace between sequence points (region.h): the
 * block index, a reader opened at a region, and the merge of its facts. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/region.h"

/* As blocks.c: a FastSerialization type name longer than this is not
 * nettrace (the index stops there; the region's reader reports it). */
#define IX_MAX_TYPE_NAME 64

static size_t
pread_some(int fd, uint8_t *buf, size_t n, uint64_t off)
{
    size_t got = 0;

    while (got < n) {
        ssize_t k = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    return got;
}

static int
ix_push(void *pp, size_t *n, size_t *cap, size_t elem, const void *v)
{
    void **p = pp;
    void *np = nt_grow(*p, cap, *n + 1, elem);

    if (!np)
        return -1;
    *p = np;
    memcpy((char *)np + *n * elem, v, elem);
    (*n)++;
    return 0;
}

int
nt_index_build(pp_trace_source *r, uint64_t until, nt_index *ix)
{
    uint8_t h[15 + IX_MAX_TYPE_NAME + 1 + 4];
    struct stat sb;
    uint64_t off = r->pos;

    memset(ix, 0, sizeof *ix);
    ix->first_events = UINT64_MAX;
    if (r->format != 4 || fstat(r->fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return PP_OK;
    uint64_t size = (uint64_t)sb.st_size;
    /* The same object framing nt_read_block checks; anything else ends the
     * index and is left to the reader of the last region. */
    for (;;) {
        size_t k = off < size ? pread_some(r->fd, h, sizeof h, off) : 0;
        if (k < 15 || h[0] != 5 || h[1] != 5 || h[2] != 1)
            break;
        uint32_t nlen = nt_rd32(h + 11);
        if (nlen == 0 || nlen > IX_MAX_TYPE_NAME || k < 15 + nlen + 1 + 4 || h[15 + nlen] != 6)
            break;
        int32_t bsize = (int32_t)nt_rd32(h + 15 + nlen + 1);
        if (bsize < 0)
            break;
        uint64_t boff = (off + 15 + nlen + 1 + 4 + 3) & ~(uint64_t)3;
        /* The end tag is not read here (a second pread per block, half
         * the index's cost): a wrong one fails that region's reader, and
         * the file is then read serially. */
        uint64_t end = boff + (uint64_t)bsize + 1;
        if (end > size)
            break;
        const char *tn = (const char *)h + 15;
        if (nlen == 13 && memcmp(tn, "MetadataBlock", 13) == 0) {
            if (ix_push(&ix->meta, &ix->nmeta, &ix->meta_cap, sizeof off, &off) < 0)
                goto oom;
        } else if (nlen == 10 && memcmp(tn, "EventBlock", 10) == 0) {
            if (ix->first_events == UINT64_MAX)
                ix->first_events = off;
        } else if (nlen == 7 && memcmp(tn, "SPBlock", 7) == 0) {
            struct nt_sp_at at = { off, end };
            if (ix_push(&ix->sp, &ix->nsp, &ix->sp_cap, sizeof at, &at) < 0)
                goto oom;
            if (off >= until)
                break; /* the last split needs nothing after it */
        }
        off = end;
    }
    return PP_OK;
oom:
    nt_index_free(ix);
    return PP_ENOMEM;
}

void
nt_index_free(nt_index *ix)
{
    free(ix->meta);
    free(ix->sp);
    memset(ix, 0, sizeof *ix);
}

void
nt_region_base_free(nt_region_base *b)
{
    free(b->seqs);
    b->seqs = NULL;
    b->nseqs = 0;
}

static int
snapshot(pp_trace_source *r, nt_region_base *b)
{
    const pp_u64map *m = &r->seq_by_thread;

    b->st = r->st;
    b->repeated = r->seqs.repeated_blocks;
    b->reordered = r->seqs.reordered_blocks;
    b->gaps = r->seqs.sequence_gaps;
    b->missing = r->seqs.missing_blocks;
    b->nmetas = r->nmetas;
    b->nseqs = 0;
    b->seqs = malloc((m->count + 1) * sizeof *b->seqs);
    if (!b->seqs)
        return PP_ENOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) {
            b->seqs[b->nseqs].thread = m->keys[i];
            b->seqs[b->nseqs].seq = m->vals[i];
            b->nseqs++;
        }
    return PP_OK;
}

int
nt_region_open(const char *path, const nt_index *ix, size_t sp, uint64_t stop,
               pp_trace_source **out, nt_region_base *base, pp_error *err)
{
    pp_trace_source *r;
    uint64_t start = ix->sp[sp].start;
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

    *out = NULL;
    memset(base, 0, sizeof *base);
    if (fd < 0) {
        pp_error_set(err, PP_EIO, "%s: cannot open: %s", path, strerror(errno));
        return PP_EIO;
    }
    rc = pp_nettrace_open_fd(fd, path, &r, err); /* owns fd */
    if (rc < 0)
        return rc;
    if (r->format != 4 || !r->seekable) {
        pp_nettrace_close(r);
        pp_error_set(err, PP_EINVAL, "%s: not a seekable V4/V5 trace", path);
        return PP_EINVAL;
    }
    /* Every metadata block before the region, in file order, as the serial
     * reader would have parsed them (ids are global in V4/V5). */
    for (size_t i = 0; i < ix->nmeta && ix->meta[i] < start; i++) {
        rc = nt_input_seek(r, ix->meta[i], err);
        if (rc == PP_OK)
            rc = nt_read_block(r, err);
        if (rc != 2) {
            pp_nettrace_close(r);
            return rc < 0 ? rc : PP_EFORMAT;
        }
    }
    uint64_t points = r->st.sequence_points;
    rc = nt_input_seek(r, start, err);
    if (rc == PP_OK)
        rc = nt_read_block(r, err);
    if (rc != 2 || r->st.sequence_points != points + 1) {
        pp_nettrace_close(r);
        if (rc >= 0)
            pp_error_set(err, PP_EFORMAT, "%s: no sequence point at byte %llu", path,
                         (unsigned long long)start);
        return rc < 0 ? rc : PP_EFORMAT;
    }
    rc = snapshot(r, base);
    if (rc < 0) {
        pp_nettrace_close(r);
        pp_error_set(err, rc, "out of memory");
        return rc;
    }
    r->seq_logging = 1;
    r->stop_at = stop;
    *out = r;
    return PP_OK;
}

/* The serial reader's verdict on a thread's first sighting in rk, given
 * the number the regions before left (nt_seq_check, nt_sequence_event):
 * 0 and the drops/gaps it adds, or 1 if it would have kept the old number. */
static int
replay_miss(const pp_u64map *seqs, const struct nt_seq_miss *m, uint64_t *drop, uint64_t *gaps)
{
    const uint64_t *last = pp_u64map_get(seqs, m->thread);
    if (!last) {
        /* The trace's first sighting: as nt_sequence_first. */
        uint32_t lost = m->from_sp ? m->seq : m->seq - 1;
        if (m->seq != 0 && lost != 0) {
            *drop += lost;
            (*gaps)++;
        }
        return 0;
    }
    if ((uint32_t)*last == 0)
        return 0;
    uint32_t prev = (uint32_t)*last;
    int32_t gap = (int32_t)(m->seq - (m->from_sp ? prev : prev + 1));
    if (gap < 0)
        return 1;
    *drop += (uint32_t)gap;
    if (gap > 0 && !m->from_sp)
        (*gaps)++;
    return 0;
}

static int
merge_seqs(pp_trace_source *r0, pp_trace_source *rk, const nt_region_base *b, uint64_t *drop,
           uint64_t *gaps)
{
    if (rk->seq_unsure)
        return 1;
    for (size_t i = 0; i < b->nseqs; i++) {
        const uint64_t *v = pp_u64map_get(&r0->seq_by_thread, b->seqs[i].thread);
        if (!v || *v != b->seqs[i].seq)
            return 1;
    }
    for (size_t i = 0; i < rk->nseq_log; i++)
        if (replay_miss(&r0->seq_by_thread, &rk->seq_log[i], drop, gaps))
            return 1;
    const pp_u64map *m = &rk->seq_by_thread;
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i] && pp_u64map_put(&r0->seq_by_thread, m->keys[i], m->vals[i]) < 0)
            return PP_ENOMEM;
    return 0;
}

static void
merge_stats(pp_trace_source *r0, const pp_trace_source *rk, const nt_region_base *b)
{
    pp_nettrace_stats *d = &r0->st;
    const pp_nettrace_stats *s = &rk->st, *o = &b->st;

    d->events += s->events - o->events;
    d->payload_bytes += s->payload_bytes - o->payload_bytes;
    d->blocks += s->blocks - o->blocks;
    d->stacks += s->stacks - o->stacks;
    d->metadata_entries += s->metadata_entries - o->metadata_entries;
    d->sequence_points += s->sequence_points - o->sequence_points;
    d->dropped_events += s->dropped_events - o->dropped_events;
    d->bytes = s->bytes;
    if (s->truncated) {
        d->truncated = 1;
        d->truncated_at = s->truncated_at;
    }
    r0->seqs.repeated_blocks += rk->seqs.repeated_blocks - b->repeated;
    r0->seqs.reordered_blocks += rk->seqs.reordered_blocks - b->reordered;
    r0->seqs.sequence_gaps += rk->seqs.sequence_gaps - b->gaps;
    r0->seqs.missing_blocks += rk->seqs.missing_blocks - b->missing;
    if (rk->have_time) {
        if (!r0->have_time) {
            r0->first_ns = rk->first_ns;
            r0->last_ns = rk->last_ns;
            r0->have_time = 1;
        } else {
            if (rk->first_ns < r0->first_ns)
                r0->first_ns = rk->first_ns;
            if (rk->last_ns > r0->last_ns)
                r0->last_ns = rk->last_ns;
        }
    }
    r0->v5_tags |= rk->v5_tags;
}

/* rk's own metadata entries move to r0 (its count rows point into them);
 * the ones it parsed before its region are copies and stay to be freed. */
static int
merge_rows(pp_trace_source *r0, pp_trace_source *rk, const nt_region_base *b)
{
    size_t own = rk->nmetas - b->nmetas;
    if (own > 0) {
        nt_meta **nm = nt_grow(r0->metas, &r0->metas_cap, r0->nmetas + own, sizeof *nm);
        if (!nm)
            return PP_ENOMEM;
        r0->metas = nm;
        memcpy(nm + r0->nmetas, rk->metas + b->nmetas, own * sizeof *nm);
        r0->nmetas += own;
        rk->nmetas = b->nmetas;
    }
    r0->last_meta = NULL;
    for (size_t i = 0; i < rk->ncounts; i++) {
        const nt_count *c = &rk->counts[i];
        size_t row = nt_count_row(r0, c->provider, c->name, c->event_id, c->version);
        if (row == SIZE_MAX)
            return PP_ENOMEM;
        r0->counts[row].count += c->count;
        r0->counts[row].payload_bytes += c->payload_bytes;
    }
    for (size_t i = 0; i < rk->npids; i++)
        if (nt_add_pid(r0, rk->pids[i]) < 0)
            return PP_ENOMEM;
    /* A method's strings are a file offset for either input mode
     * (symbols.c), so they stay valid in r0; seq is the definition order. */
    if (rk->nmethods == 0)
        return PP_OK;
    nt_method *m = nt_grow(r0->methods, &r0->methods_cap, r0->nmethods + rk->nmethods, sizeof *m);
    if (!m)
        return PP_ENOMEM;
    r0->methods = m;
    for (size_t i = 0; i < rk->nmethods; i++) {
        m[r0->nmethods] = rk->methods[i];
        m[r0->nmethods].seq = (uint32_t)r0->nmethods;
        r0->nmethods++;
    }
    return PP_OK;
}

/* rk's modules r0 has not met move to r0, in rk's order (modules.c keeps
 * a module's first naming: the load and the rundown name it alike). */
static int
merge_modules(pp_trace_source *r0, pp_trace_source *rk)
{
    for (size_t i = 0; i < rk->nmodules; i++) {
        nt_module *m = &rk->modules[i];
        if (pp_u64map_get(&r0->module_index, m->id) != NULL)
            continue;
        nt_module *nm = nt_grow(r0->modules, &r0->modules_cap, r0->nmodules + 1, sizeof *nm);
        if (!nm)
            return PP_ENOMEM;
        r0->modules = nm;
        if (pp_u64map_put(&r0->module_index, m->id, r0->nmodules) < 0)
            return PP_ENOMEM;
        nm[r0->nmodules++] = *m;
        m->path = m->name = m->pdb_build_path = NULL; /* r0's now */
    }
    return PP_OK;
}

/* rk's IL-to-native maps of methods r0 has no map of move to r0 (ilmap.c
 * keeps a method's first map). */
static int
merge_ilmaps(pp_trace_source *r0, const pp_trace_source *rk)
{
    for (size_t i = 0; i < rk->nilmaps; i++) {
        const nt_ilmap *m = &rk->ilmaps[i];
        if (pp_u64map_get(&r0->ilmap_index, m->method_id) != NULL)
            continue;
        uint32_t *pairs = nt_grow(r0->ilmap_pairs, &r0->ilmap_cap, r0->ilmap_len + m->count,
                                  2 * sizeof *pairs);
        if (!pairs)
            return PP_ENOMEM;
        r0->ilmap_pairs = pairs;
        nt_ilmap *nm = nt_grow(r0->ilmaps, &r0->ilmaps_cap, r0->nilmaps + 1, sizeof *nm);
        if (!nm)
            return PP_ENOMEM;
        r0->ilmaps = nm;
        memcpy(pairs + r0->ilmap_len * 2, rk->ilmap_pairs + m->first * 2,
               (size_t)m->count * 2 * sizeof *pairs);
        nm[r0->nilmaps] = (nt_ilmap){ m->method_id, r0->ilmap_len, m->count };
        if (pp_u64map_put(&r0->ilmap_index, m->method_id, r0->nilmaps) < 0)
            return PP_ENOMEM;
        r0->nilmaps++;
        r0->ilmap_len += m->count;
    }
    return PP_OK;
}

int
nt_region_merge(pp_trace_source *r0, pp_trace_source *rk, const nt_region_base *b)
{
    uint64_t drop = 0, gaps = 0;
    int rc = merge_seqs(r0, rk, b, &drop, &gaps);

    if (rc != 0)
        return rc;
    merge_stats(r0, rk, b);
    r0->st.dropped_events += drop;
    r0->seqs.sequence_gaps += gaps;
    rc = merge_rows(r0, rk, b);
    if (rc >= 0)
        rc = merge_ilmaps(r0, rk);
    return rc < 0 ? rc : merge_modules(r0, rk);
}

size_t
nt_region_pick(const nt_index *ix, uint64_t size, unsigned jobs, int every, size_t *at)
{
    size_t n = 0;

    /* A point is a start only if a region lies before it: not the first
     * block after the header with nothing in front (index 0 can still be
     * a start, region 0 then holds the metadata before it). */
    if (every) {
        for (size_t i = 0; i < ix->nsp; i++)
            at[n++] = i;
        return n + 1;
    }
    size_t i = 0;
    for (unsigned k = 1; k < jobs && i < ix->nsp; k++) {
        uint64_t target = size / jobs * k;
        while (i + 1 < ix->nsp && ix->sp[i].start < target)
            i++;
        if (n > 0 && at[n - 1] == i)
            break;
        at[n++] = i++;
    }
    return n + 1;
}
