#!/bin/bash
# packaging/ci-packages.sh — build and exercise perfpipe's packages:
#   1. Debian packages (dpkg-buildpackage -b) out of a copy of the tree;
#   2. lintian (fails on errors);
#   3. apt-get install of the three .debs; the installed perfpipe runs a
#      fixture and lists its plugins from /usr/lib/<triplet>/perfpipe/plugins-1;
#      a program links libperfpipe through perfpipe.pc;
#   4. a third-party plugin (examples/count-events, or a tiny one from a
#      heredoc) built against libperfpipe-dev with pkg-config and installed
#      into the localplugindir perfpipe-plugin.pc names (/usr/local/...), found there;
#   5. the shipped pipelines are found in /usr/share/perfpipe/pipelines; a
#      file of the same name in /etc/perfpipe/pipelines overrides one, and one
#      in the user's ~/.config/perfpipe/pipelines overrides that;
#   6. apt-get purge leaves nothing in the perfpipe directories (and the
#      third-party plugin in /usr/local, which is not the packages' to remove);
#   7. RPMs from the `make dist` tarball (rpmbuild -ba --nodeps: rpm cannot
#      see Debian's packages, the build dependencies are Debian's).
#
# Usage (from a checkout, as root, build dependencies installed):
#   bash packaging/ci-packages.sh
# Environment:
#   PP_PKG_JOBS=N        parallel build jobs (default 2)
#   PP_PKG_CHECK=1       also run `make check` in both package builds
#   PP_PKG_WORKDIR=DIR   work directory (default: a new /tmp/perfpipe-pkg.*)
#   PP_PKG_KEEP=1        keep the work directory (packages, logs) afterwards
#   PP_PKG_NO_RPM=1      skip the RPM part
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JOBS=${PP_PKG_JOBS:-2}
WORK=${PP_PKG_WORKDIR:-$(mktemp -d /tmp/perfpipe-pkg.XXXXXX)}
PKGS=(perfpipe libperfpipe0 libperfpipe-dev)
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
unset PERFPIPE_PLUGIN_PATH PERFPIPE_PIPELINE_PATH || true

T0=$SECONDS
TSTEP=$SECONDS
TIMINGS=()
step() {
  if [ ${#TIMINGS[@]} -gt 0 ] || [ -n "${CUR:-}" ]; then
    TIMINGS+=("$(printf '%4ds  %s' $((SECONDS - TSTEP)) "$CUR")")
  fi
  CUR=$1; TSTEP=$SECONDS
  printf '\n==> [%3ds] %s\n' $((SECONDS - T0)) "$*"
}
run() { printf '+ %s\n' "$*"; "$@"; }
die() { echo "ci-packages: FAIL: $*" >&2; exit 1; }
ok() { echo "ci-packages: ok: $*"; }
# Run a long command with its output in a log; show the log's end on failure.
logged() {
  local log=$1; shift
  printf '+ %s  (log: %s)\n' "$*" "$log"
  if ! "$@" >"$log" 2>&1; then
    echo "---- last 60 lines of $log ----"; tail -n 60 "$log"
    die "$* (see $log)"
  fi
}
# `... | has PATTERN`, not `| grep -q`: grep -q stops reading at the first
# match, and under pipefail the writer's SIGPIPE would fail the pipeline.
has() { grep "$@" >/dev/null; }
installed() { dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | has -x installed; }
present() { dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | has -vx not-installed; }

EX_PLUGIN=""
cleanup() {
  rc=$?
  set +e
  # Leave the machine as we found it: the hand-installed plugin, then the packages.
  [ -n "$EX_PLUGIN" ] && [ -e "$EX_PLUGIN" ] && rm -f "$EX_PLUGIN"
  [ -n "${LOCALPLUGINDIR:-}" ] && rmdir "$LOCALPLUGINDIR" "$(dirname "$LOCALPLUGINDIR")" 2>/dev/null
  [ -n "${ADMIN:-}" ] && rm -f "$ADMIN" && rmdir /etc/perfpipe/pipelines /etc/perfpipe 2>/dev/null
  for p in "${PKGS[@]}"; do
    if present "$p"; then
      echo "ci-packages: cleanup: purging ${PKGS[*]}"
      apt-get purge -y -qq "${PKGS[@]}" >/dev/null 2>&1
      break
    fi
  done
  if [ "${PP_PKG_KEEP:-0}" = 1 ] || [ $rc -ne 0 ]; then
    echo "ci-packages: work directory kept: $WORK"
  else
    rm -rf "$WORK"
  fi
  exit $rc
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || die "run as root (it installs and purges packages)"
mkdir -p "$WORK/logs"
LOGS=$WORK/logs

# ---------------------------------------------------------------------------
step "tools: dpkg-dev debhelper lintian fakeroot rpm (apt-get, only what is missing)"
need=()
for p in dpkg-dev debhelper lintian fakeroot rpm build-essential pkg-config; do
  installed "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  if ! apt-get install -y -qq --no-install-recommends "${need[@]}" >"$LOGS/apt-tools.log" 2>&1; then
    run apt-get update -qq
    logged "$LOGS/apt-tools.log" apt-get install -y -qq --no-install-recommends "${need[@]}"
  fi
else
  echo "all present"
fi

# A previous run that died half-way: start from a clean machine.
for p in "${PKGS[@]}"; do
  if present "$p"; then run apt-get purge -y -qq "${PKGS[@]}"; break; fi
done
TRIPLET=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
PLUGINDIR=/usr/lib/$TRIPLET/perfpipe/plugins-1
LEFTOVER_DIRS=("/usr/lib/$TRIPLET/perfpipe" /etc/perfpipe /usr/include/perfpipe /usr/share/perfpipe)
for d in "${LEFTOVER_DIRS[@]}"; do
  [ ! -e "$d" ] || die "$d exists before any package is installed (a 'make install' into /usr?): remove it first"
done

# ---------------------------------------------------------------------------
step "copy the tree to $WORK/src/perfpipe"
mkdir -p "$WORK/src/perfpipe"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
  # tracked and untracked-but-not-ignored files: no build output of the checkout
  (cd "$SRC" && git ls-files -co --exclude-standard -z | tar --null -cf - -T - 2>/dev/null) |
    tar -xf - -C "$WORK/src/perfpipe"
else
  tar -C "$SRC" --exclude=.git -cf - . | tar -xf - -C "$WORK/src/perfpipe"
fi
B=$WORK/src/perfpipe
[ -f "$B/debian/control" ] || die "no debian/ in the copy"
VERSION=$(cd "$B" && dpkg-parsechangelog -S Version)
UPSTREAM=${VERSION%-*}
echo "package version $VERSION (upstream $UPSTREAM), $ARCH ($TRIPLET)"

(cd "$B" && dpkg-checkbuilddeps) || die "build dependencies missing (see above): apt-get install them (debian/control Build-Depends)"

# ---------------------------------------------------------------------------
step "dpkg-buildpackage -us -uc -b (parallel=$JOBS${PP_PKG_CHECK:+, with make check})"
DBO="parallel=$JOBS"
[ "${PP_PKG_CHECK:-0}" = 1 ] || DBO="nocheck $DBO"
if ! (cd "$B" && DEB_BUILD_OPTIONS="$DBO" logged "$LOGS/deb-build.log" dpkg-buildpackage -us -uc -b); then
  if grep -q '^dpkg-gensymbols: error' "$LOGS/deb-build.log"; then
    echo "ci-packages: libperfpipe.so.0 exports other symbols than debian/libperfpipe0.symbols lists"
    echo "  (the diff above: '+' = new, '-' = gone). A new public function: add its line to"
    echo "  debian/libperfpipe0.symbols with the upstream version that introduces it (e.g."
    echo "  ' pp_new_function@Base 0.1.0'). A removed one is an ABI break (new SONAME)."
  fi
  exit 1
fi
grep -E '^dpkg-gensymbols|^dpkg-shlibdeps' "$LOGS/deb-build.log" || true
CHANGES=$WORK/src/perfpipe_${VERSION}_${ARCH}.changes
DEBS=()
for p in "${PKGS[@]}"; do
  f=$WORK/src/${p}_${VERSION}_${ARCH}.deb
  [ -f "$f" ] || die "missing $f"
  DEBS+=("$f")
  echo "--- $(basename "$f")"; dpkg-deb -c "$f" | sed -E 's/^([^ ]+ +){5}/    /' | grep -v '/$' || true
done

# ---------------------------------------------------------------------------
step "make dist (the RPM source; from the configured package tree, before it is edited)"
logged "$LOGS/dist.log" make -C "$B" dist
TARBALL=$B/perfpipe-$UPSTREAM.tar.xz
[ -f "$TARBALL" ] || die "make dist made no $TARBALL"
mkdir -p "$WORK/rpm/SOURCES"
mv "$TARBALL" "$WORK/rpm/SOURCES/"
ls -l "$WORK/rpm/SOURCES/"

# ---------------------------------------------------------------------------
step "lintian (fails on errors)"
printf '+ lintian --fail-on error --tag-display-limit 0 %s\n' "$CHANGES"
if lintian --fail-on error --tag-display-limit 0 "$CHANGES" >"$LOGS/lintian.log" 2>&1; then
  lrc=0
else
  lrc=$?
fi
cat "$LOGS/lintian.log"
echo "lintian: $(grep -c '^E:' "$LOGS/lintian.log" || true) errors, $(grep -c '^W:' "$LOGS/lintian.log" || true) warnings"
[ $lrc -eq 0 ] || die "lintian reported errors (exit $lrc)"

# ---------------------------------------------------------------------------
step "install: apt-get install -y ${DEBS[*]##*/}"
logged "$LOGS/apt-install.log" apt-get install -y "${DEBS[@]}"
for p in "${PKGS[@]}"; do installed "$p" || die "$p not installed"; done
dpkg-query -W "${PKGS[@]}"

# ---------------------------------------------------------------------------
step "the installed perfpipe"
[ "$(command -v perfpipe)" = /usr/bin/perfpipe ] || die "perfpipe is not /usr/bin/perfpipe"
FIXTURE=$SRC/tests/data/alloc-gcverbose.nettrace
[ -f "$FIXTURE" ] || die "missing fixture $FIXTURE"
run /usr/bin/perfpipe alloc "$FIXTURE" --top 5 || die "perfpipe alloc exited $?"
run /usr/bin/perfpipe plugins | tee "$WORK/plugins.txt"
grep -q '^alloc ' "$WORK/plugins.txt" || die "perfpipe plugins does not list alloc"
grep -q "$PLUGINDIR" "$WORK/plugins.txt" || die "perfpipe plugins does not name $PLUGINDIR"
[ -f "$PLUGINDIR/alloc.so" ] || die "no $PLUGINDIR/alloc.so"
ok "alloc listed, loaded from $PLUGINDIR"
run /usr/bin/perfpipe run alloc --input trace="$FIXTURE" --format json -o "$WORK/alloc.json"
ok "perfpipe run alloc (the shipped pipeline)"

# ---------------------------------------------------------------------------
step "libperfpipe-dev: a program linking libperfpipe through perfpipe.pc"
PCPLUGINDIR=$(pkg-config --variable=plugindir perfpipe-plugin)
[ "$PCPLUGINDIR" = "$PLUGINDIR" ] || die "perfpipe-plugin.pc plugindir=$PCPLUGINDIR, expected $PLUGINDIR"
ok "pkg-config --variable=plugindir perfpipe-plugin = $PCPLUGINDIR"
cat >"$WORK/use-lib.c" <<'EOF'
#include <stdio.h>
#include <perfpipe/perfpipe.h>
int main(void) { printf("libperfpipe %s\n", pp_version()); return 0; }
EOF
run cc -std=c11 -Wall -Werror $(pkg-config --cflags perfpipe) -o "$WORK/use-lib" "$WORK/use-lib.c" $(pkg-config --libs perfpipe)
run "$WORK/use-lib"
# (merged /usr: the loader may name it /lib/<triplet>/...)
ldd "$WORK/use-lib" | has -E "libperfpipe\.so\.0 => (/usr)?/lib/$TRIPLET/libperfpipe\.so\.0 " ||
  die "use-lib does not use /usr/lib/$TRIPLET/libperfpipe.so.0"
ok "linked against /usr/lib/$TRIPLET/libperfpipe.so.0"

# ---------------------------------------------------------------------------
EXDOC=/usr/share/doc/libperfpipe-dev/examples/count-events
EXT=$WORK/ext
mkdir -p "$EXT"
if [ -f "$EXDOC/count-events.c" ]; then
  step "third-party plugin: count-events from $EXDOC"
  cp -r "$EXDOC/." "$EXT/"
  gunzip -f "$EXT"/*.gz 2>/dev/null || true     # dh_compress leaves sources alone; README may be compressed
  PLUGIN=count-events
  INPUT=$SRC/tests/data/alloc-gcverbose.nettrace
  run make -C "$EXT" CFLAGS="-O2 -Werror"      # its Makefile: pkg-config --cflags perfpipe-plugin
  run make -C "$EXT" install                    # into pkg-config --variable=localplugindir perfpipe-plugin
else
  step "third-party plugin: examples/count-events not shipped yet, a tiny one from a heredoc"
  PLUGIN=ci-hello
  INPUT=$SRC/tests/data/alloc-gcverbose.nettrace
  cat >"$EXT/ci-hello.c" <<'EOF'
/* ci-hello: the smallest perfpipe analyzer, built against libperfpipe-dev. */
#include <stdlib.h>
#include <perfpipe/plugin.h>

typedef struct { const pp_host_api *host; int64_t records; } state;

static int create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts,
                  void **out, pp_error *err)
{
    state *s = calloc(1, sizeof *s);
    if (!s) { host->error_set(err, PP_ENOMEM, "out of memory"); return PP_ENOMEM; }
    s->host = host; *out = s; return PP_OK;
}
static int consume(void *st, const pp_record *rec, pp_error *err)
{ ((state *)st)->records++; return PP_OK; }
static int finish(void *st, pp_ctx *ctx, pp_error *err)
{
    state *s = st;
    return s->host->total_int(ctx, "records", PP_COL_COUNT, s->records);
}
static void destroy(void *st) { free(st); }

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    .name = "ci-hello", .version = "1.0.0", .summary = "counts records (packaging CI)",
    .input_kinds = PP_KIND_NETTRACE | PP_KIND_GCDUMP | PP_KIND_COUNTERS | PP_KIND_SPANS,
    .input_slot_count = 1,
    .create = create, .consume = consume, .finish = finish, .destroy = destroy,
};
PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void);
PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void) { return &descriptor; }
EOF
  run cc -std=c11 -Wall -Wextra -Wno-unused-parameter -O2 $(pkg-config --cflags perfpipe-plugin) \
    -fPIC -fvisibility=hidden -shared -Wl,-z,defs -o "$EXT/ci-hello.so" "$EXT/ci-hello.c"
  run install -D -m 0644 "$EXT/ci-hello.so" "$(pkg-config --variable=localplugindir perfpipe-plugin)/ci-hello.so"
fi
# Third-party plugins go to the local administrator's directory, which no
# package owns and perfpipe searches after its own.
LOCALPLUGINDIR=$(pkg-config --variable=localplugindir perfpipe-plugin)
[ "$LOCALPLUGINDIR" = /usr/local/lib/perfpipe/plugins-1 ] ||
  die "perfpipe-plugin.pc localplugindir=$LOCALPLUGINDIR, expected /usr/local/lib/perfpipe/plugins-1"
EX_PLUGIN=$LOCALPLUGINDIR/$PLUGIN.so
[ -f "$EX_PLUGIN" ] || die "$EX_PLUGIN not installed"
run /usr/bin/perfpipe plugins | tee "$WORK/plugins2.txt"
grep -q "^$PLUGIN " "$WORK/plugins2.txt" || die "perfpipe plugins does not list $PLUGIN"
run /usr/bin/perfpipe "$PLUGIN" "$INPUT" >/dev/null || die "perfpipe $PLUGIN exited $?"
# (perfpipe plugins prints each plugin's path on the line under its name)
has -xE "[[:space:]]*$LOCALPLUGINDIR/$PLUGIN\.so" "$WORK/plugins2.txt" ||
  die "perfpipe plugins does not name $LOCALPLUGINDIR/$PLUGIN.so"
[ -e "$PLUGINDIR/$PLUGIN.so" ] && die "$PLUGIN.so was installed into the dpkg-owned $PLUGINDIR"
ok "$PLUGIN built against libperfpipe-dev, installed into $LOCALPLUGINDIR, listed and run from there"

# ---------------------------------------------------------------------------
step "pipelines: shipped in /usr/share, overridden from /etc, then from the user's config"
SHARE=/usr/share/perfpipe/pipelines
dpkg-query --control-show perfpipe conffiles 2>/dev/null | has . &&
  die "perfpipe has conffiles: shipped pipelines belong in $SHARE"
VARS=(--set TRACE=x --set BASELINE=x --set CANDIDATE=x --set COUNTERS=x --set SPANS=x --set HEAP=x --set INPUT=x --set RESULTS=x)
n=0
for f in "$SHARE"/*.yaml; do
  name=$(basename "$f" .yaml)
  /usr/bin/perfpipe validate "$name" "${VARS[@]}" | tee -a "$WORK/validate.txt" | has "^$f: valid: " ||
    die "perfpipe validate $name does not use $f"
  n=$((n + 1))
done
[ "$n" -ge 7 ] || die "only $n pipelines in $SHARE"
ok "$n shipped pipelines listed and resolved from $SHARE"
[ -f /usr/share/doc/perfpipe/README.md ] || [ -f /usr/share/doc/perfpipe/README.md.gz ] ||
  die "no README in /usr/share/doc/perfpipe"
BASHCOMP=/usr/share/bash-completion/completions/perfpipe
[ -f "$BASHCOMP" ] && [ -f /usr/share/zsh/vendor-completions/_perfpipe ] || die "completion not installed"
got=$(bash -c 'source "$1"; COMP_WORDS=(perfpipe ""); COMP_CWORD=1; _perfpipe; printf "%s\n" "${COMPREPLY[@]}"' _ "$BASHCOMP" | grep -cx -e alloc -e spans -e compare)
[ "$got" = 3 ] || die "bash completion of the installed perfpipe does not offer alloc, spans, compare"
ok "README in /usr/share/doc/perfpipe; bash completion offers the installed analyzers"
# The administrator's copy: perfpipe prefers it; no package owns it.
ADMIN=/etc/perfpipe/pipelines/alloc.yaml
mkdir -p /etc/perfpipe/pipelines
sed 's/^name: alloc$/name: alloc-site/' "$SHARE/alloc.yaml" >"$ADMIN"
/usr/bin/perfpipe validate alloc --set TRACE=x | has "^$ADMIN: valid: pipeline 'alloc-site'" ||
  die "$ADMIN does not override $SHARE/alloc.yaml"
/usr/bin/perfpipe run alloc --input trace="$FIXTURE" --format json -o "$WORK/site.json"
grep -q '"pipeline": "alloc-site"' "$WORK/site.json" ||
  die "the run did not use $ADMIN"
ok "$ADMIN overrides the shipped alloc.yaml"
# A user's copy beats both, without touching the machine's.
UHOME=$WORK/home; mkdir -p "$UHOME/.config/perfpipe/pipelines"
sed 's/^name: alloc$/name: alloc-mine/' "$SHARE/alloc.yaml" >"$UHOME/.config/perfpipe/pipelines/alloc.yaml"
HOME=$UHOME /usr/bin/perfpipe validate alloc --set TRACE=x |
  has "^$UHOME/.config/perfpipe/pipelines/alloc.yaml: valid: pipeline 'alloc-mine'" ||
  die "the user's ~/.config/perfpipe/pipelines/alloc.yaml does not override $ADMIN"
/usr/bin/perfpipe validate alloc --set TRACE=x | has "^$ADMIN: valid: " || die "$ADMIN lost for other users"
ok "~/.config/perfpipe/pipelines/alloc.yaml overrides it for that user only"
dpkg -S "$ADMIN" >/dev/null 2>&1 && die "a package claims $ADMIN"
# The administrator's file is the administrator's: purge keeps such files
# (dpkg leaves a directory it did not empty); this test made it, so it goes.
run rm -f "$ADMIN"; rmdir /etc/perfpipe/pipelines /etc/perfpipe

# ---------------------------------------------------------------------------
step "purge leaves nothing behind"
logged "$LOGS/apt-purge.log" apt-get purge -y "${PKGS[@]}"
# The third-party plugin is the local administrator's: purge leaves it in
# /usr/local, its own `make uninstall` (or its package) removes it.
[ -f "$EX_PLUGIN" ] || die "purging perfpipe removed the third-party $EX_PLUGIN"
run rm -f "$EX_PLUGIN"
rmdir "$LOCALPLUGINDIR" "$(dirname "$LOCALPLUGINDIR")" 2>/dev/null || true
for p in "${PKGS[@]}"; do present "$p" && die "$p still present after purge"; done
for d in "${LEFTOVER_DIRS[@]}" /usr/share/doc/libperfpipe-dev /usr/bin/perfpipe; do
  if [ -e "$d" ]; then find "$d" | head -20; die "$d left after purge"; fi
done
ok "nothing left in ${LEFTOVER_DIRS[*]}"

# ---------------------------------------------------------------------------
if [ "${PP_PKG_NO_RPM:-0}" = 1 ]; then
  step "RPMs: skipped (PP_PKG_NO_RPM=1)"
else
  step "RPMs: rpmbuild -ba --nodeps from perfpipe-$UPSTREAM.tar.xz"
  RPMCHECK=--nocheck
  [ "${PP_PKG_CHECK:-0}" = 1 ] && RPMCHECK=
  # --nodeps: rpm cannot see dpkg's database, so BuildRequires cannot be
  # checked here (the Debian build dependencies are what is installed).
  # debug_package nil: no -debuginfo/-debugsource packages here (time).
  logged "$LOGS/rpmbuild.log" rpmbuild -ba --nodeps $RPMCHECK \
    --define "_topdir $WORK/rpm" --define "_smp_mflags -j$JOBS" --define 'debug_package %{nil}' \
    "$SRC/packaging/rpm/perfpipe.spec"
  find "$WORK/rpm/RPMS" "$WORK/rpm/SRPMS" -name '*.rpm' | sort
  R=$WORK/rpm/RPMS
  main=$(ls "$R"/*/perfpipe-"$UPSTREAM"-*.rpm)
  libs=$(ls "$R"/*/perfpipe-libs-"$UPSTREAM"-*.rpm)
  devel=$(ls "$R"/*/perfpipe-devel-"$UPSTREAM"-*.rpm)
  for f in "$main" "$libs" "$devel"; do
    echo "--- $(basename "$f")"; rpm -qlp "$f" | sed 's/^/    /'
  done
  rpm -qlp "$main" | has '^/usr/share/perfpipe/pipelines/alloc.yaml$' ||
    die "no /usr/share/perfpipe/pipelines/alloc.yaml in $(basename "$main")"
  rpm -qlp "$main" | has '^/etc/' && die "$(basename "$main") ships files in /etc (pipelines belong in /usr/share)"
  rpm -qlp "$main" | has '/perfpipe/plugins-1/alloc.so$' || die "no plugins-1/alloc.so in $(basename "$main")"
  rpm -qlp "$libs" | has '/libperfpipe.so.0$' || die "no libperfpipe.so.0 in $(basename "$libs")"
  rpm -qlp "$devel" | has '^/usr/include/perfpipe/plugin.h$' || die "no /usr/include/perfpipe/plugin.h in $(basename "$devel")"
  rpm -qp --provides "$libs" | has '^libperfpipe.so.0' || die "perfpipe-libs does not provide libperfpipe.so.0"
  ok "perfpipe, perfpipe-libs, perfpipe-devel; pipelines in /usr/share/perfpipe/pipelines"
fi

step "done"
echo
echo "timings:"
printf '  %s\n' "${TIMINGS[@]}"
echo "  total: $((SECONDS - T0))s"
echo "ci-packages: PASS"
