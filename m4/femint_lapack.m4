# FEMINT_CHECK_LAPACK: an optional LAPACK (dsygv_) for the tests that solve dense generalized
# eigenproblems (the Maxwell cavity). Looks in -llapack, then -lopenblas; sets LAPACK_LIBS and
# FEMINT_HAVE_LAPACK without adding to LIBS, so that only those tests link it. Without one the
# tests skip. --without-lapack turns the search off.
AC_DEFUN([FEMINT_CHECK_LAPACK], [
  AC_ARG_WITH([lapack],
    [AS_HELP_STRING([--without-lapack],
      [do not look for LAPACK (the tests that need dsygv skip) @<:@default=check@:>@])],
    [], [with_lapack=check])
  LAPACK_LIBS=
  femint_lapack_summary="no (the eigenvalue tests skip)"
  AS_IF([test "x$with_lapack" != xno], [
    femint_save_LIBS=$LIBS
    AC_SEARCH_LIBS([dsygv_], [lapack openblas], [
      AS_IF([test "x$ac_cv_search_dsygv_" != "xnone required"],
        [LAPACK_LIBS=$ac_cv_search_dsygv_])
      AC_DEFINE([FEMINT_HAVE_LAPACK], [1], [Define to 1 if LAPACK's dsygv_ can be linked.])
      femint_lapack_summary="yes (${LAPACK_LIBS:-in the default libraries})"], [], [-lm])
    LIBS=$femint_save_LIBS
  ])
  AC_SUBST([LAPACK_LIBS])
])
