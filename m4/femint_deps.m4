# FEMINT_CHECK_DEPS: StarPU (starpu-1.4 or starpu-1.3), hwloc and OpenCL through pkg-config,
# OpenMP through AC_OPENMP, an optional CBLAS (FEMINT_CHECK_BLAS). Each missing piece stops
# configure with the Debian package to install.
AC_DEFUN([FEMINT_CHECK_DEPS], [
  femint_starpu_pkg=
  PKG_CHECK_MODULES([STARPU], [starpu-1.4], [femint_starpu_pkg=starpu-1.4],
    [PKG_CHECK_MODULES([STARPU], [starpu-1.3], [femint_starpu_pkg=starpu-1.3],
      [AC_MSG_ERROR([StarPU not found (pkg-config starpu-1.3 or starpu-1.4).
  On Debian or Ubuntu: apt-get install libstarpu-dev])])])
  # The StarPU module that femint.pc requires.
  AC_SUBST([femint_starpu_pkg])
  PKG_CHECK_MODULES([HWLOC], [hwloc], [],
    [AC_MSG_ERROR([hwloc not found (pkg-config hwloc). On Debian or Ubuntu: apt-get install libhwloc-dev])])
  PKG_CHECK_MODULES([OPENCL], [OpenCL], [femint_opencl_libs="$OPENCL_LIBS"],
    [AC_CHECK_LIB([OpenCL], [clGetPlatformIDs], [OPENCL_LIBS=-lOpenCL; femint_opencl_libs=-lOpenCL],
      [AC_MSG_ERROR([OpenCL not found. On Debian or Ubuntu: apt-get install ocl-icd-opencl-dev opencl-headers (and pocl-opencl-icd for a CPU device)])])])
  femint_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $OPENCL_CFLAGS"
  AC_CHECK_HEADER([CL/cl.h], [],
    [AC_MSG_ERROR([CL/cl.h not found. On Debian or Ubuntu: apt-get install opencl-headers])])
  CPPFLAGS=$femint_save_CPPFLAGS
  AC_OPENMP
  AS_IF([test "x$OPENMP_CFLAGS" = x],
    [AC_MSG_ERROR([the C compiler does not support OpenMP (gcc does)])])
  AC_CHECK_LIB([m], [sqrt])
  FEMINT_CHECK_BLAS
])

# FEMINT_CHECK_BLAS: an optional CBLAS for the symmetric products of the CPU integration.
# --with-blas (the default) takes OpenBLAS (pkg-config openblas), else pkg-config cblas;
# --with-blas=PKG takes the pkg-config module PKG (blas, flexiblas, blis, ...); --without-blas
# keeps the built-in blocked loop. Sets BLAS_CFLAGS, BLAS_LIBS, FEMINT_HAVE_CBLAS,
# FEMINT_HAVE_OPENBLAS (the library can be made sequential) and femint_blas_summary.
AC_DEFUN([FEMINT_CHECK_BLAS], [
  AC_ARG_WITH([blas],
    [AS_HELP_STRING([--with-blas@<:@=PKG@:>@],
      [use a CBLAS found by pkg-config for the CPU integration: OpenBLAS (openblas) or cblas by
       default, or the module PKG; --without-blas uses femint's own blocked loop @<:@default=yes@:>@])],
    [], [with_blas=yes])
  femint_blas_pkg=
  AS_CASE([$with_blas],
    [no], [],
    [yes], [PKG_CHECK_MODULES([BLAS], [openblas], [femint_blas_pkg=openblas],
              [PKG_CHECK_MODULES([BLAS], [cblas], [femint_blas_pkg=cblas], [:])])],
    [PKG_CHECK_MODULES([BLAS], [$with_blas], [femint_blas_pkg=$with_blas],
       [AC_MSG_ERROR([--with-blas=$with_blas: no pkg-config module $with_blas])])])
  femint_blas_summary="no (femint's blocked loop)"
  AS_IF([test "x$femint_blas_pkg" != x], [
    femint_save_CPPFLAGS=$CPPFLAGS
    femint_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $BLAS_CFLAGS"
    LIBS="$BLAS_LIBS $LIBS"
    AC_CHECK_HEADER([cblas.h], [], [femint_blas_pkg=])
    AS_IF([test "x$femint_blas_pkg" != x],
      [AC_CHECK_FUNCS([cblas_dsyrk], [], [femint_blas_pkg=])])
    femint_openblas=no
    AS_IF([test "x$femint_blas_pkg" != x],
      [AC_CHECK_DECL([openblas_set_num_threads],
        [AC_CHECK_FUNCS([openblas_set_num_threads], [femint_openblas=yes])], [],
        [[#include <cblas.h>]])])
    CPPFLAGS=$femint_save_CPPFLAGS
    LIBS=$femint_save_LIBS
    AS_IF([test "x$femint_blas_pkg" = x],
      [AS_IF([test "x$with_blas" = xyes],
        [AC_MSG_WARN([the BLAS found has no usable cblas.h or cblas_dsyrk: using femint's loop])],
        [AC_MSG_ERROR([--with-blas=$with_blas: no usable cblas.h or cblas_dsyrk])])])
  ])
  AS_IF([test "x$femint_blas_pkg" = x], [BLAS_CFLAGS= BLAS_LIBS=], [
    AC_DEFINE([FEMINT_HAVE_CBLAS], [1], [Define to 1 to use a CBLAS in the CPU integration.])
    femint_blas_summary="$femint_blas_pkg `$PKG_CONFIG --modversion $femint_blas_pkg` ($BLAS_LIBS)"
    AS_IF([test "x$femint_openblas" = xyes],
      [AC_DEFINE([FEMINT_HAVE_OPENBLAS], [1],
        [Define to 1 if the CBLAS is OpenBLAS (made sequential inside femint's OpenMP teams).])
       femint_blas_summary="$femint_blas_summary, sequential in each thread"],
      [femint_blas_summary="$femint_blas_summary, its threads not controlled by femint"])
  ])
  AC_SUBST([BLAS_CFLAGS])
  AC_SUBST([BLAS_LIBS])
])
