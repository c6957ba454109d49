/* Writing an output file without destroying what is there (outfile.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "outfile.h"

static int
fail(pp_error *err, const char *path, const char *what, int e)
{
    pp_error_set(err, PP_EIO, "%s: %s: %s", path, what, strerror(e));
    errno = e;
    return PP_EIO;
}

mode_t
pp_outfile_umask(void)
{
    mode_t m = umask(077);

    umask(m);
    return m;
}

/* fsync the directory holding path, so a rename survives a crash. */
static void
sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    int fd;

    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        return;
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

static int
open_in_place(pp_outfile *o, int create, pp_error *err)
{
    int fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (create ? O_CREAT | O_TRUNC : 0),
                  0666);

    if (fd < 0)
        return fail(err, o->path, "cannot open for writing", errno);
    if ((o->f = fdopen(fd, "w")) == NULL) {
        int e = errno;
        close(fd);
        return fail(err, o->path, "cannot open for writing", e);
    }
    return PP_OK;
}

int
pp_outfile_open(pp_outfile *o, const char *path, unsigned flags, const pp_outfile_tracker *tracker,
                pp_error *err)
{
    struct stat lst, st;
    mode_t mode;
    size_t n;
    sigset_t all, old;
    int fd, exists;

    memset(o, 0, sizeof *o);
    o->flags = flags;
    o->tracker = tracker;
    if (path == NULL || path[0] == '\0') {
        pp_error_set(err, PP_EINVAL, "empty output path");
        return PP_EINVAL;
    }
    exists = lstat(path, &lst) == 0;
    if (exists && S_ISLNK(lst.st_mode)) {
        char *real = realpath(path, NULL);

        if (real == NULL) {
            /* A dangling link: create its target through it. */
            if ((o->path = strdup(path)) == NULL)
                goto oom;
            if (flags & PP_OUTFILE_EXCL) {
                free(o->path);
                o->path = NULL;
                return fail(err, path, "cannot create", EEXIST);
            }
            if (open_in_place(o, 1, err) != PP_OK) {
                free(o->path);
                o->path = NULL;
                return PP_EIO;
            }
            return PP_OK;
        }
        o->path = real;
        exists = stat(real, &st) == 0;
    } else {
        if ((o->path = strdup(path)) == NULL)
            goto oom;
        st = lst;
    }
    if (exists && (flags & PP_OUTFILE_EXCL)) {
        int rc = fail(err, o->path, "cannot create", EEXIST);
        free(o->path);
        o->path = NULL;
        return rc;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        int rc = fail(err, o->path, "cannot write", EISDIR);
        free(o->path);
        o->path = NULL;
        return rc;
    }
    if (exists && S_ISREG(st.st_mode) && !(flags & PP_OUTFILE_FORCE) &&
        ((st.st_mode & 0222) == 0 || faccessat(AT_FDCWD, o->path, W_OK, AT_EACCESS) != 0)) {
        /* The directory may let us rename over it, but its owner said no. */
        pp_error_set(err, PP_EIO,
                     "%s: cannot write: the file is read-only (remove it, make it writable "
                     "with chmod u+w, or give --force to replace it)",
                     o->path);
        free(o->path);
        o->path = NULL;
        errno = EACCES;
        return PP_EIO;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device, FIFO, terminal or socket is written, never replaced. */
        if (open_in_place(o, 0, err) != PP_OK) {
            free(o->path);
            o->path = NULL;
            return PP_EIO;
        }
        return PP_OK;
    }
    mode = exists ? (st.st_mode & 07777) : (0666 & ~pp_outfile_umask());
    n = strlen(o->path) + sizeof ".XXXXXX";
    if ((o->tmp = malloc(n)) == NULL)
        goto oom;
    {
        /* The temporary name is the file's plus a suffix, its last part cut
         * so that it fits a name as long as the system allows (255 bytes). */
        const char *base = strrchr(o->path, '/');
        size_t dir_len = base != NULL ? (size_t)(base + 1 - o->path) : 0;
        size_t keep = strlen(o->path + dir_len);

        if (keep > NAME_MAX - (sizeof ".XXXXXX" - 1))
            keep = NAME_MAX - (sizeof ".XXXXXX" - 1);
        snprintf(o->tmp, n, "%.*s.XXXXXX", (int)(dir_len + keep), o->path);
    }
    /* No signal between creating the temporary file and announcing it: a
     * handler that removes announced files must see every one. */
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    if ((fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
        int rc = fail(err, o->path, "cannot create (does the directory exist?)", errno);
        sigprocmask(SIG_SETMASK, &old, NULL);
        free(o->tmp);
        o->tmp = NULL;
        pp_outfile_abort(o);
        return rc;
    }
    if (tracker != NULL && tracker->add != NULL)
        tracker->add(tracker->user, o->tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fchmod(fd, mode) != 0 || (o->f = fdopen(fd, "w")) == NULL) {
        int e = errno;
        close(fd);
        pp_outfile_abort(o);
        return fail(err, path, "cannot create", e);
    }
    return PP_OK;
oom:
    pp_error_set(err, PP_ENOMEM, "out of memory");
    pp_outfile_abort(o);
    return PP_ENOMEM;
}

static void
release(pp_outfile *o)
{
    if (o->tmp != NULL) {
        if (o->tracker != NULL && o->tracker->remove != NULL)
            o->tracker->remove(o->tracker->user, o->tmp);
        free(o->tmp);
    }
    free(o->path);
    memset(o, 0, sizeof *o);
}

/* Flush, fsync (a temporary file) and close o->f: 0 or an errno. */
static int
finish_writing(pp_outfile *o)
{
    int e = 0;

    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    /* fsync fails with EINVAL on pipes and terminals: that is not data loss. */
    if (e == 0 && o->tmp != NULL && fsync(fileno(o->f)) != 0)
        e = errno;
    if (fclose(o->f) != 0 && e == 0)
        e = errno;
    o->f = NULL;
    return e;
}

static int
fail_release(pp_outfile *o, pp_error *err, int e)
{
    char path[PATH_MAX];

    if (o->tmp != NULL)
        unlink(o->tmp);
    snprintf(path, sizeof path, "%s", o->path);
    release(o);
    return fail(err, path, e == EEXIST ? "cannot create" : "cannot write", e);
}

int
pp_outfile_prepare(pp_outfile *o, pp_error *err)
{
    int e;

    if (o->f == NULL) {
        pp_error_set(err, PP_EINVAL, "output not open");
        release(o);
        return PP_EINVAL;
    }
    if ((e = finish_writing(o)) != 0)
        return fail_release(o, err, e);
    o->prepared = 1;
    return PP_OK;
}

int
pp_outfile_commit(pp_outfile *o, pp_error *err)
{
    int e = 0;

    if (o->f == NULL && !o->prepared) {
        pp_error_set(err, PP_EINVAL, "output not open");
        release(o);
        return PP_EINVAL;
    }
    if (!o->prepared)
        e = finish_writing(o);
    if (e == 0 && o->tmp != NULL) {
        if (o->flags & PP_OUTFILE_EXCL) {
            if (link(o->tmp, o->path) != 0)
                e = errno;
            unlink(o->tmp);
        } else if (rename(o->tmp, o->path) != 0) {
            e = errno;
        }
        if (e == 0)
            sync_dir(o->path);
    }
    if (e != 0)
        return fail_release(o, err, e);
    release(o);
    return PP_OK;
}

void
pp_outfile_abort(pp_outfile *o)
{
    if (o->f != NULL)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp != NULL)
        unlink(o->tmp);
    release(o);
}

int
pp_same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    if (a == NULL || b == NULL || stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
