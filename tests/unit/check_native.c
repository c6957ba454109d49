/* core/native: the module map sidecar (parse, errors with FILE:LINE:COLUMN,
 * round trip) and ELF symbol lookup, checked on this test program itself
 * (built with a .symtab) and on libc (.dynsym) against the dynamic
 * linker's own answer (dladdr). */

#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include "native/native.h"

/* A function whose address the lookup must name. */
int check_native_probe_fn(int x);
__attribute__((noinline)) int
check_native_probe_fn(int x)
{
    return x * 7 + (int)getpid() % 3;
}

static const char good[] = "# perfpipe-maps/1 pid=4242\n"
                           "# start-end perms offset build-id path\n"
                           "7f0000002000-7f0000003000 r-xp 00001000 0123abcd /usr/lib/libb.so\n"
                           "\n"
                           "7f0000000000-7f0000001000 r--p 00000000 - /usr/lib/lib a.so\n";

START_TEST(maps_parse_good)
{
    pp_native_maps m;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_native_maps_parse(good, strlen(good), "t.maps", &m, &err), PP_OK);
    ck_assert_uint_eq(m.pid, 4242);
    ck_assert_uint_eq(m.n, 2);
    ck_assert_uint_eq(m.v[0].start, 0x7f0000000000ull); /* sorted */
    ck_assert_str_eq(m.v[0].path, "/usr/lib/lib a.so");
    ck_assert_str_eq(m.v[0].build_id, "-");
    ck_assert_uint_eq(m.v[1].offset, 0x1000);
    ck_assert_uint_eq(m.v[1].end, 0x7f0000003000ull);
    ck_assert_str_eq(m.v[1].perms, "r-xp");
    ck_assert_str_eq(m.v[1].build_id, "0123abcd");
    pp_native_maps_free(&m);
}
END_TEST

static void
expect_error(const char *text, const char *msg)
{
    pp_native_maps m;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_native_maps_parse(text, strlen(text), "t.maps", &m, &err), PP_EFORMAT);
    if (strncmp(err.message, msg, strlen(msg)) != 0)
        ck_abort_msg("got \"%s\", expected a message starting \"%s\"", err.message, msg);
    ck_assert_uint_eq(m.n, 0);
}

START_TEST(maps_parse_errors)
{
    expect_error("7f00-7f01 r-xp 0 - /x\n", "t.maps:1:1: expected the first line");
    expect_error("# perfpipe-maps/1 pid=1\n7f00-7e00 r-xp 0 - /x\n",
                 "t.maps:2:6: expected a hex end address above the start");
    expect_error("# perfpipe-maps/1 pid=1\n7f00-7f01 rzxp 0 - /x\n",
                 "t.maps:2:11: expected permissions like r-xp");
    expect_error("# perfpipe-maps/1 pid=1\n\n7f00-7f01 r-xp 0 XYZ /x\n",
                 "t.maps:3:18: expected a build id in lower-case hex or '-'");
    expect_error("# perfpipe-maps/1 pid=1\n7f00-7f01 r-xp 0 - x\n",
                 "t.maps:2:20: expected an absolute module path");
    expect_error("# perfpipe-maps/1 pid=1\nzz-7f01 r-xp 0 - /x\n",
                 "t.maps:2:1: expected a hex start address");
    expect_error("# perfpipe-maps/1 pid=1\n7f00-7f01 r-xp\n",
                 "t.maps:2:15: expected a space before the file offset");
}
END_TEST

START_TEST(maps_load_missing_and_round_trip)
{
    pp_native_maps m, back;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_native_maps_load("/nonexistent/x.nettrace.maps", &m, &err), PP_ENOTFOUND);
    ck_assert_int_eq(pp_native_maps_parse(good, strlen(good), "t.maps", &m, &err), PP_OK);
    char path[] = "/tmp/check_native_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(pp_native_maps_save(&m, path, &err), PP_OK);
    ck_assert_int_eq(pp_native_maps_load(path, &back, &err), PP_OK);
    ck_assert_uint_eq(back.n, m.n);
    ck_assert_uint_eq(back.pid, 4242);
    for (size_t i = 0; i < m.n; i++) {
        ck_assert_uint_eq(back.v[i].start, m.v[i].start);
        ck_assert_uint_eq(back.v[i].end, m.v[i].end);
        ck_assert_uint_eq(back.v[i].offset, m.v[i].offset);
        ck_assert_str_eq(back.v[i].build_id, m.v[i].build_id);
        ck_assert_str_eq(back.v[i].path, m.v[i].path);
    }
    unlink(path);
    /* A new sidecar's mode follows the umask, as the trace's does. */
    mode_t old = umask(022);
    ck_assert_int_eq(pp_native_maps_save(&m, path, &err), PP_OK);
    umask(old);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0644);
    unlink(path);
    /* A device is written in place, never replaced. */
    ck_assert_int_eq(pp_native_maps_save(&m, "/dev/null", &err), PP_OK);
    ck_assert_int_eq(stat("/dev/null", &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
    /* A trace that went to a device gets no sidecar beside it. */
    pp_native_maps early = { 0 };
    ck_assert_int_eq(pp_native_maps_keep((uint64_t)getpid(), &early, "/dev/null", &err),
                     PP_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    ck_assert_int_ne(access("/dev/null.maps", F_OK), 0);
    pp_native_maps_free(&m);
    pp_native_maps_free(&back);
}
END_TEST

START_TEST(elf_not_elf)
{
    pp_native_elf *e;
    pp_error err = PP_ERROR_INIT;
    char path[] = "/tmp/check_native_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_eq(write(fd, "not an elf file at all\n", 23), 23);
    close(fd);
    ck_assert_int_eq(pp_native_elf_open(path, &e, &err), PP_EFORMAT);
    ck_assert_ptr_null(e);
    unlink(path);
    ck_assert_int_eq(pp_native_elf_open("/nonexistent/lib.so", &e, &err), PP_EIO);
}
END_TEST

/* This process's own maps, as perfpipe collect would save them. */
static pp_native_syms *
self_syms(void)
{
    pp_native_maps m;
    pp_error err = PP_ERROR_INIT;
    pp_native_syms *s;
    ck_assert_int_eq(pp_native_maps_read_proc((uint64_t)getpid(), &m, &err), PP_OK);
    ck_assert_uint_gt(m.n, 2);
    ck_assert_int_eq(pp_native_syms_new(&m, &s), PP_OK);
    return s;
}

START_TEST(elf_lookup_self_symtab)
{
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(k, 0);
    exe[k] = 0;
    pp_native_elf *e;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_native_elf_open(exe, &e, &err), PP_OK);
    ck_assert_int_eq(pp_native_elf_full_symtab(e), 1);
    ck_assert_uint_gt(pp_native_elf_nsyms(e), 10);
    ck_assert_uint_eq(strlen(pp_native_elf_build_id(e)) % 2, 0); /* hex, or "-" if built without */
    pp_native_elf_close(e);

    pp_native_syms *s = self_syms();
    char name[512], want[600];
    const char *base = strrchr(exe, '/') + 1;
    uintptr_t ip = (uintptr_t)&check_native_probe_fn + 3;
    ck_assert_int_eq(pp_native_syms_name(s, ip, name, sizeof name), 1);
    snprintf(want, sizeof want, "%s!check_native_probe_fn", base);
    ck_assert_str_eq(name, want);
    /* An address in no mapping */
    ck_assert_int_eq(pp_native_syms_name(s, 16, name, sizeof name), 0);
    pp_native_syms_free(s);
}
END_TEST

START_TEST(elf_lookup_libc_dynsym)
{
    /* libc functions named by the dynamic linker, then by us. */
    void *fns[] = { (void *)&getpid, (void *)&qsort, (void *)&strtoull, (void *)&fopen };
    pp_native_syms *s = self_syms();
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        Dl_info di;
        ck_assert_int_ne(dladdr(fns[i], &di), 0);
        ck_assert_ptr_nonnull(di.dli_sname);
        uintptr_t ip = (uintptr_t)fns[i] + 5;
        char name[512];
        ck_assert_int_eq(pp_native_syms_name(s, ip, name, sizeof name), 1);
        const char *bang = strchr(name, '!');
        ck_assert_ptr_nonnull(bang);
        /* The maps name the file itself; dladdr may give the soname link
         * (libasan.so.8 for libasan.so.8.0.0 under ASan's interceptors). */
        char real[4096];
        const char *file = realpath(di.dli_fname, real) ? real : di.dli_fname;
        const char *sl = strrchr(file, '/');
        ck_assert_msg(strncmp(name, sl ? sl + 1 : file, (size_t)(bang - name)) == 0,
                      "%s is not in %s", name, file);
        /* Our name may be an alias of dladdr's: both must be the same address. */
        void *h = dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD);
        ck_assert_ptr_nonnull(h);
        void *at = dlsym(h, bang + 1);
        dlclose(h);
        if (at != di.dli_saddr)
            ck_abort_msg("%s: %s is at %p, dladdr says %s at %p", name, bang + 1, at, di.dli_sname,
                         di.dli_saddr);
    }
    pp_native_syms_free(s);
}
END_TEST

START_TEST(build_id_mismatch_is_said)
{
    char exe[4096], text[9000];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k] = 0;
    snprintf(text, sizeof text,
             "# perfpipe-maps/1 pid=1\n"
             "1000-2000 r-xp 00000000 deadbeefdeadbeef %s\n"
             "3000-4000 r-xp 00000000 - /nonexistent/libgone.so\n",
             exe);
    pp_native_maps m;
    pp_native_syms *s;
    ck_assert_int_eq(pp_native_maps_parse(text, strlen(text), "t", &m, NULL), PP_OK);
    ck_assert_int_eq(pp_native_syms_new(&m, &s), PP_OK);
    char name[512];
    ck_assert_int_eq(pp_native_syms_name(s, 0x1010, name, sizeof name), 2);
    ck_assert_ptr_nonnull(strstr(name, "!?(build-id mismatch)+0x10"));
    ck_assert_int_eq(pp_native_syms_name(s, 0x3020, name, sizeof name), 2);
    ck_assert_str_eq(name, "libgone.so!?(file missing)+0x20");
    pp_native_syms_free(s);
}
END_TEST

/* The installed runtime's System.Private.CoreLib.dll (a ReadyToRun image),
 * or NULL when no .NET runtime is installed here. */
static const char *
corelib(void)
{
    static char path[4096];
    const char *root = getenv("DOTNET_ROOT");
    char cmd[4200];
    snprintf(cmd, sizeof cmd,
             "ls -d %s/shared/Microsoft.NETCore.App/*/System.Private.CoreLib.dll "
             "2>/dev/null | tail -1",
             root && *root ? root : "/usr/share/dotnet");
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    int ok = fgets(path, sizeof path, p) != NULL;
    pclose(p);
    if (!ok)
        return NULL;
    path[strcspn(path, "\n")] = 0;
    return path[0] ? path : NULL;
}

START_TEST(maps_merge_keeps_first_seen)
{
    const char *a = "# perfpipe-maps/1 pid=7\n"
                    "3000-4000 r-xp 00000000 - /lib/b.so\n";
    const char *b = "# perfpipe-maps/1 pid=7\n"
                    "1000-2000 r-xp 00000000 - /lib/a.so\n"
                    "3800-4800 r-xp 00000000 - /lib/reused.so\n"
                    "5000-6000 r-xp 00001000 - /lib/c.so\n";
    pp_native_maps into, from;
    ck_assert_int_eq(pp_native_maps_parse(a, strlen(a), "a", &into, NULL), PP_OK);
    ck_assert_int_eq(pp_native_maps_parse(b, strlen(b), "b", &from, NULL), PP_OK);
    ck_assert_int_eq(pp_native_maps_merge(&into, &from), PP_OK);
    ck_assert_uint_eq(into.n, 3); /* the overlapping reused.so is dropped */
    ck_assert_str_eq(into.v[0].path, "/lib/a.so");
    ck_assert_str_eq(into.v[1].path, "/lib/b.so");
    ck_assert_str_eq(into.v[2].path, "/lib/c.so");
    ck_assert_uint_eq(from.n, 0);
    pp_native_maps_free(&into);
}
END_TEST

START_TEST(watch_sees_this_process)
{
    pp_native_watch *w = pp_native_watch_start((uint64_t)getpid(), 50);
    ck_assert_ptr_nonnull(w);
    usleep(120000);
    pp_native_maps m;
    pp_native_watch_stop(w, &m);
    ck_assert_uint_gt(m.n, 2);
    for (size_t i = 1; i < m.n; i++)
        ck_assert_uint_le(m.v[i - 1].end, m.v[i].start);
    pp_native_maps_free(&m);
    pp_native_watch_stop(NULL, &m);
    ck_assert_uint_eq(m.n, 0);
}
END_TEST

START_TEST(r2r_refuses_other_files)
{
    pp_native_r2r *r;
    pp_error err = PP_ERROR_INIT;
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k] = 0;
    ck_assert_int_eq(pp_native_r2r_open(exe, &r, &err), PP_EFORMAT); /* an ELF file */
    ck_assert_ptr_null(r);
    ck_assert_int_eq(pp_native_r2r_open("/nonexistent/x.dll", &r, &err), PP_EIO);
}
END_TEST

/* Copy n bytes of src to a temporary file, with byte flip (if < n) xor 0xff. */
static void
write_cut(const uint8_t *src, size_t n, size_t flip, char *path)
{
    strcpy(path, "/tmp/check_native_r2r.XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    for (size_t i = 0; i < n; i++)
        fputc(i == flip ? src[i] ^ 0xff : src[i], f);
    fclose(f);
}

START_TEST(r2r_corelib_names_and_damage)
{
    const char *cl = corelib();
    if (!cl) {
        fprintf(stderr, "check_native: no installed .NET runtime; ReadyToRun cases skipped\n");
        return;
    }
    pp_native_r2r *r;
    pp_error err = PP_ERROR_INIT;
    ck_assert_msg(pp_native_r2r_open(cl, &r, &err) == PP_OK, "%s", err.message);
    /* Names come out for a good share of the image's code, each with a type. */
    struct stat st;
    ck_assert_int_eq(stat(cl, &st), 0);
    size_t named = 0, probes = 0;
    for (uint64_t off = 0x1000; off < (uint64_t)st.st_size; off += 4093, probes++) {
        uint64_t d;
        const char *n = pp_native_r2r_lookup(r, off, &d);
        if (n) {
            named++;
            ck_assert_msg(strchr(n, '.') != NULL, "%s has no type", n);
        }
    }
    ck_assert_uint_gt(named, probes / 20);
    pp_native_r2r_close(r);

    /* Cut and flipped copies never read out of bounds (ASan watches). */
    FILE *f = fopen(cl, "rb");
    size_t len = (size_t)st.st_size;
    uint8_t *b = malloc(len);
    ck_assert_uint_eq(fread(b, 1, len, f), len);
    fclose(f);
    size_t cuts[] = { 0x40, 0x80, 0x200, 0x1000, len / 7, len / 3, len / 2, len - 1 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        for (size_t j = 0; j < 4; j++) {
            char path[64];
            size_t flip = j == 0 ? SIZE_MAX : (cuts[i] * (j + 1) * 2654435761u) % cuts[i];
            write_cut(b, cuts[i], flip, path);
            if (pp_native_r2r_open(path, &r, &err) == PP_OK) {
                for (uint64_t off = 0; off < cuts[i]; off += 977) {
                    uint64_t d;
                    pp_native_r2r_lookup(r, off, &d);
                }
                pp_native_r2r_close(r);
            }
            unlink(path);
        }
    free(b);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("native");
    TCase *tc = tcase_create("maps-elf");
    tcase_add_test(tc, maps_parse_good);
    tcase_add_test(tc, maps_parse_errors);
    tcase_add_test(tc, maps_load_missing_and_round_trip);
    tcase_add_test(tc, elf_not_elf);
    tcase_add_test(tc, elf_lookup_self_symtab);
    tcase_add_test(tc, elf_lookup_libc_dynsym);
    tcase_add_test(tc, build_id_mismatch_is_said);
    tcase_add_test(tc, maps_merge_keeps_first_seen);
    tcase_add_test(tc, watch_sees_this_process);
    tcase_add_test(tc, r2r_refuses_other_files);
    tcase_add_test(tc, r2r_corelib_names_and_damage);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
