/* Where a fix lands (core/nettrace/landing.c, modules.c): the classifier's
 * rules on the paths a .NET app really has, and module identity on the
 * frames of a real capture (fix-regex-bad: the workload, its framework). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/nettrace.h>
#include "input/source.h"
#include "nettrace/nettrace_internal.h"
#include "nettrace/landing.h"

#define FW     "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/"
#define APPDIR "/srv/shop/bin/Release/net10.0"

static pp_lands_class
classify(const pp_lands_app *app, const char *path)
{
    char name[256];
    const char *why = NULL;

    pp_lands_module_name(path, name, sizeof name);
    pp_lands_class c = pp_lands_classify(app, path, name, &why);
    ck_assert_ptr_nonnull(why);
    ck_assert_int_gt(strlen(why), 10);
    return c;
}

START_TEST(app_from_command_line)
{
    pp_lands_app a;

    pp_lands_app_init(&a, "dotnet " APPDIR "/Shop.Web.dll --urls http://+:80", FW "libcoreclr.so");
    ck_assert_str_eq(a.name, "Shop.Web");
    ck_assert_str_eq(a.dir, APPDIR);
    ck_assert_str_eq(a.runtime_dir, "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12");
    pp_lands_app_init(&a, "\"/usr/bin/dotnet\" exec --roll-forward Major Api.dll", NULL);
    ck_assert_str_eq(a.name, "Api");
    ck_assert_str_eq(a.dir, "");
    pp_lands_app_init(&a, APPDIR "/Shop.Web arg", NULL);
    ck_assert_str_eq(a.name, "Shop.Web");
    ck_assert_str_eq(a.dir, APPDIR);
    pp_lands_app_init(&a, NULL, NULL);
    ck_assert_str_eq(a.name, "");
}
END_TEST

START_TEST(classes)
{
    pp_lands_app a;

    pp_lands_app_init(&a, "dotnet " APPDIR "/Shop.Web.dll", FW "libcoreclr.so");
    ck_assert_int_eq(classify(&a, FW "System.Private.CoreLib.dll"), PP_LANDS_FRAMEWORK);
    ck_assert_int_eq(classify(&a, "/usr/share/dotnet/shared/Microsoft.AspNetCore.App/10.0.1/"
                                  "Microsoft.AspNetCore.Routing.dll"),
                     PP_LANDS_FRAMEWORK);
    ck_assert_int_eq(classify(&a,
                              "C:\\Program Files\\dotnet\\shared\\Microsoft.NETCore.App\\10.0.1\\"
                              "System.Linq.dll"),
                     PP_LANDS_FRAMEWORK);
    ck_assert_int_eq(classify(&a, "/home/u/.nuget/packages/newtonsoft.json/13.0.3/lib/net6.0/"
                                  "Newtonsoft.Json.dll"),
                     PP_LANDS_PACKAGE);
    ck_assert_int_eq(classify(&a, APPDIR "/Shop.Web.dll"), PP_LANDS_APPLICATION);
    ck_assert_int_eq(classify(&a, APPDIR "/Shop.Reports.dll"), PP_LANDS_APPLICATION);
    ck_assert_int_eq(classify(&a, APPDIR "/Microsoft.EntityFrameworkCore.dll"), PP_LANDS_PACKAGE);
    ck_assert_int_eq(classify(&a, APPDIR "/Serilog.Sinks.Console.dll"), PP_LANDS_PACKAGE);
    ck_assert_int_eq(classify(&a, "/opt/plugins/Other.dll"), PP_LANDS_UNKNOWN);
    ck_assert_int_eq(classify(&a, "RefEmit_InMemoryManifestModule"), PP_LANDS_UNKNOWN);
    ck_assert_int_eq(classify(&a, ""), PP_LANDS_UNKNOWN);
    ck_assert_int_eq(classify(&a, NULL), PP_LANDS_UNKNOWN);
    ck_assert_str_eq(pp_lands_class_name(PP_LANDS_PACKAGE), "package");
}
END_TEST

START_TEST(module_names)
{
    char n[64];

    pp_lands_module_name(FW "System.Private.CoreLib.dll", n, sizeof n);
    ck_assert_str_eq(n, "System.Private.CoreLib");
    pp_lands_module_name("C:\\app\\Shop.Web.EXE", n, sizeof n);
    ck_assert_str_eq(n, "Shop.Web");
    pp_lands_module_name("/x/Foo.ni.dll", n, sizeof n);
    ck_assert_str_eq(n, "Foo");
    pp_lands_module_name(NULL, n, sizeof n);
    ck_assert_str_eq(n, "");
}
END_TEST

/* Every frame of every alloc tick in a real capture: a Workload.* frame is
 * in module Workload (application), a System.Text.RegularExpressions.*
 * frame in that framework assembly; resolved frames all have a module. */
START_TEST(real_capture)
{
    const char *dir = getenv("PP_TESTDATA");
    char path[4096];
    void *src;
    pp_record rec;
    pp_error err = PP_ERROR_INIT;
    uint64_t ips[4096];
    size_t nips = 0;
    int rc;

    if (dir == NULL)
        return;
    snprintf(path, sizeof path, "%s/fix-regex-bad.nettrace", dir);
    ck_assert_int_eq(pp_nettrace_source_ops.open(path, NULL, &src, &err), PP_OK);
    while ((rc = pp_nettrace_source_ops.next(src, &rec, &err)) == 1) {
        const pp_trace_event *ev = rec.u.event;
        if (ev->provider_known == PP_PROVIDER_RUNTIME && ev->event_id == 10)
            for (uint32_t i = 0; i < ev->stack_depth && nips < 4096; i++)
                ips[nips++] = ev->stack[i];
    }
    ck_assert_int_eq(rc, 0);
    size_t app = 0, regex = 0, resolved = 0;
    for (size_t i = 0; i < nips; i++) {
        const char *name = pp_nettrace_symbolize(src, ips[i], 0);
        const char *mod = pp_nettrace_symbolize(src, ips[i], PP_SYM_MODULE);
        const char *cls = pp_nettrace_symbolize(src, ips[i], PP_SYM_MODULE_CLASS);
        const char *file = pp_nettrace_symbolize(src, ips[i], PP_SYM_MODULE_PATH);
        ck_assert_ptr_nonnull(pp_nettrace_symbolize(src, ips[i], PP_SYM_MODULE_WHY));
        if (strncmp(name, "?!", 2) == 0) {
            ck_assert_str_eq(mod, "");
            ck_assert_str_eq(cls, "unknown");
            continue;
        }
        resolved++;
        ck_assert_msg(mod[0] != '\0', "%s has no module", name);
        if (strncmp(name, "Workload.", 9) == 0) {
            ck_assert_str_eq(mod, "Workload");
            ck_assert_str_eq(cls, "application");
            ck_assert(strstr(file, "/Workload.dll") != NULL);
            app++;
        }
        if (strncmp(name, "System.Text.RegularExpressions.", 31) == 0) {
            ck_assert_str_eq(mod, "System.Text.RegularExpressions");
            ck_assert_str_eq(cls, "framework");
            ck_assert(strstr(file, "/shared/Microsoft.NETCore.App/") != NULL);
            regex++;
        }
    }
    ck_assert_uint_gt(resolved, 100);
    ck_assert_uint_gt(app, 10);
    ck_assert_uint_gt(regex, 10);
    pp_nettrace_source_ops.close(src);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("landing");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, app_from_command_line);
    tcase_add_test(tc, classes);
    tcase_add_test(tc, module_names);
    tcase_add_test(tc, real_capture);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
