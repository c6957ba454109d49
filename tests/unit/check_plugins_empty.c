/* Every shipped analyzer survives a stage that sees no record at all.
 *
 * An empty input is common in practice (a capture without the provider the
 * analyzer needs, a counters file with no sample of its series), and it is
 * the path unit tests built around real data never take. Each .so in the
 * build tree's plugin directory is found and checked by the real loader,
 * then driven through the mock host: create with default options, finish,
 * destroy. Under ASan this catches reads of never-filled state. The list is
 * the directory, not a name list, so a new analyzer folder is covered with
 * no edit here. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "loader/loader.h"
#include "mock_host.h"

#define MAX_PLUGINS 64

static char found_name[MAX_PLUGINS][64];
static size_t nfound, nrefused;
static char refusals[2048];

static void
collect(void *user, const pp_plugin_candidate *c)
{
    (void)user;
    if (c->analyzer == NULL) {
        nrefused++;
        size_t used = strlen(refusals);
        snprintf(refusals + used, sizeof refusals - used, "%s: %s; ", c->file_name,
                 c->refusal ? c->refusal : "?");
        return;
    }
    if (nfound < MAX_PLUGINS) {
        snprintf(found_name[nfound], sizeof found_name[nfound], "%s", c->file_name);
        nfound++;
    }
}

START_TEST(test_every_plugin_on_zero_records)
{
    const char *dir = getenv("PERFPIPE_PLUGIN_PATH");
    pp_error err = PP_ERROR_INIT;

    ck_assert_msg(dir != NULL && *dir != '\0', "PERFPIPE_PLUGIN_PATH is not set");
    pp_loader *l = pp_loader_new();
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(pp_loader_add_dir(l, dir, &err), PP_OK);
    pp_loader_scan(l, collect, NULL);
    ck_assert_msg(nrefused == 0, "the loader refused shipped plugins: %s", refusals);
    /* alloc, cpu, db, counters-csv, gcdump, gcdump-diff, spans at least */
    ck_assert_msg(nfound >= 7, "only %zu plugins in %s", nfound, dir);

    /* A scan's descriptors live only during its callback: load each by name
     * as a pipeline would. */
    for (size_t i = 0; i < nfound; i++) {
        const pp_analyzer *an = pp_loader_get(l, found_name[i], &err);
        ck_assert_msg(an != NULL, "%s: %s", found_name[i], err.message);
        mock_host *mh = mock_host_new(an);
        ck_assert_ptr_nonnull(mh);
        err = (pp_error)PP_ERROR_INIT;
        int rc = mock_host_create(mh, &err);
        ck_assert_msg(rc == PP_OK, "%s: create with default options: %s", found_name[i],
                      err.message);
        err = (pp_error)PP_ERROR_INIT;
        rc = mock_host_finish(mh, &err);
        /* Refusing to report on nothing is allowed; crashing or breaking
         * the ABI's rules is not. */
        ck_assert_msg(rc == PP_OK || err.message[0] != '\0',
                      "%s: finish failed (%d) without saying why", found_name[i], rc);
        ck_assert_msg(mock_host_violations(mh) == 0, "%s: %zu ABI violations on zero records",
                      found_name[i], mock_host_violations(mh));
        mock_host_free(mh);
    }
    pp_loader_free(l);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("plugins_empty");
    TCase *tc = tcase_create("zero_records");

    tcase_add_test(tc, test_every_plugin_on_zero_records);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
