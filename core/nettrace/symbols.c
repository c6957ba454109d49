/* The method map and symbolization: address ranges from MethodLoadVerbose
 * and rundown MethodDCStart/DCEndVerbose events, kept for the whole trace
 * (rundown comes last), resolved by "greatest start <= ip < start + size". */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include "nettrace/nettrace_internal.h"
#include "nettrace/symbols.h"
#include "native/native.h"

#define NT_ARENA_CHUNK (64u << 10)

struct nt_arena_chunk {
    nt_arena_chunk *next;
    char data[];
};

static char *
arena_alloc(nt_arena *a, size_t n)
{
    if (!a->head || a->cap - a->used < n) {
        size_t sz = n > NT_ARENA_CHUNK ? n : NT_ARENA_CHUNK;
        nt_arena_chunk *c = malloc(sizeof *c + sz);
        if (!c)
            return NULL;
        c->next = a->head;
        a->head = c;
        a->used = 0;
        a->cap = sz;
    }
    char *p = a->head->data + a->used;
    a->used += n;
    return p;
}

static void
arena_free(nt_arena *a)
{
    while (a->head) {
        nt_arena_chunk *n = a->head->next;
        free(a->head);
        a->head = n;
    }
    a->used = a->cap = 0;
}

static int
append_name(pp_trace_source *r, const char *s, size_t n)
{
    char *nb = nt_grow(r->method_names, &r->names_cap, r->names_len + n + 1, 1);
    if (!nb)
        return -1;
    r->method_names = nb;
    memcpy(nb + r->names_len, s, n);
    nb[r->names_len + n] = 0;
    r->names_len += n + 1;
    return 0;
}

/* Length in bytes of a UTF-16 NUL-terminated string including the
 * terminator (even offset), or 0 if it does not end within n bytes. */
static size_t
wlen(const uint8_t *p, size_t n)
{
    /* Four code units at a time: a zero 16-bit lane sets its high bit in
     * (x - 0x0001...) & ~x (false hits are re-checked below). */
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, 8);
        if ((x - UINT64_C(0x0001000100010001)) & ~x & UINT64_C(0x8000800080008000))
            for (size_t k = i; k < i + 8; k += 2)
                if ((p[k] | p[k + 1]) == 0)
                    return k + 2;
    }
    for (; i + 1 < n; i += 2)
        if ((p[i] | p[i + 1]) == 0)
            return i + 2;
    return 0;
}

int
nt_methods_add_verbose(pp_trace_source *r, const pp_trace_event *ev)
{
    const uint8_t *p = ev->payload;
    size_t n = ev->payload_size;

    /* MethodID u64, ModuleID u64, MethodStartAddress u64, MethodSize u32,
     * MethodToken u32, MethodFlags u32, then namespace, name and signature
     * in UTF-16; addresses are u64 even in 32-bit traces. Only the range
     * and where the strings are is recorded: they are decoded for the few
     * methods a symbolize call hits. A mapped file keeps them in place; a
     * pipe's bytes are copied. */
    if (n < 36 + 6 || n - 36 > UINT32_MAX)
        return 0;
    uint64_t start = nt_rd64(p + 16);
    uint32_t size = nt_rd32(p + 24);
    if (size == 0)
        return 0;
    uint64_t str;
    if (r->map) {
        str = (uint64_t)(p + 36 - r->map);
    } else if (r->seekable) {
        str = r->blk_off + (uint64_t)(p + 36 - r->blk); /* pread later */
    } else {
        if (append_name(r, (const char *)p + 36, n - 36) < 0)
            return -1;
        str = r->names_len - (n - 36) - 1;
    }
    nt_method *m = nt_grow(r->methods, &r->methods_cap, r->nmethods + 1, sizeof *m);
    if (!m)
        return -1;
    r->methods = m;
    m[r->nmethods].start = start;
    m[r->nmethods].size = size;
    m[r->nmethods].method_id = nt_rd64(p);
    m[r->nmethods].token = nt_rd32(p + 28);
    m[r->nmethods].str = str;
    m[r->nmethods].str_len = (uint32_t)(n - 36);
    m[r->nmethods].seq = (uint32_t)r->nmethods;
    m[r->nmethods].module_id = nt_rd64(p + 8);
    r->nmethods++;
    return 0;
}

/* "Namespace.Name" (+ the signature's parameter list) in UTF-8, in the
 * arena. */
static const char *
method_string(pp_trace_source *r, const nt_method *m, int sig)
{
    const uint8_t *w;
    uint8_t *tmp = NULL;
    size_t lim = m->str_len;
    if (r->map) {
        w = r->map + m->str;
    } else if (r->seekable) {
        tmp = malloc(lim ? lim : 1);
        if (!tmp || pread(r->fd, tmp, lim, (off_t)m->str) != (ssize_t)lim) {
            free(tmp);
            return NULL;
        }
        w = tmp;
    } else {
        w = (const uint8_t *)r->method_names + m->str;
    }
    size_t l1 = wlen(w, lim), l2 = wlen(w + l1, lim - l1), l3 = wlen(w + l1 + l2, lim - l1 - l2);
    char *buf = NULL;
    size_t cap = 0, len, o = 0;
    size_t total = (l1 + l2 + l3) * 2 + 4;
    char *out = arena_alloc(&r->sym_arena, total);
    if (!out) {
        free(tmp);
        return NULL;
    }
    /* A part that cannot be converted (out of memory) fails the name: a
     * method shown without its namespace would be a plausible wrong one. */
    if (l1 && nt_utf16z_to_utf8(w, l1, &buf, &cap, &len) < 0)
        goto fail;
    if (l1 && len) {
        memcpy(out, buf, len);
        o = len;
        out[o++] = '.';
    }
    if (l2 && nt_utf16z_to_utf8(w + l1, l2, &buf, &cap, &len) < 0)
        goto fail;
    if (l2) {
        memcpy(out + o, buf, len);
        o += len;
    }
    if (sig && l3 && nt_utf16z_to_utf8(w + l1 + l2, l3, &buf, &cap, &len) >= 0 && len) {
        const char *paren = memchr(buf, '(', len);
        if (paren) {
            memcpy(out + o, paren, len - (size_t)(paren - buf));
            o += len - (size_t)(paren - buf);
        } else {
            out[o++] = ' ';
            memcpy(out + o, buf, len);
            o += len;
        }
    }
    out[o] = 0;
    free(buf);
    free(tmp);
    return out;
fail:
    free(buf);
    free(tmp);
    return NULL;
}

static int
cmp_method(const void *a, const void *b)
{
    const nt_method *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort and deduplicate (DCStart and DCEnd name the same method). */
static int
prepare(pp_trace_source *r)
{
    if (r->methods_sorted == r->nmethods && r->method_sym)
        return 0;
    if (r->nmethods > 1)
        qsort(r->methods, r->nmethods, sizeof *r->methods, cmp_method);
    size_t o = 0;
    for (size_t i = 0; i < r->nmethods; i++) {
        if (o > 0 && r->methods[o - 1].start == r->methods[i].start) {
            if (r->methods[i].size > r->methods[o - 1].size)
                r->methods[o - 1].size = r->methods[i].size;
            continue;
        }
        r->methods[o++] = r->methods[i];
    }
    r->nmethods = o;
    for (size_t i = 0; i < o; i++)
        r->methods[i].seq = (uint32_t)i;
    free(r->method_sym);
    r->method_sym = calloc(o * 2 + 1, sizeof *r->method_sym);
    if (!r->method_sym)
        return -1;
    r->methods_sorted = o;
    return 0;
}

const char nt_symbol_oom[] = "?!(out of memory)";

/* nt_source_string, a reason lost for want of memory told as such (the host
 * counts it: the stage is partial), never as "no reason". */
static const char *
source_string(pp_trace_source *r, const nt_method *m, uint64_t ip, uint32_t flags)
{
    const char *s = nt_source_string(r, m, ip, flags);

    return s != NULL ? s : nt_symbol_oom;
}

const char *
pp_nettrace_symbolize(const pp_trace_source *src, uint64_t ip, uint32_t flags)
{
    pp_trace_source *r = (pp_trace_source *)src; /* caches are logically const */
    int sig = (flags & PP_SYM_SIGNATURE) != 0;

    if (prepare(r) < 0)
        return nt_symbol_oom;
    size_t lo = 0, hi = r->nmethods;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->methods[mid].start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0) {
        const nt_method *m = &r->methods[lo - 1];
        if (ip - m->start < m->size) {
            if (flags & (PP_SYM_SOURCE | PP_SYM_SOURCE_WHY))
                return source_string(r, m, ip, flags);
            if (flags & PP_SYM_MODULE_ANY)
                return nt_module_string(r, m->module_id, flags);
            const char **slot = &r->method_sym[(lo - 1) * 2 + (size_t)sig];
            if (*slot)
                return *slot;
            *slot = method_string(r, m, sig);
            if (!*slot)
                return nt_symbol_oom;
            if (!sig)
                r->st.symbolized++;
            return *slot;
        }
    }
    if (flags & (PP_SYM_SOURCE | PP_SYM_SOURCE_WHY))
        return source_string(r, NULL, ip, flags);
    if (flags & PP_SYM_MODULE_ANY)
        return nt_module_string(r, 0, flags);
    if (r->unresolved_at != r->nmethods) {
        pp_u64map_clear(&r->unresolved[0]);
        pp_u64map_clear(&r->unresolved[1]);
        r->unresolved_at = r->nmethods;
    }
    uint64_t *v = pp_u64map_get(&r->unresolved[sig], ip);
    if (v)
        return (const char *)(uintptr_t)*v;
    char nat[512];
    int named = r->native ? pp_native_syms_name(r->native, ip, nat, sizeof nat) : 0;
    size_t outlen = named ? strlen(nat) + 1 : 24 + 12;
    char *out = arena_alloc(&r->sym_arena, outlen);
    if (!out)
        return nt_symbol_oom;
    if (named)
        memcpy(out, nat, outlen);
    else if (r->native)
        /* The map is there but no module holds ip: JIT stubs, anonymous code. */
        snprintf(out, 24 + 12, "?(unmapped)!0x%" PRIx64, ip);
    else
        snprintf(out, 24, "?!0x%" PRIx64, ip);
    if (pp_u64map_put(&r->unresolved[sig], ip, (uint64_t)(uintptr_t)out) < 0)
        return nt_symbol_oom;
    if (!sig) {
        r->st.symbolized++;
        r->st.unresolved += named != 1;
    }
    return out;
}

void
nt_native_attach(pp_trace_source *r, const char *path)
{
    /* A missing sidecar leaves today's "?!0xADDR" names; a damaged one too,
     * with a warning in the result (given when the callbacks are set). */
    size_t n = strlen(path);
    char *mp = malloc(n + 6);
    pp_native_maps maps;
    if (!mp)
        return;
    memcpy(mp, path, n);
    memcpy(mp + n, ".maps", 6);
    pp_error e = PP_ERROR_INIT;
    int rc = pp_native_maps_load(mp, &maps, &e);
    if (rc == PP_OK && pp_native_syms_new(&maps, &r->native) != PP_OK)
        pp_native_maps_free(&maps);
    else if (rc != PP_OK && rc != PP_ENOTFOUND)
        snprintf(r->native_warning, sizeof r->native_warning,
                 "%.440s; native frames are left unnamed", e.message);
    free(mp);
}

void
nt_methods_free(pp_trace_source *r)
{
    free(r->methods);
    free(r->method_names);
    free(r->method_sym);
    pp_u64map_free(&r->unresolved[0]);
    pp_u64map_free(&r->unresolved[1]);
    arena_free(&r->sym_arena);
    pp_native_syms_free(r->native);
    r->native = NULL;
    nt_srclines_free(r); /* before the modules it closes PDBs of */
    nt_modules_free(r);
    nt_ilmaps_free(r);
}
