/* The alloc plugin's consume-side caches and folded stacks give exactly
 * what the slow paths give: typecache vs pp_alloc_tick_decode, the stack
 * store (plugins/common/stacks.h) vs first-seen order by content, with
 * frames exact through each widening,
 * folded comparisons vs strcmp of the strings. */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "../../plugins/alloc/folded.h"
#include "../../plugins/common/stacks.h"
#include "../../plugins/alloc/tick.h"
#include "../../plugins/alloc/typecache.h"

/* A V4 tick payload: amount, kind, clr id, amount64, TypeID, name, heap. */
static size_t
tick_payload(uint8_t *p, uint64_t amount, uint32_t kind, uint64_t tid, const char *name,
             uint32_t heap)
{
    size_t at = 0;
    memset(p, 0, 512);
    memcpy(p, &(uint32_t){ (uint32_t)amount }, 4);
    memcpy(p + 4, &kind, 4);
    memcpy(p + 10, &amount, 8);
    memcpy(p + 18, &tid, 8);
    at = 26;
    for (const char *c = name; *c; c++, at += 2)
        p[at] = (uint8_t)*c;
    at += 2;
    memcpy(p + at, &heap, 4);
    return at + 4 + 8 + 8; /* Address, ObjectSize */
}

START_TEST(test_typecache_matches_decode)
{
    pp_alloc_typecache c;
    memset(&c, 0, sizeof c);
    uint8_t p[512], q[512];
    char scratch[1024];
    pp_alloc_tick t, h;
    const char *what;
    size_t at;
    uint32_t name;

    size_t n = tick_payload(p, 123456, 1, 0x7f0011223340ull, "System.String", 3);
    ck_assert_int_eq(pp_alloc_typecache_hit(&c, p, n, 4, 8, &h, &name), 0);
    ck_assert_int_eq(pp_alloc_tick_decode(p, n, 4, 8, scratch, &t, &what, &at), 0);
    ck_assert_uint_eq(t.type_raw_len, 2 * strlen("System.String") + 2);
    pp_alloc_typecache_put(&c, p, 8, &t, 42);
    /* another tick of the same type: every field as decoding gives it */
    n = tick_payload(q, 99, 0, 0x7f0011223340ull, "System.String", 1);
    ck_assert_int_eq(pp_alloc_typecache_hit(&c, q, n, 4, 8, &h, &name), 1);
    ck_assert_int_eq(pp_alloc_tick_decode(q, n, 4, 8, scratch, &t, &what, &at), 0);
    ck_assert_uint_eq(name, 42);
    ck_assert_uint_eq(h.amount, t.amount);
    ck_assert_uint_eq(h.kind, t.kind);
    ck_assert_uint_eq(h.heap_index, t.heap_index);
    ck_assert_uint_eq(h.has_type, 1);
    /* same TypeID, other name (a reused MethodTable address): a miss */
    n = tick_payload(q, 99, 0, 0x7f0011223340ull, "System.Strinh", 1);
    ck_assert_int_eq(pp_alloc_typecache_hit(&c, q, n, 4, 8, &h, &name), 0);
    /* a longer name sharing the prefix: a miss (the terminator is compared) */
    n = tick_payload(q, 99, 0, 0x7f0011223340ull, "System.String2", 1);
    ck_assert_int_eq(pp_alloc_typecache_hit(&c, q, n, 4, 8, &h, &name), 0);
    /* the heap index cut off: a miss, so decoding reports the damage */
    n = tick_payload(q, 99, 0, 0x7f0011223340ull, "System.String", 1);
    ck_assert_int_eq(pp_alloc_typecache_hit(&c, q, 26 + 28 + 2, 4, 8, &h, &name), 0);
    ck_assert_int_ne(pp_alloc_tick_decode(q, 26 + 28 + 2, 4, 8, scratch, &t, &what, &at), 0);
    /* versions without a type name never hit */
    ck_assert_int_eq(pp_alloc_typecache_hit(&c, p, n, 1, 8, &h, &name), 0);
    pp_alloc_typecache_free(&c);
}
END_TEST

/* Ids are dense in first-seen order of the content, whatever the region
 * ids say; an empty stack is a stack; sealing 4 wide keeps every frame. */
START_TEST(test_stacks_first_seen_by_content)
{
    pp_pc_stacks b;
    memset(&b, 0, sizeof b);
    uint64_t stacks[6][6] = {
        { 1, 2, 3, 4, 5, 6 }, { 1, 2, 3, 4, 5, 7 }, { 9, 2, 3, 4, 5, 6 },
        { 1, 2, 3 },          { 1, 2, 3, 4, 5, 6 }, { 0 },
    };
    uint32_t depth[6] = { 6, 6, 6, 3, 5, 0 };
    uint32_t want[6], seen = 0;
    for (uint32_t k = 0; k < 6; k++)
        want[k] = UINT32_MAX;
    /* regions redefine the stacks under other ids, as the runtime does */
    for (uint32_t i = 0; i < 4000; i++) {
        pp_trace_event ev;
        memset(&ev, 0, sizeof ev);
        ev.struct_size = sizeof ev;
        uint32_t k = (i * 7 + i / 13) % 6;
        ev.stack = k == 5 && i % 2 ? NULL : stacks[k];
        ev.stack_depth = depth[k];
        ev.stack_region = i / 100;
        ev.stack_id = i % 11 == 0 ? 0 : 1 + (k + i / 100) % 6;
        if (want[k] == UINT32_MAX)
            want[k] = seen++;
        uint32_t y, *memo;
        ck_assert_int_eq(pp_pc_stacks_id(&b, &ev, &y, &memo), PP_OK);
        ck_assert_uint_eq(y, want[k]);
        *memo = 7; /* hints may be anything: identity is unaffected */
    }
    ck_assert_uint_eq(b.count, 6);
    ck_assert_uint_eq(b.width, 1);
    ck_assert_int_eq(pp_pc_stacks_seal(&b, 4), PP_OK);
    ck_assert_uint_eq(b.width, 4);
    for (uint32_t k = 0; k < 6; k++) {
        uint32_t n;
        const uint32_t *fr = pp_pc_stacks_frames32(&b, want[k], &n);
        ck_assert_uint_eq(n, depth[k]);
        for (uint32_t i = 0; i < n; i++)
            ck_assert_uint_eq(pp_pc_stacks_ip(&b, fr[i]), stacks[k][i]);
    }
    pp_pc_stacks_free(&b);
}
END_TEST

/* Frames stay exact while the store widens 1 -> 2 -> 4 bytes a frame. */
START_TEST(test_stacks_widen)
{
    pp_pc_stacks b;
    memset(&b, 0, sizeof b);
    enum { N = 1200, D = 60 };
    static uint64_t ips[N][D];
    uint32_t ids[N], out[D];
    /* 1200 stacks x 60 frames over 70,000 distinct IPs: first-seen order
     * crosses 256 and 65,536 partway through a stack */
    for (uint32_t s = 0; s < N; s++) {
        for (uint32_t i = 0; i < D; i++)
            ips[s][i] = 0x7f0000000000ull + (uint64_t)((s * D + i) % 70000u) * 16u;
        pp_trace_event ev;
        memset(&ev, 0, sizeof ev);
        ev.struct_size = sizeof ev;
        ev.stack = ips[s];
        ev.stack_depth = D - s % 7;
        ev.stack_id = 1 + s % 50;
        ev.stack_region = s / 50;
        uint32_t *memo;
        ck_assert_int_eq(pp_pc_stacks_id(&b, &ev, &ids[s], &memo), PP_OK);
        if (s == 3)
            ck_assert_uint_eq(b.width, 1);
        if (s == 100)
            ck_assert_uint_eq(b.width, 2);
    }
    ck_assert_uint_eq(b.width, 4);
    ck_assert_uint_gt(b.nip, 65536);
    ck_assert_int_eq(pp_pc_stacks_seal(&b, 1), PP_OK);
    for (uint32_t s = 0; s < N; s++) {
        uint32_t n = pp_pc_stacks_depth(&b, ids[s]);
        ck_assert_uint_eq(n, D - s % 7);
        pp_pc_stacks_frames(&b, ids[s], out);
        for (uint32_t i = 0; i < n; i++) {
            ck_assert_uint_eq(pp_pc_stacks_ip(&b, out[i]), ips[s][i]);
            ck_assert_uint_eq(pp_pc_stacks_frame(&b, ids[s], i), out[i]);
        }
    }
    pp_pc_stacks_free(&b);
}
END_TEST

/* A stack store whose IP k + 100 is named by name id k, ipname[IP id]. */
static void
name_store(pp_pc_stacks *st, uint32_t *ipname, const uint32_t *seq, uint32_t n, uint32_t *sid)
{
    uint64_t ips[8];
    for (uint32_t i = 0; i < n; i++)
        ips[i] = 100 + seq[i];
    pp_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.struct_size = sizeof ev;
    ev.stack = ips;
    ev.stack_depth = n;
    uint32_t *memo;
    ck_assert_int_eq(pp_pc_stacks_id(st, &ev, sid, &memo), PP_OK);
    for (uint32_t k = 0; k < st->nip; k++)
        ipname[k] = (uint32_t)(st->ip[k] - 100);
}

static int
sign(int v)
{
    return v < 0 ? -1 : v > 0;
}

static void
join(char *out, const pp_pc_strtab *names, const uint32_t *ids, uint32_t n)
{
    out[0] = '\0';
    for (uint32_t i = n; i-- > 0;) {
        strcat(out, pp_pc_strtab_get(names, ids[i]));
        if (i > 0)
            strcat(out, ";");
    }
}

START_TEST(test_folded_compares_like_strcmp)
{
    static const char *const words[] = { "A", "A.B", "A.", "", "B", "A B", "\xc3\xa9", "Z" };
    pp_pc_strtab names;
    pp_alloc_folded f;
    pp_pc_strtab_init(&names);
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t id;
        ck_assert_int_eq(pp_pc_strtab_intern(&names, words[i], strlen(words[i]), &id), PP_OK);
    }
    pp_pc_stacks st;
    uint32_t ipname[64];
    memset(&st, 0, sizeof st);
    uint32_t seqs[40][3], lens[40], ids[40], sids[40];
    char str[40][64];
    for (uint32_t s = 0; s < 40; s++) {
        lens[s] = 1 + s % 3;
        for (uint32_t i = 0; i < lens[s]; i++)
            seqs[s][i] = (s * 5 + i * 3 + s / 7) % 8;
        name_store(&st, ipname, seqs[s], lens[s], &sids[s]);
    }
    pp_alloc_folded_init(&f, &names, &st, ipname, 0);
    for (uint32_t s = 0; s < 40; s++) {
        ck_assert_int_eq(pp_alloc_folded_intern(&f, sids[s], seqs[s], lens[s], &ids[s]), PP_OK);
        join(str[s], &names, seqs[s], lens[s]);
        ck_assert_str_eq(pp_alloc_folded_string(&f, ids[s]), str[s]);
    }
    for (uint32_t x = 0; x < 40; x++) {
        ck_assert_int_eq(sign(pp_alloc_folded_cmp_lit(&f, "[no stack]", ids[x])),
                         sign(strcmp("[no stack]", str[x])));
        for (uint32_t y = 0; y < 40; y++) {
            ck_assert_int_eq(sign(pp_alloc_folded_cmp(&f, ids[x], ids[y])),
                             sign(strcmp(str[x], str[y])));
            /* one folded id exactly when the strings are equal */
            ck_assert_int_eq(ids[x] == ids[y], strcmp(str[x], str[y]) == 0);
        }
    }
    pp_alloc_folded_free(&f);

    /* a name with ';': sequences that join to one string are one row */
    uint32_t semi, a, b, i1, i2;
    ck_assert_int_eq(pp_pc_strtab_intern(&names, "A;B", 3, &semi), PP_OK);
    ck_assert_int_eq(pp_pc_strtab_find(&names, "A", 1, &a), 1);
    ck_assert_int_eq(pp_pc_strtab_find(&names, "B", 1, &b), 1);
    uint32_t s1[2] = { b, a }, s2[1] = { semi }; /* leaf first: "A;B" both */
    uint32_t t1, t2;
    name_store(&st, ipname, s1, 2, &t1);
    name_store(&st, ipname, s2, 1, &t2);
    pp_alloc_folded_init(&f, &names, &st, ipname, 1);
    ck_assert_int_eq(pp_alloc_folded_intern(&f, t1, s1, 2, &i1), PP_OK);
    ck_assert_int_eq(pp_alloc_folded_intern(&f, t2, s2, 1, &i2), PP_OK);
    ck_assert_uint_eq(i1, i2);
    ck_assert_str_eq(pp_alloc_folded_string(&f, i1), "A;B");
    pp_alloc_folded_free(&f);
    pp_pc_stacks_free(&st);
    pp_pc_strtab_free(&names);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("alloc_caches");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_typecache_matches_decode);
    tcase_add_test(tc, test_stacks_first_seen_by_content);
    tcase_add_test(tc, test_stacks_widen);
    tcase_add_test(tc, test_folded_compares_like_strcmp);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
