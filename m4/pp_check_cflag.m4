# PP_CHECK_CFLAG(FLAG, [ACTION-IF-OK], [ACTION-IF-NOT])
# Compile an empty program with FLAG added (warnings as errors) and run the
# matching action. Cached per flag.
AC_DEFUN([PP_CHECK_CFLAG], [
  AS_VAR_PUSHDEF([pp_cache], [pp_cv_cflag_$1])
  AC_CACHE_CHECK([whether $CC accepts $1], [pp_cache], [
    pp_save_CFLAGS="$CFLAGS"
    CFLAGS="$CFLAGS -Werror $1"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
      [AS_VAR_SET([pp_cache], [yes])], [AS_VAR_SET([pp_cache], [no])])
    CFLAGS="$pp_save_CFLAGS"])
  AS_VAR_IF([pp_cache], [yes], [$2], [$3])
  AS_VAR_POPDEF([pp_cache])
])
