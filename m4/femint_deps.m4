# FEMINT_CHECK_DEPS: StarPU (starpu-1.4 or starpu-1.3), hwloc and OpenCL through pkg-config,
# OpenMP through AC_OPENMP. Each missing piece stops configure with the Debian package to install.
AC_DEFUN([FEMINT_CHECK_DEPS], [
  femint_starpu_pkg=
  PKG_CHECK_MODULES([STARPU], [starpu-1.4], [femint_starpu_pkg=starpu-1.4],
    [PKG_CHECK_MODULES([STARPU], [starpu-1.3], [femint_starpu_pkg=starpu-1.3],
      [AC_MSG_ERROR([StarPU not found (pkg-config starpu-1.3 or starpu-1.4).
  On Debian or Ubuntu: apt-get install libstarpu-dev])])])
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
])
