/* plugins/common: distinct stacks by content, compact frames (see stacks.h). */
#include "stacks.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
#include "zalloc.h"

struct pp_pc_stacks_entry {
    uint64_t lo, hi; /* XXH3-128 of the IPs */
    uint32_t id1;    /* id + 1, 0 = empty slot */
    uint32_t memo;   /* the caller's hint */
};

void
pp_pc_stacks_free(pp_pc_stacks *s)
{
    free(s->ip);
    pp_pc_u64map_free(&s->ip_ids);
    free(s->frames);
    free(s->off);
    free(s->len);
    free(s->slot);
    free(s->by_id);
    free(s->by_id_slot);
    free(s->touched);
    free(s->tmp);
    memset(s, 0, sizeof *s);
}

void
pp_pc_stacks_frames(const pp_pc_stacks *s, uint32_t id, uint32_t *out)
{
    uint32_t n = s->len[id];
    const uint8_t *p = s->frames + s->off[id] * s->width;
    switch (s->width) {
    case 1:
        for (uint32_t i = 0; i < n; i++)
            out[i] = p[i];
        break;
    case 2:
        for (uint32_t i = 0; i < n; i++)
            out[i] = ((const uint16_t *)(const void *)p)[i];
        break;
    default: memcpy(out, p, (size_t)n * sizeof *out); break;
    }
}

/* Linear probing at most 3/4 full: 24 bytes a slot. */
static int
grow_index(pp_pc_stacks *s)
{
    uint32_t n = s->nslots ? s->nslots * 2 : 4096;
    if (n == 0)
        return PP_ENOMEM;
    pp_pc_stacks_entry *t = pp_pc_zalloc(n, sizeof *t);
    if (!t)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < s->nslots; i++)
        if (s->slot[i].id1) {
            uint32_t j = (uint32_t)s->slot[i].lo & (n - 1);
            while (t[j].id1)
                j = (j + 1) & (n - 1);
            t[j] = s->slot[i];
        }
    free(s->slot);
    s->slot = t;
    s->nslots = n;
    s->gen++;
    /* slot indices moved: forget the region's */
    for (uint32_t i = 0; i < s->ntouched; i++)
        s->by_id[s->touched[i]] = 0;
    s->ntouched = 0;
    return PP_OK;
}

/* Rewrite the frames `w` bytes wide (w > width), last frame first so the
 * wider copy never overwrites a narrower frame not yet read. */
static int
widen(pp_pc_stacks *s, unsigned w)
{
    if (s->capframes) {
        uint8_t *t = realloc(s->frames, (size_t)s->capframes * w);
        if (!t)
            return PP_ENOMEM;
        s->frames = t;
        for (uint64_t i = s->nframes; i-- > 0;) {
            uint32_t v = s->width == 1 ? s->frames[i] : ((uint16_t *)(void *)s->frames)[i];
            if (w == 2)
                ((uint16_t *)(void *)s->frames)[i] = (uint16_t)v;
            else
                ((uint32_t *)(void *)s->frames)[i] = v;
        }
    }
    s->width = w;
    return PP_OK;
}

int
pp_pc_stacks_seal(pp_pc_stacks *s, unsigned min_width)
{
    free(s->slot);
    free(s->by_id);
    free(s->by_id_slot);
    free(s->touched);
    s->gen++;
    s->slot = NULL;
    s->nslots = 0;
    s->by_id = s->by_id_slot = s->touched = NULL;
    s->by_id_cap = s->ntouched = s->touched_cap = 0;
    s->have_region = 0;
    pp_pc_u64map_free(&s->ip_ids);
    free(s->tmp);
    s->tmp = NULL;
    s->tmpcap = 0;
    /* no stack comes after this: the spare room of the doubling goes */
    if (s->nframes && s->nframes < s->capframes) {
        uint8_t *t = realloc(s->frames, (size_t)s->nframes * s->width);
        if (t) {
            s->frames = t;
            s->capframes = s->nframes;
        }
    }
    return min_width > s->width ? widen(s, min_width) : PP_OK;
}

/* The IP id of ip, a new one when unseen. */
static int
ip_id(pp_pc_stacks *s, uint64_t ip, uint32_t *out)
{
    uint32_t c = (uint32_t)((ip * UINT64_C(0x9E3779B97F4A7C15)) >> 54);
    if (s->ip_cache[c].id1 && s->ip_cache[c].ip == ip) {
        *out = s->ip_cache[c].id1 - 1;
        return PP_OK;
    }
    if (pp_pc_u64map_get(&s->ip_ids, ip, out)) {
        s->ip_cache[c].ip = ip;
        s->ip_cache[c].id1 = *out + 1;
        return PP_OK;
    }
    if (s->nip == UINT32_MAX - 1)
        return PP_ELIMIT;
    unsigned need = s->nip < 256u ? 1 : s->nip < 65536u ? 2 : 4;
    if (need > s->width && widen(s, need) != PP_OK)
        return PP_ENOMEM;
    if (s->nip == s->capip) {
        uint32_t cap = s->capip ? s->capip * 2 : 256;
        uint64_t *t = realloc(s->ip, (size_t)cap * sizeof *t);
        if (!t)
            return PP_ENOMEM;
        s->ip = t;
        s->capip = cap;
    }
    if (pp_pc_u64map_put(&s->ip_ids, ip, s->nip) != PP_OK)
        return PP_ENOMEM;
    s->ip[s->nip] = ip;
    s->ip_cache[c].ip = ip;
    s->ip_cache[c].id1 = s->nip + 1;
    *out = s->nip++;
    return PP_OK;
}

/* Append a new stack ips[0..n) as the next id. */
static int
append(pp_pc_stacks *s, const uint64_t *ips, uint32_t n, uint32_t *id)
{
    if (s->count == UINT32_MAX - 1)
        return PP_ELIMIT;
    if (s->width == 0)
        s->width = 1;
    if (s->count == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 1024;
        uint64_t *off = realloc(s->off, (size_t)cap * sizeof *off);
        if (!off)
            return PP_ENOMEM;
        s->off = off;
        uint32_t *len = realloc(s->len, (size_t)cap * sizeof *len);
        if (!len)
            return PP_ENOMEM;
        s->len = len;
        s->cap = cap;
    }
    /* IP ids first: a new IP may widen the store */
    if (n > s->tmpcap) {
        uint32_t *t = realloc(s->tmp, (size_t)n * sizeof *t);
        if (!t)
            return PP_ENOMEM;
        s->tmp = t;
        s->tmpcap = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        int rc = ip_id(s, ips[i], &s->tmp[i]);
        if (rc != PP_OK)
            return rc;
    }
    if (s->nframes + n > s->capframes) {
        uint64_t cap = s->capframes ? s->capframes : 4096;
        while (cap < s->nframes + n)
            cap *= 2;
        uint8_t *t = realloc(s->frames, (size_t)cap * s->width);
        if (!t)
            return PP_ENOMEM;
        s->frames = t;
        s->capframes = cap;
    }
    uint8_t *p = n ? s->frames + s->nframes * s->width : NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (s->width == 1)
            p[i] = (uint8_t)s->tmp[i];
        else if (s->width == 2)
            ((uint16_t *)(void *)p)[i] = (uint16_t)s->tmp[i];
        else
            ((uint32_t *)(void *)p)[i] = s->tmp[i];
    }
    s->off[s->count] = s->nframes;
    s->len[s->count] = n;
    s->nframes += n;
    *id = s->count++;
    return PP_OK;
}

/* By content: one hash of the IPs, one probe; appended on a miss. */
static int
by_content(pp_pc_stacks *s, const uint64_t *ips, uint32_t n, uint32_t *id, uint32_t *slot)
{
    if ((uint64_t)(s->count + 1) * 4 > (uint64_t)s->nslots * 3 && grow_index(s) != PP_OK)
        return PP_ENOMEM;
    XXH128_hash_t h = XXH3_128bits(n ? (const void *)ips : "", (size_t)n * sizeof *ips);
    uint32_t mask = s->nslots - 1, j = (uint32_t)h.low64 & mask;
    for (; s->slot[j].id1; j = (j + 1) & mask) {
        pp_pc_stacks_entry *e = &s->slot[j];
        if (e->lo == h.low64 && e->hi == h.high64) {
            *id = e->id1 - 1;
            *slot = j;
            return PP_OK;
        }
    }
    int rc = append(s, ips, n, id);
    if (rc != PP_OK)
        return rc;
    s->slot[j] = (pp_pc_stacks_entry){ h.low64, h.high64, *id + 1, 0 };
    *slot = j;
    return PP_OK;
}

int
pp_pc_stacks_intern(pp_pc_stacks *s, const uint64_t *ips, uint32_t n, uint32_t *id)
{
    uint32_t j;

    return by_content(s, ips, n, id, &j);
}

/* Remember region id sid -> (id, slot j); an optimisation, so a failed
 * allocation only leaves it out. */
static void
map_region(pp_pc_stacks *s, uint32_t sid, uint32_t id, uint32_t j)
{
    if (sid >= s->by_id_cap) {
        uint32_t cap = s->by_id_cap ? s->by_id_cap : 1024;
        while (cap <= sid)
            cap *= 2;
        uint32_t *t = realloc(s->by_id, (size_t)cap * sizeof *t);
        if (!t)
            return;
        s->by_id = t;
        uint32_t *m = realloc(s->by_id_slot, (size_t)cap * sizeof *m);
        if (!m)
            return; /* by_id_cap unchanged: the new part is unused */
        s->by_id_slot = m;
        memset(t + s->by_id_cap, 0, (size_t)(cap - s->by_id_cap) * sizeof *t);
        s->by_id_cap = cap;
    }
    if (s->ntouched == s->touched_cap) {
        uint32_t cap = s->touched_cap ? s->touched_cap * 2 : 1024;
        uint32_t *t = realloc(s->touched, (size_t)cap * sizeof *t);
        if (!t)
            return;
        s->touched = t;
        s->touched_cap = cap;
    }
    s->touched[s->ntouched++] = sid;
    s->by_id[sid] = id + 1;
    s->by_id_slot[sid] = j;
}

int
pp_pc_stacks_id(pp_pc_stacks *s, const pp_trace_event *ev, uint32_t *id, uint32_t **memo)
{
    const uint64_t *ips = ev->stack;
    uint32_t n = ips ? ev->stack_depth : 0;
    uint32_t sid = ev->stack_id, j;
    *memo = &s->no_memo; /* written, never trusted: callers check hints */
    /* only a stack the reader found is mapped by its region id */
    if (n == 0 ||
        ev->struct_size < offsetof(pp_trace_event, stack_region) + sizeof ev->stack_region ||
        sid == 0 || sid >= PP_PC_STACKS_REGION_MAX) {
        int rc = by_content(s, ips, n, id, &j);
        if (rc == PP_OK)
            *memo = &s->slot[j].memo;
        return rc;
    }
    if (!s->have_region || s->region != ev->stack_region) {
        for (uint32_t i = 0; i < s->ntouched; i++)
            s->by_id[s->touched[i]] = 0;
        s->ntouched = 0;
        s->region = ev->stack_region;
        s->have_region = 1;
    }
    if (sid < s->by_id_cap && s->by_id[sid]) {
        *id = s->by_id[sid] - 1;
        *memo = &s->slot[s->by_id_slot[sid]].memo;
        return PP_OK;
    }
    int rc = by_content(s, ips, n, id, &j);
    if (rc != PP_OK)
        return rc;
    *memo = &s->slot[j].memo;
    map_region(s, sid, *id, j);
    return PP_OK;
}
