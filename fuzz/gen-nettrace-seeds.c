/* Seed generator for the nettrace fuzz targets: writes small V6 traces (the
 * format of microsoft/perfview src/TraceEvent/EventPipe/NetTraceFormat.md,
 * "Current Version 6") and NetPerf/V3-5 headers into a directory.
 *
 * The kernel here has no user_events, so `dotnet-trace collect-linux` cannot
 * produce V6 on this machine and none of our real captures is V6; these
 * files are built from the spec at seed time (fuzz/seed-corpus.sh compiles
 * and runs this), never committed. Each one exercises what a real V6 writer
 * emits plus the parts the runtime seldom writes: every block kind, every
 * field type code (Object, DataLoc, UTF8CodeUnit...), every optional
 * metadata kind, every thread-info and label kind, both sequence-point
 * flushes, runtime events the analyzers read (GCAllocationTick_V4 with
 * stacks, MethodLoadVerbose_V2 for symbols, SampleProfiler ThreadSample).
 *
 *   gen-nettrace-seeds OUTDIR [ASSEMBLY]
 *
 * With ASSEMBLY (a PE file with a CodeView entry), v6-lines.nettrace also
 * has the methods' module (ModuleLoad_V2: /app/Workload.dll, the
 * assembly's PDB id) and their IL-to-native maps, so a reader asked for
 * source lines opens the module's assembly and PDB from the symbol path
 * (fuzz/fuzz_run.c links the in-tree Lines.dll there as Workload.dll).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/nettrace/ntbuild.h"

#define PROVIDER_RT "Microsoft-Windows-DotNETRuntime"
#define PROVIDER_SP "Microsoft-DotNETCore-SampleProfiler"

static const uint8_t guid[16] = { 0xe1, 0x3c, 0x0d, 0x23, 0xcc, 0xbc, 0x4e, 0x12,
                                  0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 };

static void
save(const char *dir, const char *name, const nb *f)
{
    char path[4096];
    FILE *o;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((o = fopen(path, "wb")) == NULL || fwrite(f->p, 1, f->n, o) != f->n || fclose(o) != 0) {
        perror(path);
        exit(1);
    }
}

/* "Nettrace" + reserved + major + minor, then the Trace block. */
static void
header(nb *f, uint32_t major, uint32_t minor, uint32_t ptr)
{
    nb b = { 0 };

    nb_put(f, "Nettrace", 8);
    nb_u32(f, 0);
    nb_u32(f, major);
    nb_u32(f, minor);
    nb_systime(&b);
    nb_u64(&b, 1000);
    nb_u64(&b, 1000000000);
    nb_u32(&b, ptr);
    nb_u32(&b, 3);
    nb_str8(&b, "ProcessId");
    nb_str8(&b, "4242");
    nb_str8(&b, "CommandLine");
    nb_str8(&b, "/usr/bin/dotnet Shop.dll --urls http://+:5000");
    nb_str8(&b, "OSInformation");
    nb_str8(&b, "Linux");
    nb_block6(f, 1, &b);
    nb_free(&b);
}

static void
threads(nb *f)
{
    nb b = { 0 };

    for (int i = 1; i <= 3; i++) {
        nb row = { 0 };
        nb_var(&row, (uint64_t)i);
        nb_u8(&row, 1);
        nb_str8(&row, i == 1 ? ".NET Main" : i == 2 ? ".NET TP Worker" : "");
        nb_u8(&row, 2);
        nb_var(&row, 4242);
        nb_u8(&row, 3);
        nb_var(&row, 4242 + (uint64_t)i);
        if (i == 3) {
            nb_u8(&row, 4);
            nb_str8(&row, "role");
            nb_str8(&row, "gc");
        }
        nb_u16(&b, (uint16_t)row.n);
        nb_cat(&b, &row);
        nb_free(&row);
    }
    nb_block6(f, 6, &b);
    nb_free(&b);
}

static void
field(nb *fields, const char *name, const uint8_t *type, size_t tn)
{
    nb x = { 0 };

    nb_str8(&x, name);
    nb_put(&x, type, tn);
    nb_u16(fields, (uint16_t)x.n);
    nb_cat(fields, &x);
    nb_free(&x);
}

/* One metadata row: no fields (the runtime's own events: the reader knows
 * their layout) or the given field list; optional version/opcode/level. */
static void
meta_row(nb *b, uint32_t id, const char *provider, uint32_t event, const char *name,
         const nb *fields, uint8_t version, int rich)
{
    nb row = { 0 }, opt = { 0 };

    nb_var(&row, id);
    nb_str8(&row, provider);
    nb_var(&row, event);
    nb_str8(&row, name);
    if (fields != NULL)
        nb_cat(&row, fields);
    else
        nb_u16(&row, 0);
    nb_u8(&opt, 9);
    nb_u8(&opt, version);
    nb_u8(&opt, 8);
    nb_u8(&opt, 4);
    nb_u8(&opt, 3);
    nb_u64(&opt, 0x1);
    if (rich) {
        nb_u8(&opt, 1);
        nb_u8(&opt, 1);
        nb_u8(&opt, 4);
        nb_str8(&opt, "Sold {Count} of {Item}");
        nb_u8(&opt, 5);
        nb_str8(&opt, "a user event");
        nb_u8(&opt, 6);
        nb_str8(&opt, "team");
        nb_str8(&opt, "shop");
        nb_u8(&opt, 7);
        nb_put(&opt, guid, 16);
    }
    nb_u16(&row, (uint16_t)opt.n);
    nb_cat(&row, &opt);
    nb_u16(b, (uint16_t)row.n);
    nb_cat(b, &row);
    nb_free(&row);
    nb_free(&opt);
}

/* A user event whose fields use every type code of the spec. */
static void
user_fields(nb *fields)
{
    static const uint8_t t_bool[] = { 3 }, t_c16[] = { 4 }, t_i8[] = { 5 }, t_u8[] = { 6 },
                         t_i16[] = { 7 }, t_u16[] = { 8 }, t_i32[] = { 9 }, t_u32[] = { 10 },
                         t_i64[] = { 11 }, t_u64[] = { 12 }, t_f32[] = { 13 }, t_f64[] = { 14 },
                         t_dt[] = { 16 }, t_g[] = { 17 }, t_s[] = { 18 }, t_arr[] = { 19, 10 },
                         t_vi[] = { 20 }, t_vu[] = { 21 }, t_fix[] = { 22, 8, 2, 0 },
                         t_c8[] = { 23 }, t_rel[] = { 24, 6 }, t_data[] = { 25, 6 },
                         t_obj[] = { 1, 2, 0, 3, 0, 1, 'X', 10, 3, 0, 1, 'Y', 12 };
    nb_u16(fields, 23);
    field(fields, "Flag", t_bool, 1);
    field(fields, "C16", t_c16, 1);
    field(fields, "I8", t_i8, 1);
    field(fields, "U8", t_u8, 1);
    field(fields, "I16", t_i16, 1);
    field(fields, "U16", t_u16, 1);
    field(fields, "Count", t_i32, 1);
    field(fields, "U32", t_u32, 1);
    field(fields, "I64", t_i64, 1);
    field(fields, "U64", t_u64, 1);
    field(fields, "F32", t_f32, 1);
    field(fields, "F64", t_f64, 1);
    field(fields, "When", t_dt, 1);
    field(fields, "Id", t_g, 1);
    field(fields, "Item", t_s, 1);
    field(fields, "Arr", t_arr, 2);
    field(fields, "VI", t_vi, 1);
    field(fields, "VU", t_vu, 1);
    field(fields, "Fix", t_fix, 4);
    field(fields, "C8", t_c8, 1);
    field(fields, "Rel", t_rel, 2);
    field(fields, "Data", t_data, 2);
    field(fields, "Point", t_obj, sizeof t_obj);
}

static void
user_payload(nb *p)
{
    nb_u32(p, 1);
    nb_u16(p, 'x');
    nb_u8(p, 0xfe);
    nb_u8(p, 7);
    nb_u16(p, 0x8001);
    nb_u16(p, 9);
    nb_u32(p, 3);
    nb_u32(p, 0xffffffffu);
    nb_u64(p, (uint64_t)-5);
    nb_u64(p, 1u << 31);
    nb_u32(p, 0x3f800000u);
    nb_u64(p, 0x4004000000000000ull);
    nb_systime(p);
    nb_put(p, guid, 16);
    nb_wstr(p, "cart");
    nb_u16(p, 2);
    nb_u32(p, 10);
    nb_u32(p, 20);
    nb_var(p, 9);
    nb_var(p, 300);
    nb_u16(p, 1);
    nb_u16(p, 2);
    nb_u8(p, 'z');
    nb_u32(p, 2u << 16 | 0);
    nb_u8(p, 0xaa);
    nb_u8(p, 0xbb);
    /* DataLoc: 2 bytes at the payload's offset 0 */
    nb_u32(p, 2u << 16 | 0);
    nb_u32(p, 11);
    nb_u64(p, 12);
}

static void
alloc_payload(nb *p, const char *type, uint64_t size)
{
    nb_u32(p, (uint32_t)size);
    nb_u32(p, 0);
    nb_u16(p, 0);
    nb_u64(p, size);
    nb_u64(p, 0x7f0000001000ull);
    nb_wstr(p, type);
    nb_u32(p, 0);
    nb_u64(p, 0x7f1000000000ull);
    nb_u64(p, 24);
}

static void
method_payload(nb *p, uint64_t start, uint32_t size, const char *ns, const char *name)
{
    nb_u64(p, start ^ 0x55);
    nb_u64(p, 0x7e00);
    nb_u64(p, start);
    nb_u32(p, size);
    nb_u32(p, 0x06000001);
    nb_u32(p, 0);
    nb_wstr(p, ns);
    nb_wstr(p, name);
    nb_wstr(p, "void  (class System.String)");
    nb_u16(p, 0);
    nb_u64(p, 0);
}

/* A compressed event header: flags, then what they announce (spec: meta,
 * seq/capture thread/proc, thread, stack, timestamp delta, label list,
 * data length). */
static void
event(nb *b, uint8_t flags, uint32_t meta, uint32_t thread, uint32_t stack, uint64_t dts,
      uint32_t label, const nb *payload)
{
    nb_u8(b, flags);
    if (flags & 1)
        nb_var(b, meta);
    if (flags & 2) {
        nb_var(b, 0);
        nb_var(b, thread);
        nb_var(b, 1);
    }
    if (flags & 4)
        nb_var(b, thread);
    if (flags & 8)
        nb_var(b, stack);
    nb_var(b, dts);
    if (flags & 16)
        nb_var(b, label);
    if (flags & 128)
        nb_var(b, payload->n);
    nb_cat(b, payload);
}

static void
labels(nb *f)
{
    nb b = { 0 };

    nb_u32(&b, 1);
    nb_u32(&b, 2);
    nb_u8(&b, 1);
    nb_put(&b, guid, 16);
    nb_u8(&b, 2);
    nb_put(&b, guid, 16);
    nb_u8(&b, 3);
    nb_put(&b, guid, 16);
    nb_u8(&b, 4);
    nb_u64(&b, 0x1122334455667788ull);
    nb_u8(&b, 5);
    nb_str8(&b, "http.route");
    nb_str8(&b, "/cart");
    nb_u8(&b, 6);
    nb_str8(&b, "items");
    nb_var(&b, 100);
    nb_u8(&b, 7);
    nb_u8(&b, 1);
    nb_u8(&b, 8);
    nb_u64(&b, 1);
    nb_u8(&b, 9);
    nb_u8(&b, 4);
    nb_u8(&b, 0x80 | 10);
    nb_u8(&b, 2);
    nb_u8(&b, 0x81);
    nb_put(&b, guid, 16);
    nb_block6(f, 8, &b);
    nb_free(&b);
}

/* The metadata rows workload() uses; with a PDB id, the module and
 * IL-map events too. */
static void
workload_meta(nb *f, const uint8_t *pdb_id)
{
    nb b = { 0 }, fields = { 0 };

    nb_u16(&b, 0);
    meta_row(&b, 1, PROVIDER_RT, 10, "GCAllocationTick_V4", NULL, 4, 0);
    meta_row(&b, 2, PROVIDER_RT, 143, "MethodLoadVerbose_V2", NULL, 2, 0);
    meta_row(&b, 3, PROVIDER_SP, 0, "ThreadSample", NULL, 0, 0);
    user_fields(&fields);
    meta_row(&b, 4, "Shop-Events", 7, "Sold", &fields, 1, 1);
    if (pdb_id != NULL) {
        meta_row(&b, 5, PROVIDER_RT, 152, "ModuleLoad_V2", NULL, 2, 0);
        meta_row(&b, 6, PROVIDER_RT, 190, "MethodILToNativeMap", NULL, 0, 0);
    }
    nb_block6(f, 3, &b);
    nb_free(&b);
    nb_free(&fields);
}

/* ModuleLoad_V2 of the methods' module (id 0x7e00): ModuleID, AssemblyID,
 * flags, reserved, IL and native paths, ClrInstanceID, the PDB signature,
 * age and build path. */
static void
module_payload(nb *p, const uint8_t *pdb_id)
{
    nb_u64(p, 0x7e00);
    nb_u64(p, 0x7f00);
    nb_u32(p, 8);
    nb_u32(p, 0);
    nb_wstr(p, "/app/Workload.dll");
    nb_wstr(p, "");
    nb_u16(p, 0);
    nb_put(p, pdb_id, 16);
    nb_u32(p, 1);
    nb_wstr(p, "/src/obj/Workload.pdb");
}

/* MethodILToNativeMap of one method: IL 0, 1 and NO_MAPPING (-1) over its
 * first 0x40 bytes. */
static void
ilmap_payload(nb *p, uint64_t method_id)
{
    nb_u64(p, method_id);
    nb_u64(p, 0);
    nb_u8(p, 0);
    nb_u16(p, 3);
    nb_u32(p, 0);
    nb_u32(p, 1);
    nb_u32(p, 0xffffffffu);
    nb_u32(p, 0);
    nb_u32(p, 0x10);
    nb_u32(p, 0x40);
    nb_u16(p, 0);
}

/* The analyzers' events: allocations and samples on stacks of three
 * methods, the methods' load events, a user event, sequence points; with
 * pdb_id, the methods' module and IL maps. */
static void
workload(nb *f, int flush_flags, int rounds, const uint8_t *pdb_id)
{
    static const char *const types[] = { "System.String", "Shop.CartLine[]", "System.Byte[]" };
    nb b = { 0 }, pl = { 0 };

    workload_meta(f, pdb_id);
    for (int round = 0; round < rounds; round++) {
        /* stacks 1..3: leaf first, inside the three methods below */
        nb_u32(&b, 1);
        nb_u32(&b, 3);
        for (int s = 0; s < 3; s++) {
            nb_u32(&b, (uint32_t)(8 * (3 - s)));
            for (int k = s; k < 3; k++)
                nb_u64(&b, 0x10000 + (uint64_t)k * 0x1000 + 0x20);
        }
        nb_block6(f, 5, &b);
        nb_free(&b);
        labels(f);
        nb_u16(&b, 20);
        nb_u16(&b, 1);
        nb_u64(&b, 0);
        nb_u64(&b, 0);
        for (int i = 0; i < 6; i++) {
            alloc_payload(&pl, types[i % 3], 100000 + (uint64_t)i);
            event(&b, i == 0 ? 0x9F : 0x8B, 1, 1 + (uint32_t)(i % 2), 1 + (uint32_t)(i % 3), 10, 1,
                  &pl);
            nb_free(&pl);
            nb_u32(&pl, 0);
            event(&b, 0x8F, 3, 2, 1 + (uint32_t)((i + 1) % 3), 5, 0, &pl);
            nb_free(&pl);
        }
        user_payload(&pl);
        event(&b, 0x9F, 4, 3, 0, 1, 2, &pl);
        nb_free(&pl);
        nb_block6(f, 2, &b);
        nb_free(&b);
        nb_u64(&b, 100000 + (uint64_t)round);
        nb_u32(&b, (uint32_t)flush_flags);
        nb_u32(&b, 2);
        nb_var(&b, 1);
        nb_var(&b, 13);
        nb_var(&b, 2);
        nb_var(&b, 7);
        nb_block6(f, 4, &b);
        nb_free(&b);
        if (flush_flags & 1)
            threads(f);
        if (flush_flags & 2)
            workload_meta(f, pdb_id);
    }
    /* method loads last, as a rundown would */
    nb_u16(&b, 20);
    nb_u16(&b, 1);
    nb_u64(&b, 0);
    nb_u64(&b, 0);
    for (int k = 0; k < 3; k++) {
        static const char *const names[] = { "RenderRows", "GetFullCart", "Main" };
        method_payload(&pl, 0x10000 + (uint64_t)k * 0x1000, 0x800, "Shop.Reports.ReportBuilder",
                       names[k]);
        event(&b, 0x9F, 2, 1, 0, 1, 0, &pl);
        nb_free(&pl);
        if (pdb_id != NULL) {
            ilmap_payload(&pl, (0x10000 + (uint64_t)k * 0x1000) ^ 0x55);
            event(&b, 0x9F, 6, 1, 0, 1, 0, &pl);
            nb_free(&pl);
        }
    }
    if (pdb_id != NULL) {
        module_payload(&pl, pdb_id);
        event(&b, 0x9F, 5, 1, 0, 1, 0, &pl);
        nb_free(&pl);
    }
    nb_block6(f, 2, &b);
    nb_free(&b);
    nb_var(&b, 2);
    nb_var(&b, 7);
    nb_var(&b, 3);
    nb_var(&b, 1);
    nb_block6(f, 7, &b);
    nb_free(&b);
}

/* The runtime's lock and exception events with no stack (stack id 0),
 * before any stack block: the cpu analyzer's contention and exception
 * tables with nothing to name and no stack array at all (a campaign of
 * 2026-12-01 found UBSan's `NULL + 0` there). No field definitions: the
 * analyzer must cope with payloads it cannot decode by name. */
static void
runtime_events(nb *f)
{
    nb b = { 0 }, pl = { 0 };

    nb_u16(&b, 0);
    meta_row(&b, 1, PROVIDER_RT, 81, "ContentionStart_V2", NULL, 2, 0);
    meta_row(&b, 2, PROVIDER_RT, 91, "ContentionStop_V1", NULL, 1, 0);
    meta_row(&b, 3, PROVIDER_RT, 80, "ExceptionThrown_V1", NULL, 1, 0);
    meta_row(&b, 4, PROVIDER_RT, 250, "ExceptionCatchStart", NULL, 0, 0);
    nb_block6(f, 3, &b);
    nb_free(&b);
    nb_u16(&b, 20);
    nb_u16(&b, 1);
    nb_u64(&b, 0);
    nb_u64(&b, 0);
    for (uint32_t m = 1; m <= 4; m++) {
        nb_u8(&pl, 0);
        nb_u16(&pl, 0);
        nb_u64(&pl, 0x1000 * m);
        event(&b, 0x8F, m, 1, 0, 10, 0, &pl);
        nb_free(&pl);
    }
    nb_block6(f, 2, &b);
    nb_free(&b);
}

/* The PDB id of a PE file's CodeView entry: the 16 bytes after "RSDS"
 * (the first one; the seed needs no more exact a parse). 0 when none. */
static int
codeview_id(const char *path, uint8_t id[16])
{
    static uint8_t buf[1 << 20];
    FILE *in = fopen(path, "rb");
    size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;

    if (in != NULL)
        fclose(in);
    for (size_t i = 0; i + 20 <= n; i++)
        if (memcmp(buf + i, "RSDS", 4) == 0) {
            memcpy(id, buf + i + 4, 16);
            return 1;
        }
    return 0;
}

/* A V6.0 trace of the workload, ended, saved as DIR/NAME. */
static void
workload_seed(const char *dir, const char *name, uint32_t ptr, int flush_flags, int rounds,
              const uint8_t *pdb_id)
{
    nb f = { 0 };

    header(&f, 6, 0, ptr);
    threads(&f);
    workload(&f, flush_flags, rounds, pdb_id);
    nb_u32(&f, 0);
    save(dir, name, &f);
    nb_free(&f);
}

int
main(int argc, char **argv)
{
    nb f = { 0 };
    uint8_t pdb_id[16];

    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s OUTDIR [ASSEMBLY]\n", argv[0]);
        return 2;
    }
    /* the methods' module and IL maps: source lines from the symbol path */
    if (argc == 3 && codeview_id(argv[2], pdb_id))
        workload_seed(argv[1], "v6-lines.nettrace", 8, 0, 2, pdb_id);
    else if (argc == 3)
        fprintf(stderr, "%s: no CodeView id in %s: no v6-lines seed\n", argv[0], argv[2]);
    /* the analyzers' events, V6.0, 64-bit */
    workload_seed(argv[1], "v6-analyzers.nettrace", 8, 0, 2, NULL);
    /* both flushes, three rounds, an unknown block kind skipped by size */
    header(&f, 6, 1, 8);
    threads(&f);
    nb_u32(&f, 4u | 42u << 24);
    nb_u32(&f, 0xdeadbeef);
    workload(&f, 3, 3, NULL);
    nb_u32(&f, 0);
    save(argv[1], "v6-flush.nettrace", &f);
    nb_free(&f);
    /* 32-bit pointers (stacks of 4-byte IPs would be read as such) */
    workload_seed(argv[1], "v6-ptr4.nettrace", 4, 1, 1, NULL);
    /* lock contention and exceptions without stacks */
    header(&f, 6, 0, 8);
    threads(&f);
    runtime_events(&f);
    nb_u32(&f, 0);
    save(argv[1], "v6-runtime-events.nettrace", &f);
    nb_free(&f);
    /* cut inside the second round: a truncated V6 stream */
    header(&f, 6, 0, 8);
    threads(&f);
    workload(&f, 0, 2, NULL);
    f.n = f.n * 2 / 3;
    save(argv[1], "v6-truncated.nettrace", &f);
    nb_free(&f);
    /* a future major (refused) and NetPerf (V1-V3, refused with a name) */
    header(&f, 7, 0, 8);
    nb_u32(&f, 0);
    save(argv[1], "v7-header.nettrace", &f);
    nb_free(&f);
    nb_u32(&f, 20);
    nb_put(&f, "!FastSerialization.1", 20);
    nb_u8(&f, 5);
    nb_u8(&f, 5);
    nb_u8(&f, 1);
    nb_u32(&f, 3);
    nb_u32(&f, 0);
    nb_u32(&f, 5);
    nb_put(&f, "Trace", 5);
    save(argv[1], "netperf-header.netperf", &f);
    nb_free(&f);
    return 0;
}
