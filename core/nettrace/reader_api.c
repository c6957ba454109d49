/* The nettrace reader under the verbs every reader shares (reader.h):
 * open and open_memory take the shared hooks struct, the rest forward to
 * the 0.1 names, which stay until the next soname. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/nettrace.h>

static void
install(pp_nettrace_reader *r, const pp_reader_hooks *hooks)
{
    pp_nettrace_bytes_fn on_bytes = PP_READER_HOOK(hooks, on_bytes);
    pp_nettrace_warning_fn on_warning = PP_READER_HOOK(hooks, on_warning);

    if (on_bytes != NULL || on_warning != NULL)
        pp_nettrace_set_callbacks(r, on_bytes, on_warning, PP_READER_HOOK(hooks, user));
}

int
pp_nettrace_reader_open(const char *path, const pp_reader_hooks *hooks, pp_nettrace_reader **out,
                        pp_error *err)
{
    int rc = pp_nettrace_open(path, out, err);

    if (rc == PP_OK)
        install(*out, hooks);
    return rc;
}

int
pp_nettrace_reader_open_memory(const void *data, size_t size, const char *name,
                               const pp_reader_hooks *hooks, pp_nettrace_reader **out,
                               pp_error *err)
{
    const char *what = name != NULL ? name : "<memory>";
    int fd = memfd_create("perfpipe-nettrace", MFD_CLOEXEC);
    size_t done = 0;
    int rc;

    *out = NULL;
    if (fd < 0) {
        pp_error_set(err, PP_EIO, "%s: cannot make a memory file: %s", what, strerror(errno));
        return PP_EIO;
    }
    while (done < size) {
        ssize_t k = write(fd, (const char *)data + done, size - done);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int e = k < 0 ? errno : ENOSPC;

            close(fd);
            pp_error_set(err, e == ENOMEM || e == ENOSPC ? PP_ENOMEM : PP_EIO,
                         "%s: cannot copy %zu bytes into a memory file: %s", what, size,
                         strerror(e));
            return e == ENOMEM || e == ENOSPC ? PP_ENOMEM : PP_EIO;
        }
        done += (size_t)k;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        pp_error_set(err, PP_EIO, "%s: cannot rewind the memory file: %s", what, strerror(errno));
        return PP_EIO;
    }
    rc = pp_nettrace_open_fd(fd, what, out, err); /* owns fd from here */
    if (rc == PP_OK)
        install(*out, hooks);
    return rc;
}

int
pp_nettrace_reader_next(pp_nettrace_reader *r, const pp_trace_event **ev, pp_error *err)
{
    return pp_nettrace_next(r, ev, err);
}

void
pp_nettrace_reader_close(pp_nettrace_reader *r)
{
    pp_nettrace_close(r);
}

int
pp_nettrace_reader_get_info(const pp_nettrace_reader *r, pp_trace_info *out)
{
    return pp_nettrace_info(r, out);
}
