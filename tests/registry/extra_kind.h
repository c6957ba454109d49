/* Force-included (-include) into a copy of core/registry/kinds.c for
 * tests/registry/perfpipe-extra: one dummy input kind, added the way
 * HACKING.md says to add one (a reader and one row), to prove that usage,
 * errors, validation and completion know a kind from its row. Its reader
 * checks that the file opens and yields no record. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <perfpipe/perfpipe.h>

#include "source.h"

static int
dummy_open(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err)
{
    FILE *f = fopen(path, "rb");

    (void)hooks;
    if (f == NULL) {
        pp_error_set(err, PP_EIO, "%s: cannot open", path);
        return PP_EIO;
    }
    *src = f;
    return PP_OK;
}

static int
dummy_next(void *src, pp_record *rec, pp_error *err)
{
    (void)src, (void)rec, (void)err;
    return 0;
}

static void
dummy_close(void *src)
{
    fclose(src);
}

static const pp_source_ops pp_extra_dummy_reader = {
    .kind = "dummy-kind", .kind_bit = UINT32_C(0x80000000),
    .open = dummy_open, .next = dummy_next, .close = dummy_close,
};

#define PP_REGISTRY_EXTRA_KINDS \
    { &pp_extra_dummy_reader, ".dummy", "a dummy input (tests/registry)" },
