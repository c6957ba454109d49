/* The plugin loader: every refusal the ABI promises, one line each, naming
 * the file and both versions; discovery order; listing with reasons. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "loader/loader.h"

static char fixtures[4096];

static void
setup(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/plugins/.libs", TEST_BUILDDIR);
    unsetenv("PERFPIPE_PLUGIN_PATH");
}

static pp_loader *
fixture_loader(void)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = pp_loader_new();

    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(pp_loader_add_dir(l, fixtures, &err), PP_OK);
    return l;
}

/* Load `name` expecting a refusal whose message contains every needle. */
static void
expect_refusal(const char *name, int code, const char *const *needles)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = fixture_loader();
    const pp_analyzer *a = pp_loader_get(l, name, &err);

    ck_assert_ptr_null(a);
    ck_assert_int_eq(err.code, code);
    for (; *needles != NULL; needles++)
        ck_assert_msg(strstr(err.message, *needles) != NULL, "'%s' not in: %s", *needles,
                      err.message);
    ck_assert_ptr_null(strchr(err.message, '\n'));
    pp_loader_free(l);
}

START_TEST(loads_good_plugin)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = fixture_loader();
    const pp_analyzer *a = pp_loader_get(l, "fixture-good", &err);

    ck_assert_msg(a != NULL, "%s", err.message);
    ck_assert_str_eq(a->name, "fixture-good");
    ck_assert_uint_eq(a->abi_major, PP_ABI_MAJOR);
    ck_assert_uint_eq(a->input_slot_count, 2);
    ck_assert_ptr_eq(pp_loader_get(l, "fixture-good", &err), a); /* cached */
    ck_assert_ptr_nonnull(strstr(pp_loader_path_of(l, "fixture-good"), "fixture-good.so"));
    pp_loader_free(l);
}
END_TEST

/* The versions as the loader prints them, from the headers this is built
 * against (the fixtures declare PP_ABI_MINOR). */
#define ABI_STR_(x)  #x
#define ABI_STR(x)   ABI_STR_(x)
#define HOST_ABI     "host ABI 1." ABI_STR(PP_ABI_MINOR)
#define PLUGIN_ABI_1 "plugin ABI 1." ABI_STR(PP_ABI_MINOR)
#define PLUGIN_ABI_2 "plugin ABI 2." ABI_STR(PP_ABI_MINOR)

/* A plugin built against ABI 1.0 loads in a host of a later minor. */
START_TEST(loads_older_minor)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = fixture_loader();
    const pp_analyzer *a = pp_loader_get(l, "fixture-abi10", &err);

    ck_assert_msg(a != NULL, "%s", err.message);
    ck_assert_uint_eq(a->abi_minor, 0);
    ck_assert_uint_lt(a->abi_minor, PP_ABI_MINOR);
    pp_loader_free(l);
}
END_TEST

/* ABI 1.3's fork and merge: a 1.2 plugin's descriptor ends before them
 * (the engine then reads serially); a 1.3 one that sets them has them. */
START_TEST(fork_only_within_struct_size)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = fixture_loader();
    const pp_analyzer *old = pp_loader_get(l, "fixture-abi12", &err);
    const pp_analyzer *now = pp_loader_get(l, "fixture-fork", &err);

    ck_assert_msg(old != NULL && now != NULL, "%s", err.message);
    ck_assert_uint_eq(old->abi_minor, 2);
    ck_assert_uint_eq(old->struct_size, offsetof(pp_analyzer, fork));
    ck_assert(!PP_ANALYZER_HAS(old, fork));
    ck_assert(PP_ANALYZER_HAS(now, merge));
    ck_assert(now->fork != NULL && now->merge != NULL);
    pp_loader_free(l);
}
END_TEST

START_TEST(refuses_other_major)
{
    static const char *const needles[] = { "fixture-major2.so", PLUGIN_ABI_2, HOST_ABI, "major",
                                           NULL };
    expect_refusal("fixture-major2", PP_EPLUGIN, needles);
}
END_TEST

START_TEST(refuses_newer_minor)
{
    static const char *const needles[] = { "fixture-minor99.so", "plugin ABI 1.99", HOST_ABI,
                                           "newer", NULL };
    expect_refusal("fixture-minor99", PP_EPLUGIN, needles);
}
END_TEST

START_TEST(refuses_short_descriptor)
{
    static const char *const needles[] = { "fixture-short.so", "descriptor is 16 bytes",
                                           PLUGIN_ABI_1, HOST_ABI, NULL };
    expect_refusal("fixture-short", PP_EPLUGIN, needles);
}
END_TEST

START_TEST(refuses_wrong_name)
{
    static const char *const needles[] = { "fixture-wrongname.so", "'somebody-else'",
                                           "'fixture-wrongname'", NULL };
    expect_refusal("fixture-wrongname", PP_EPLUGIN, needles);
}
END_TEST

START_TEST(refuses_missing_entry)
{
    static const char *const needles[] = { "fixture-noentry.so", "no perfpipe_plugin_entry symbol",
                                           NULL };
    expect_refusal("fixture-noentry", PP_EPLUGIN, needles);
}
END_TEST

START_TEST(refuses_non_shared_object)
{
    char dir[] = "/tmp/pp-loader-XXXXXX";
    char path[4200];
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = pp_loader_new();
    FILE *f;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/junk.so", dir);
    f = fopen(path, "w");
    fputs("this is not an ELF file\n", f);
    fclose(f);
    pp_loader_add_dir(l, dir, &err);
    ck_assert_ptr_null(pp_loader_get(l, "junk", &err));
    ck_assert_int_eq(err.code, PP_EPLUGIN);
    ck_assert_ptr_nonnull(strstr(err.message, "junk.so: cannot load"));
    pp_loader_free(l);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(reports_not_found_with_dirs)
{
    static const char *const needles[] = { "no analyzer 'nosuch'", "nosuch.so", fixtures,
                                           "perfpipe plugins", NULL };
    expect_refusal("nosuch", PP_ENOTFOUND, needles);
}
END_TEST

START_TEST(refuses_path_like_names)
{
    static const char *const needles[] = { "not an analyzer name", NULL };
    expect_refusal("../plugins/fixture-good", PP_EINVAL, needles);
}
END_TEST

START_TEST(env_path_then_installed_dir)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = pp_loader_new();

    setenv("PERFPIPE_PLUGIN_PATH", "/nonexistent-a:/nonexistent-b", 1);
    setenv("HOME", "/home/someone", 1);
    ck_assert_int_eq(pp_loader_add_dir(l, "/first", &err), PP_OK);
    ck_assert_int_eq(pp_loader_add_defaults(l, &err), PP_OK);
    ck_assert_uint_eq(pp_loader_dir_count(l), strcmp(LOCALPLUGINDIR, PLUGINDIR) != 0 ? 6 : 5);
    ck_assert_str_eq(pp_loader_dir(l, 0), "/first");
    ck_assert_str_eq(pp_loader_dir(l, 1), "/nonexistent-a");
    ck_assert_str_eq(pp_loader_dir(l, 2), "/nonexistent-b");
    ck_assert_str_eq(pp_loader_dir(l, 3), "/home/someone/.local/lib/perfpipe/plugins-1");
    /* This test program is not the perfpipe beside the build-tree marker. */
    ck_assert_str_eq(pp_loader_dir(l, 4), PLUGINDIR);
    /* Then the local administrator's (third-party plugins' make install). */
    if (strcmp(LOCALPLUGINDIR, PLUGINDIR) != 0)
        ck_assert_str_eq(pp_loader_dir(l, 5), LOCALPLUGINDIR);
    pp_loader_free(l);
}
END_TEST

typedef struct seen {
    int ok, refused, shadowed;
    char refusals[32][PP_ERROR_MESSAGE_MAX];
    char names[32][64];
} seen;

static void
collect(void *user, const pp_plugin_candidate *c)
{
    seen *s = user;
    int i = s->ok + s->refused;

    if (i >= 32)
        return;
    snprintf(s->names[i], sizeof s->names[i], "%s", c->file_name);
    if (c->analyzer != NULL) {
        s->ok++;
        s->refusals[i][0] = '\0';
    } else {
        s->refused++;
        snprintf(s->refusals[i], sizeof s->refusals[i], "%s", c->refusal);
        if (strstr(c->refusal, "comes first") != NULL)
            s->shadowed++;
    }
}

START_TEST(scan_lists_every_candidate)
{
    seen s;
    pp_loader *l = fixture_loader();
    int found_major = 0;

    memset(&s, 0, sizeof s);
    pp_loader_scan(l, collect, &s);
    /* good, createfail, crash, finishfail, badrow, errfinding load; 5 refused. */
    ck_assert_int_eq(
        s.ok,
        15); /* and abi10, heap11, heap12, heap12w, heap14, fork, forkcrash, forkhang, abi12 */
    ck_assert_int_eq(s.refused, 5);
    for (int i = 0; i < s.ok + s.refused; i++)
        if (strcmp(s.names[i], "fixture-major2") == 0) {
            found_major = 1;
            ck_assert_ptr_nonnull(strstr(s.refusals[i], PLUGIN_ABI_2 ", " HOST_ABI));
        }
    ck_assert(found_major);
    pp_loader_free(l);
}
END_TEST

/* Two plugins with one name: the later directory's is listed as shadowed. */
START_TEST(scan_reports_duplicates)
{
    char dir[] = "/tmp/pp-dup-XXXXXX";
    char cmd[8400];
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = fixture_loader();
    seen s;

    memset(&s, 0, sizeof s);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp '%s/fixture-good.so' '%s/'", fixtures, dir);
    ck_assert_int_eq(system(cmd), 0);
    pp_loader_add_dir(l, dir, &err);
    pp_loader_scan(l, collect, &s);
    ck_assert_int_eq(s.shadowed, 1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    pp_loader_free(l);
}
END_TEST

START_TEST(check_accepts_and_rejects_descriptors)
{
    pp_error err = PP_ERROR_INIT;
    pp_analyzer d;

    memset(&d, 0, sizeof d);
    ck_assert_int_eq(pp_plugin_check(NULL, "x", "x.so", &err), PP_EPLUGIN);
    d.struct_size = sizeof d;
    d.abi_major = PP_ABI_MAJOR;
    d.name = "x";
    d.version = "1";
    ck_assert_int_eq(pp_plugin_check(&d, "x", "x.so", &err), PP_EPLUGIN);
    ck_assert_ptr_nonnull(strstr(err.message, "lacks a callback"));
}
END_TEST

static int
nop_create(const pp_host_api *h, pp_ctx *c, const pp_options *o, void **s, pp_error *e)
{
    (void)h, (void)c, (void)o, (void)e;
    *s = NULL;
    return PP_OK;
}
static int
nop_consume(void *s, const pp_record *r, pp_error *e)
{
    (void)s, (void)r, (void)e;
    return PP_OK;
}
static int
nop_finish(void *s, pp_ctx *c, pp_error *e)
{
    (void)s, (void)c, (void)e;
    return PP_OK;
}
static void
nop_destroy(void *s)
{
    (void)s;
}

/* ABI 1.5's table declarations: checked before any plugin code runs (the
 * key, the subject and the figures are declared columns, axes are known);
 * a 1.4 descriptor, whose struct_size ends before `tables`, is never read
 * past its end. */
START_TEST(check_table_declarations)
{
    static const pp_column cols[] = { { "frame", PP_COL_STRING, 0 },
                                      { "ms", PP_COL_NUMBER, 0 },
                                      { NULL, 0, 0 } };
    static const char *const key[] = { "frame", NULL };
    static const pp_figure_decl figs[] = { { "ms", "ms", PP_AXIS_TIME }, { NULL, NULL, NULL } };
    static const pp_figure_decl bad_axis[] = { { "ms", "ms", "memory" }, { NULL, NULL, NULL } };
    static const pp_figure_decl no_col[] = { { "bytes", "bytes", PP_AXIS_ALLOCATION },
                                             { NULL, NULL, NULL } };
    pp_table_decl tables[] = { { "hot", cols, key, "frame", figs, NULL, NULL }, { NULL } };
    pp_error err = PP_ERROR_INIT;
    pp_analyzer d = { PP_ANALYZER_HEADER,     .name = "x",
                      .version = "1",         .input_kinds = PP_KIND_NETTRACE,
                      .input_slot_count = 1,  .create = nop_create,
                      .consume = nop_consume, .finish = nop_finish,
                      .destroy = nop_destroy, .tables = tables };

    ck_assert_msg(pp_plugin_check(&d, "x", "x.so", &err) == PP_OK, "%s", err.message);
    tables[0].subject = "thread";
    ck_assert_int_eq(pp_plugin_check(&d, "x", "x.so", &err), PP_EPLUGIN);
    ck_assert_msg(strstr(err.message, "table 'hot' declares subject 'thread'") != NULL, "%s",
                  err.message);
    tables[0].subject = "frame";
    tables[0].figures = bad_axis;
    ck_assert_int_eq(pp_plugin_check(&d, "x", "x.so", &err), PP_EPLUGIN);
    ck_assert_msg(strstr(err.message, "figure 'ms' needs a unit") != NULL, "%s", err.message);
    tables[0].figures = no_col;
    ck_assert_int_eq(pp_plugin_check(&d, "x", "x.so", &err), PP_EPLUGIN);
    ck_assert_msg(strstr(err.message, "declares figure 'bytes'") != NULL, "%s", err.message);
    /* A 1.4 descriptor: `tables` lies past its end and is never read. */
    tables[0].figures = no_col;
    d.abi_minor = 4;
    d.struct_size = offsetof(pp_analyzer, tables);
    ck_assert_msg(pp_plugin_check(&d, "x", "x.so", &err) == PP_OK, "%s", err.message);
}
END_TEST

static Suite *
loader_suite(void)
{
    Suite *s = suite_create("loader");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, loads_good_plugin);
    tcase_add_test(tc, loads_older_minor);
    tcase_add_test(tc, fork_only_within_struct_size);
    tcase_add_test(tc, refuses_other_major);
    tcase_add_test(tc, refuses_newer_minor);
    tcase_add_test(tc, refuses_short_descriptor);
    tcase_add_test(tc, refuses_wrong_name);
    tcase_add_test(tc, refuses_missing_entry);
    tcase_add_test(tc, refuses_non_shared_object);
    tcase_add_test(tc, reports_not_found_with_dirs);
    tcase_add_test(tc, refuses_path_like_names);
    tcase_add_test(tc, env_path_then_installed_dir);
    tcase_add_test(tc, scan_lists_every_candidate);
    tcase_add_test(tc, scan_reports_duplicates);
    tcase_add_test(tc, check_accepts_and_rejects_descriptors);
    tcase_add_test(tc, check_table_declarations);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(loader_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
