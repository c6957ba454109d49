/* The alloc plugin's consume-side caches and folded stacks give exactly
 * what the slow paths give: typecache vs pp_alloc_tick_decode, stackcache
 * vs pp_pc_stackset_event, folded comparisons vs strcmp of the strings. */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "../../plugins/alloc/folded.h"
#include "../../plugins/alloc/stackcache.h"
#include "../../plugins/alloc/tick.h"
#include "../../plugins/alloc/typecache.h"

/* A V4 tick payload: amount, kind, clr id, amount64, TypeID, name, heap. */
static size_t tick_payload(uint8_t *p, uint64_t amount, uint32_t kind, uint64_t tid,
                           const char *name, uint32_t heap)
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
    return at + 4 + 8 + 8;       /* Address, ObjectSize */
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

START_TEST(test_stackcache_matches_stackset)
{
    pp_pc_stackset a, b;
    pp_alloc_stackcache c;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    uint64_t stacks[5][6] = {
        { 1, 2, 3, 4, 5, 6 }, { 1, 2, 3, 4, 5, 7 }, { 9, 2, 3, 4, 5, 6 }, { 1, 2, 3 }, { 1, 2, 3, 4, 5, 6 },
    };
    uint32_t depth[5] = { 6, 6, 6, 3, 5 };
    /* regions redefine the stacks under other ids, as the runtime does */
    for (uint32_t i = 0; i < 4000; i++) {
        pp_trace_event ev;
        memset(&ev, 0, sizeof ev);
        ev.struct_size = sizeof ev;
        uint32_t k = (i * 7 + i / 13) % 5;
        ev.stack = stacks[k];
        ev.stack_depth = depth[k];
        ev.stack_region = i / 100;
        ev.stack_id = i % 11 == 0 ? 0 : 1 + (k + i / 100) % 5;
        uint32_t x, y, *memo;
        ck_assert_int_eq(pp_pc_stackset_event(&a, &ev, &x), PP_OK);
        ck_assert_int_eq(pp_alloc_stackcache_id(&c, &b, &ev, &y, &memo), PP_OK);
        ck_assert_uint_eq(x, y);
        *memo = 7;               /* hints may be anything: identity is unaffected */
    }
    ck_assert_uint_eq(a.count, 5);
    ck_assert_uint_eq(b.count, 5);
    pp_pc_stackset_free(&a);
    pp_pc_stackset_free(&b);
    pp_alloc_stackcache_free(&c);
}
END_TEST

static int sign(int v) { return v < 0 ? -1 : v > 0; }

static void join(char *out, const pp_pc_strtab *names, const uint32_t *ids, uint32_t n)
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
    pp_alloc_folded_init(&f, &names, 0);
    uint32_t seqs[40][3], lens[40], ids[40];
    char str[40][64];
    for (uint32_t s = 0; s < 40; s++) {
        lens[s] = 1 + s % 3;
        for (uint32_t i = 0; i < lens[s]; i++)
            seqs[s][i] = (s * 5 + i * 3 + s / 7) % 8;
        ck_assert_int_eq(pp_alloc_folded_intern(&f, seqs[s], lens[s], &ids[s]), PP_OK);
        join(str[s], &names, seqs[s], lens[s]);
        ck_assert_str_eq(pp_alloc_folded_string(&f, ids[s]), str[s]);
    }
    for (uint32_t x = 0; x < 40; x++) {
        ck_assert_int_eq(sign(pp_alloc_folded_cmp_lit(&f, "[no stack]", ids[x])),
                         sign(strcmp("[no stack]", str[x])));
        for (uint32_t y = 0; y < 40; y++)
            ck_assert_int_eq(sign(pp_alloc_folded_cmp(&f, ids[x], ids[y])), sign(strcmp(str[x], str[y])));
    }
    pp_alloc_folded_free(&f);

    /* a name with ';': sequences that join to one string are one row */
    uint32_t semi, a, b, i1, i2;
    ck_assert_int_eq(pp_pc_strtab_intern(&names, "A;B", 3, &semi), PP_OK);
    ck_assert_int_eq(pp_pc_strtab_find(&names, "A", 1, &a), 1);
    ck_assert_int_eq(pp_pc_strtab_find(&names, "B", 1, &b), 1);
    pp_alloc_folded_init(&f, &names, 1);
    uint32_t s1[2] = { b, a }, s2[1] = { semi };   /* leaf first: "A;B" both */
    ck_assert_int_eq(pp_alloc_folded_intern(&f, s1, 2, &i1), PP_OK);
    ck_assert_int_eq(pp_alloc_folded_intern(&f, s2, 1, &i2), PP_OK);
    ck_assert_uint_eq(i1, i2);
    ck_assert_str_eq(pp_alloc_folded_string(&f, i1), "A;B");
    pp_alloc_folded_free(&f);
    pp_pc_strtab_free(&names);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alloc_caches");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_typecache_matches_decode);
    tcase_add_test(tc, test_stackcache_matches_stackset);
    tcase_add_test(tc, test_folded_compares_like_strcmp);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
