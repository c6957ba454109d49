/* Unit tests of the portable PDB reader (core/pdb): the fixtures of
 * tests/data/pdb (tests/pdb/lines built with its PDB beside it, embedded,
 * and rebuilt with a change) looked up method by method, the expected
 * lines taken from the PP-LINE markers of tests/pdb/lines/Lines.cs; the
 * compressed integers of ECMA-335 II.23.2's examples; every prefix and
 * many one-byte damages of the files read without a fault. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "pdb/pdb.h"

static const char *
srcdir(void)
{
    const char *s = getenv("PP_SRCDIR");
    return s ? s : TEST_SRCDIR;
}

static uint8_t *
slurp(const char *rel, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", srcdir(), rel);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *b = malloc((size_t)n + 1);
    ck_assert(b && fread(b, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

/* The 1-based line of the "// PP-LINE: name" marker in Lines.cs. */
static uint32_t
marker(const char *name)
{
    size_t len;
    char *src = (char *)slurp("tests/pdb/lines/Lines.cs", &len);
    char want[128];
    snprintf(want, sizeof want, "// PP-LINE: %s\n", name);
    char *hit = strstr(src, want);
    ck_assert_msg(hit != NULL, "no marker %s", name);
    uint32_t line = 1;
    for (char *p = src; p < hit; p++)
        line += *p == '\n';
    free(src);
    return line;
}

/* The MethodDef token of the method named name (the first one). */
static uint32_t
method_token(const pp_pe_info *pe, const char *name)
{
    pp_md md;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_md_open(pe->metadata, pe->metadata_len, &md, &err), PP_OK);
    for (uint32_t r = 1; r <= md.rows[PP_MD_TABLE_METHODDEF]; r++) {
        uint32_t idx;
        const char *s;
        ck_assert_int_eq(pp_md_cell(&md, PP_MD_TABLE_METHODDEF, r, 3, &idx, &err), PP_OK);
        ck_assert_int_eq(pp_md_string(&md, idx, &s, &err), PP_OK);
        if (!strcmp(s, name))
            return 0x06000000u | r;
    }
    ck_abort_msg("no method %s", name);
    return 0;
}

typedef struct fixture {
    uint8_t *dll;
    size_t dll_len;
    pp_pe_info pe;
    pp_pdb *pdb;
} fixture;

static void
open_fixture(fixture *fx, const char *variant)
{
    char rel[256];
    pp_error err = PP_ERROR_INIT;
    snprintf(rel, sizeof rel, "tests/data/pdb/%s/Lines.dll", variant);
    fx->dll = slurp(rel, &fx->dll_len);
    ck_assert_int_eq(pp_pe_read(fx->dll, fx->dll_len, &fx->pe, &err), PP_OK);
    ck_assert(fx->pe.has_cli && fx->pe.has_codeview && fx->pe.portable && !fx->pe.ready_to_run);
    if (!strcmp(variant, "embedded")) {
        uint8_t *buf;
        size_t n;
        ck_assert_int_eq(pp_pe_inflate_pdb(&fx->pe, &buf, &n, &err), PP_OK);
        ck_assert_int_eq(n, fx->pe.embedded_size);
        ck_assert_int_eq(pp_pdb_open_memory(buf, n, 1, &fx->pdb, &err), PP_OK);
    } else {
        char path[4096];
        ck_assert(fx->pe.embedded == NULL);
        snprintf(path, sizeof path, "%s/tests/data/pdb/%s/Lines.pdb", srcdir(), variant);
        ck_assert_msg(pp_pdb_open_file(path, &fx->pdb, &err) == PP_OK, "%s", err.message);
    }
}

static void
close_fixture(fixture *fx)
{
    pp_pdb_close(fx->pdb);
    free(fx->dll);
}

static pp_source_line
look(const fixture *fx, const char *method, int32_t il)
{
    pp_source_line sl;
    pp_error err = PP_ERROR_INIT;
    int rc = pp_pdb_lookup(fx->pdb, method_token(&fx->pe, method), il, &sl, &err);
    ck_assert_msg(rc == PP_OK, "%s IL %d: %s", method, il, err.message);
    ck_assert_str_eq(sl.file, "/src/lines/Lines.cs");
    return sl;
}

/* The IL offset of the first visible sequence point on line in method. */
static int32_t
il_of_line(const fixture *fx, const char *method, uint32_t line)
{
    pp_seq_point *pts;
    size_t n;
    pp_error err = PP_ERROR_INIT;
    uint32_t tok = method_token(&fx->pe, method);
    ck_assert_int_eq(pp_pdb_sequence_points(fx->pdb, tok & 0xffffff, &pts, &n, &err), PP_OK);
    for (size_t i = 0; i < n; i++)
        if (pts[i].start_line == line) {
            int32_t il = (int32_t)pts[i].il_offset;
            free(pts);
            return il;
        }
    free(pts);
    ck_abort_msg("%s has no sequence point on line %u", method, line);
    return -1;
}

static void
check_lines(const char *variant)
{
    fixture fx;
    open_fixture(&fx, variant);
    ck_assert_int_eq(pp_pdb_check_id(fx.pdb, fx.pe.guid, NULL), PP_OK);
    /* The portable PDB id's last 4 bytes are the CodeView entry's stamp. */
    ck_assert_int_eq(fx.pdb->md.pdb_id[16] | fx.pdb->md.pdb_id[17] << 8 |
                         fx.pdb->md.pdb_id[18] << 16 | (uint32_t)fx.pdb->md.pdb_id[19] << 24,
                     fx.pe.stamp);

    ck_assert_uint_eq(look(&fx, "Sum", 0).line, marker("sum-first"));
    ck_assert_uint_eq(look(&fx, "Sum", PP_IL_PROLOG).line, marker("sum-first"));
    pp_source_line sl = look(&fx, "Sum", il_of_line(&fx, "Sum", marker("sum-body")));
    ck_assert_uint_eq(sl.line, marker("sum-body"));
    ck_assert_uint_eq(sl.column, 17); /* "s += i * 3;" starts at column 17 */
    /* One IL byte past a point's start is still that point's line. */
    ck_assert_uint_eq(look(&fx, "Sum", il_of_line(&fx, "Sum", marker("sum-body")) + 1).line,
                      marker("sum-body"));
    uint32_t last = look(&fx, "Sum", PP_IL_EPILOG).line;
    ck_assert(last >= marker("sum-return") && last <= marker("sum-return") + 1);

    /* The async method's body is the state machine's MoveNext. */
    int32_t await_il = il_of_line(&fx, "MoveNext", marker("async-await"));
    ck_assert_uint_eq(look(&fx, "MoveNext", await_il).line, marker("async-await"));
    ck_assert_uint_eq(
        look(&fx, "MoveNext", il_of_line(&fx, "MoveNext", marker("async-after"))).line,
        marker("async-after"));
    il_of_line(&fx, "MoveNext", marker("async-first"));

    /* The lambda is its own method, on the line of Squares, further right. */
    pp_source_line lam = look(&fx, "<Squares>b__2_0", 0);
    pp_source_line sq = look(&fx, "Squares", 0);
    ck_assert_uint_eq(lam.line, marker("lambda"));
    ck_assert_uint_eq(sq.line, marker("lambda"));
    ck_assert_uint_gt(lam.column, sq.column);

    pp_error err = PP_ERROR_INIT;
    pp_source_line none;
    ck_assert_int_eq(pp_pdb_lookup(fx.pdb, 0x06000000u | 9999, 0, &none, &err), PP_EFORMAT);
    ck_assert_int_eq(pp_pdb_lookup(fx.pdb, 0x02000001u, 0, &none, &err), PP_EINVAL);
    ck_assert_int_eq(
        pp_pdb_lookup(fx.pdb, method_token(&fx.pe, "Sum"), PP_IL_NO_MAPPING, &none, &err),
        PP_ENOTFOUND);
    close_fixture(&fx);
}

START_TEST(beside_lines)
{
    check_lines("portable");
}
END_TEST

START_TEST(embedded_lines)
{
    check_lines("embedded");
}
END_TEST

START_TEST(mismatch_refused)
{
    fixture fx;
    pp_pdb *other;
    pp_error err = PP_ERROR_INIT;
    char path[4096], want[37], have[37];
    open_fixture(&fx, "portable");
    snprintf(path, sizeof path, "%s/tests/data/pdb/changed/Lines.pdb", srcdir());
    ck_assert_int_eq(pp_pdb_open_file(path, &other, &err), PP_OK);
    ck_assert_int_eq(pp_pdb_check_id(other, fx.pe.guid, &err), PP_EFORMAT);
    pp_pdb_guid_text(fx.pe.guid, want);
    pp_pdb_guid_text(other->md.pdb_id, have);
    ck_assert_msg(strstr(err.message, want) && strstr(err.message, have), "%s", err.message);
    pp_pdb_close(other);
    close_fixture(&fx);
}
END_TEST

START_TEST(compressed_integers)
{
    static const struct {
        uint8_t b[4];
        int n;
        uint32_t u;
    } us[] = {
        { { 0x03 }, 1, 0x03 },
        { { 0x7f }, 1, 0x7f },
        { { 0x80, 0x80 }, 2, 0x80 },
        { { 0xae, 0x57 }, 2, 0x2e57 },
        { { 0xbf, 0xff }, 2, 0x3fff },
        { { 0xc0, 0x00, 0x40, 0x00 }, 4, 0x4000 },
        { { 0xdf, 0xff, 0xff, 0xff }, 4, 0x1fffffff },
    };
    static const struct {
        uint8_t b[4];
        int n;
        int32_t v;
    } ss[] = {
        { { 0x06 }, 1, 3 },
        { { 0x7b }, 1, -3 },
        { { 0x80, 0x80 }, 2, 64 },
        { { 0x01 }, 1, -64 },
        { { 0xc0, 0x00, 0x40, 0x00 }, 4, 8192 },
        { { 0x80, 0x01 }, 2, -8192 },
        { { 0xdf, 0xff, 0xff, 0xfe }, 4, 268435455 },
        { { 0xc0, 0x00, 0x00, 0x01 }, 4, -268435456 },
    };
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
        const uint8_t *p = us[i].b;
        uint32_t u;
        ck_assert_int_eq(pp_md_uint(&p, us[i].b + us[i].n, &u), 0);
        ck_assert_uint_eq(u, us[i].u);
        ck_assert(p == us[i].b + us[i].n);
        p = us[i].b;
        ck_assert_int_eq(pp_md_uint(&p, us[i].b + us[i].n - 1, &u), -1); /* one byte short */
    }
    for (size_t i = 0; i < sizeof ss / sizeof ss[0]; i++) {
        const uint8_t *p = ss[i].b;
        int32_t v;
        ck_assert_int_eq(pp_md_int(&p, ss[i].b + ss[i].n, &v), 0);
        ck_assert_int_eq(v, ss[i].v);
    }
    static const uint8_t bad[] = { 0xe0, 0, 0, 0 };
    const uint8_t *p = bad;
    uint32_t u;
    ck_assert_int_eq(pp_md_uint(&p, bad + 4, &u), -1);
}
END_TEST

/* Every lookup of every method, for a PDB that may be damaged: no fault. */
static void
walk(uint8_t *buf, size_t len)
{
    pp_pdb *pdb;
    if (pp_pdb_open_memory(buf, len, 0, &pdb, NULL) != PP_OK)
        return;
    for (uint32_t m = 1; m <= pdb->md.rows[PP_MD_TABLE_METHODDEBUG] + 1; m++) {
        pp_source_line sl;
        pp_pdb_lookup(pdb, 0x06000000u | m, 0x7fff, &sl, NULL);
    }
    pp_pdb_close(pdb);
}

START_TEST(damage_survived)
{
    size_t len;
    uint8_t *pdb = slurp("tests/data/pdb/portable/Lines.pdb", &len);
    for (size_t n = 0; n < len; n += 7) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, pdb, n);
        walk(cut, n);
        free(cut);
    }
    uint8_t *copy = malloc(len);
    for (size_t at = 0; at < len; at += 3) {
        memcpy(copy, pdb, len);
        copy[at] ^= 0xa5;
        walk(copy, len);
    }
    free(copy);
    size_t dlen;
    uint8_t *dll = slurp("tests/data/pdb/embedded/Lines.dll", &dlen);
    for (size_t at = 0; at < dlen; at += 5) {
        uint8_t saved = dll[at];
        pp_pe_info pe;
        dll[at] ^= 0x5a;
        if (pp_pe_read(dll, dlen, &pe, NULL) == PP_OK && pe.embedded) {
            uint8_t *buf;
            size_t n;
            if (pp_pe_inflate_pdb(&pe, &buf, &n, NULL) == PP_OK) {
                walk(buf, n);
                free(buf);
            }
        }
        dll[at] = saved;
    }
    pp_pe_info pe;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_pe_read(pdb, len, &pe, &err), PP_EFORMAT);
    ck_assert_int_eq(err.offset, 0);
    free(dll);
    free(pdb);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("pdb");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, beside_lines);
    tcase_add_test(tc, embedded_lines);
    tcase_add_test(tc, mismatch_refused);
    tcase_add_test(tc, compressed_integers);
    tcase_add_test(tc, damage_survived);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
