/* core/nettrace/pe_codeview.c and modident.c's GUID text: the identity of an
 * assembly file (issue #44). A minimal PE32+ image is built here, with one
 * section holding a debug directory whose CodeView entry is RSDS: read whole,
 * then every truncation and a sweep of byte flips must give an answer, never
 * a crash or a read past the end (run under ASan in the sanitizer build). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nettrace/modident.h"

static const uint8_t GUID[16] = { 0xdd, 0xbf, 0x7c, 0xe1, 0x1c, 0x27, 0x78, 0x48,
                                  0x9c, 0x26, 0xd3, 0xe3, 0x35, 0x32, 0xc9, 0xd0 };

static void
put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void
put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* DOS header, PE header at 0x80, PE32+ optional header (240 bytes, 16 data
 * directories), one section (.text: RVA 0x2000, file 0x400, 0x200 bytes)
 * holding the debug directory at RVA 0x2000 and the RSDS record at 0x2040. */
static size_t
image(uint8_t *b, int codeview)
{
    memset(b, 0, 0x600);
    b[0] = 'M';
    b[1] = 'Z';
    put32(b + 0x3c, 0x80);
    memcpy(b + 0x80, "PE\0\0", 4);
    put16(b + 0x84, 0x8664);
    put16(b + 0x86, 1);   /* sections */
    put16(b + 0x94, 240); /* SizeOfOptionalHeader */
    uint8_t *opt = b + 0x98;
    put16(opt, 0x20b);
    put32(opt + 108, 16);             /* NumberOfRvaAndSizes */
    put32(opt + 112 + 6 * 8, 0x2000); /* debug directory RVA, size */
    put32(opt + 112 + 6 * 8 + 4, 28);
    uint8_t *sec = opt + 240;
    memcpy(sec, ".text", 5);
    put32(sec + 8, 0x200);
    put32(sec + 12, 0x2000);
    put32(sec + 16, 0x200);
    put32(sec + 20, 0x400);
    uint8_t *dbg = b + 0x400;
    put32(dbg + 12, codeview ? 2 : 16); /* CODEVIEW, or REPRO */
    put32(dbg + 16, 24 + 10);
    put32(dbg + 20, 0x2040);
    put32(dbg + 24, 0x440);
    memcpy(b + 0x440, "RSDS", 4);
    memcpy(b + 0x444, GUID, 16);
    put32(b + 0x454, 1);
    memcpy(b + 0x458, "/x/a.pdb", 9);
    return 0x600;
}

static char path[64];

static void
write_file(const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, n, f), n);
    fclose(f);
}

static void
setup(void)
{
    strcpy(path, "/tmp/pp-modident-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

static void
teardown(void)
{
    unlink(path);
}

START_TEST(guid_text_is_windows_order)
{
    char g[37];

    pp_nt_guid_text(GUID, g);
    ck_assert_str_eq(g, "e17cbfdd-271c-4878-9c26-d3e33532c9d0");
}
END_TEST

START_TEST(reads_codeview)
{
    uint8_t b[0x600];
    pp_nt_pe_identity id;

    write_file(b, image(b, 1));
    ck_assert_int_eq(pp_nt_pe_identity_read(path, &id), PP_NT_PE_OK);
    ck_assert_mem_eq(id.guid, GUID, 16);
    ck_assert_uint_eq(id.age, 1);
    write_file(b, image(b, 0));
    ck_assert_int_eq(pp_nt_pe_identity_read(path, &id), PP_NT_PE_NODEBUG);
    ck_assert_int_eq(pp_nt_pe_identity_read("/nonexistent/pp/a.dll", &id), PP_NT_PE_NOFILE);
    write_file((const uint8_t *)"not a PE", 8);
    ck_assert_int_eq(pp_nt_pe_identity_read(path, &id), PP_NT_PE_BAD);
}
END_TEST

/* Every cut answers without reading past the end: only the whole record
 * gives OK. */
START_TEST(truncations_and_flips_never_overread)
{
    uint8_t b[0x600], m[0x600];
    pp_nt_pe_identity id;
    size_t n = image(b, 1);

    for (size_t cut = 0; cut < n; cut += 7) {
        write_file(b, cut);
        int rc = pp_nt_pe_identity_read(path, &id);
        ck_assert_msg(rc != PP_NT_PE_OK || cut >= 0x458, "cut %zu read OK", cut);
    }
    for (size_t at = 0; at < 0x460; at += 3) {
        memcpy(m, b, n);
        m[at] ^= 0xff;
        write_file(m, n);
        (void)pp_nt_pe_identity_read(path, &id);
    }
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("modident");
    TCase *tc = tcase_create("pe");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, guid_text_is_windows_order);
    tcase_add_test(tc, reads_codeview);
    tcase_add_test(tc, truncations_and_flips_never_overread);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
