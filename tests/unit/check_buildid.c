/* core/compare/buildid.c: same build on both sides, and the verify seam (issue #44).
 * With IDENT_SAME_A, IDENT_SAME_B (two captures of one process) and
 * IDENT_OTHER (a capture of another build) set, tests/ident/test-ident.sh
 * has it judge live result documents too. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "compare/buildid.h"

static json_t *
doc_of(const char *text)
{
    json_error_t je;
    json_t *d = json_loads(text, 0, &je);
    ck_assert_msg(d != NULL, "%s", je.text);
    return d;
}

#define MOD(name, guid, age)                                                                       \
    "{\"name\": \"" name "\", \"path\": \"/srv/" name ".dll\", \"pdb_guid\": \"" guid              \
    "\", \"pdb_age\": " #age "}"
#define DOC(mods) "{\"inputs\": [{\"nettrace\": {\"modules\": [" mods "]}}]}"
#define G1        "11111111-2222-3333-4444-555555555555"
#define G2        "11111111-2222-3333-4444-555555555556"

START_TEST(same_build_every_module_equal)
{
    json_t *a = doc_of(DOC(MOD("Shop", G1, 1) "," MOD("Shop.Data", G2, 1)));
    json_t *b = doc_of(DOC(MOD("Shop.Data", G2, 1) "," MOD("Shop", G1, 1)));
    char msg[1024];

    ck_assert_int_eq(pp_buildid_same(a, b, msg, sizeof msg), 1);
    ck_assert_ptr_nonnull(strstr(msg, "both sides ran the same build of Shop (" G1 "/1)"));
    ck_assert_ptr_nonnull(strstr(msg, "Shop.Data (" G2 "/1)"));
    ck_assert_int_eq(pp_buildid_verify_deployed(a, b, 0, msg, sizeof msg), 1);
    ck_assert_ptr_nonnull(strstr(msg, "cannot judge: the change is not deployed"));
    ck_assert_ptr_nonnull(strstr(msg, "--config-only"));
    /* a configuration-only change of one build is what is measured */
    ck_assert_int_eq(pp_buildid_verify_deployed(a, b, 1, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "");
    json_decref(a);
    json_decref(b);
}
END_TEST

START_TEST(one_module_differs_or_age)
{
    json_t *a = doc_of(DOC(MOD("Shop", G1, 1) "," MOD("Shop.Data", G2, 1)));
    json_t *b = doc_of(DOC(MOD("Shop", G1, 1) "," MOD("Shop.Data", G1, 1)));
    json_t *c = doc_of(DOC(MOD("Shop", G1, 2) "," MOD("Shop.Data", G2, 1)));
    char msg[1024];

    ck_assert_int_eq(pp_buildid_same(a, b, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "");
    ck_assert_int_eq(pp_buildid_same(a, c, msg, sizeof msg), 0);
    ck_assert_int_eq(pp_buildid_verify_deployed(a, b, 0, msg, sizeof msg), 0);
    json_decref(a);
    json_decref(b);
    json_decref(c);
}
END_TEST

/* Unknown is not "same": a side without identities, or other modules. */
START_TEST(unknown_claims_nothing)
{
    json_t *a = doc_of(DOC(MOD("Shop", G1, 1)));
    json_t *none = doc_of("{\"inputs\": [{\"gcdump\": {}}]}");
    json_t *nopdb = doc_of(DOC("{\"name\": \"Shop\", \"path\": \"/srv/Shop.dll\"}"));
    json_t *more = doc_of(DOC(MOD("Shop", G1, 1) "," MOD("Shop.Data", G2, 1)));
    char msg[1024];

    ck_assert_int_eq(pp_buildid_same(a, none, msg, sizeof msg), 0);
    ck_assert_int_eq(pp_buildid_same(none, none, msg, sizeof msg), 0);
    ck_assert_int_eq(pp_buildid_same(a, nopdb, msg, sizeof msg), 0);
    ck_assert_int_eq(pp_buildid_same(a, more, msg, sizeof msg), 0);
    ck_assert_int_eq(pp_buildid_verify_deployed(a, none, 0, msg, sizeof msg), 0);
    json_decref(a);
    json_decref(none);
    json_decref(nopdb);
    json_decref(more);
}
END_TEST

START_TEST(live_documents)
{
    const char *pa = getenv("IDENT_SAME_A"), *pb = getenv("IDENT_SAME_B");
    const char *po = getenv("IDENT_OTHER");
    char msg[1024];

    if (pa == NULL || pb == NULL || po == NULL)
        return; /* only under tests/ident/test-ident.sh */
    json_t *a = json_load_file(pa, 0, NULL), *b = json_load_file(pb, 0, NULL);
    json_t *o = json_load_file(po, 0, NULL);
    ck_assert(a != NULL && b != NULL && o != NULL);
    ck_assert_int_eq(pp_buildid_verify_deployed(a, b, 0, msg, sizeof msg), 1);
    ck_assert_ptr_nonnull(strstr(msg, "IdentApp"));
    ck_assert_int_eq(pp_buildid_verify_deployed(a, b, 1, msg, sizeof msg), 0);
    ck_assert_int_eq(pp_buildid_verify_deployed(a, o, 0, msg, sizeof msg), 0);
    json_decref(a);
    json_decref(b);
    json_decref(o);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("buildid");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, same_build_every_module_equal);
    tcase_add_test(tc, one_module_differs_or_age);
    tcase_add_test(tc, unknown_claims_nothing);
    tcase_add_test(tc, live_documents);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
