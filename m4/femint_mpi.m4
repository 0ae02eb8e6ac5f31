# FEMINT_CHECK_MPI_PETSC: the optional MPI and PETSc of examples/petsc_elasticity (the library
# needs neither). --with-mpi and --with-petsc default to "check": used where pkg-config finds them
# (Open MPI's ompi-c or MPICH's mpich; Debian's PETSc or petsc), skipped quietly otherwise;
# --with-mpi=yes / --with-petsc=yes make a missing one an error, =no skips it. PETSc needs MPI.
# Sets MPI_CFLAGS, MPI_LIBS, PETSC_CFLAGS, PETSC_LIBS, MPIEXEC, the conditional
# FEMINT_PETSC_EXAMPLE, and femint_mpi_summary / femint_petsc_summary for configure's summary.
AC_DEFUN([FEMINT_CHECK_MPI_PETSC], [
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--with-mpi],
      [MPI (pkg-config ompi-c or mpich) for examples/petsc_elasticity and its test
       @<:@default=check@:>@])],
    [], [with_mpi=check])
  AC_ARG_WITH([petsc],
    [AS_HELP_STRING([--with-petsc],
      [PETSc (pkg-config PETSc or petsc) for examples/petsc_elasticity @<:@default=check@:>@])],
    [], [with_petsc=check])
  femint_mpi_pkg=
  femint_mpi_summary="no (optional: examples/petsc_elasticity; apt-get install libopenmpi-dev)"
  AS_IF([test "x$with_mpi" != xno], [
    PKG_CHECK_MODULES([MPI], [ompi-c], [femint_mpi_pkg=ompi-c],
      [PKG_CHECK_MODULES([MPI], [mpich], [femint_mpi_pkg=mpich], [:])])
    AC_PATH_PROGS([MPIEXEC], [mpiexec mpirun])
    AS_IF([test "x$femint_mpi_pkg" != x && test "x$MPIEXEC" = x],
      [AC_MSG_WARN([MPI found by pkg-config but no mpiexec or mpirun on the PATH])
       femint_mpi_pkg=])
    AS_IF([test "x$femint_mpi_pkg" = x && test "x$with_mpi" = xyes],
      [AC_MSG_ERROR([--with-mpi: no MPI found (pkg-config ompi-c or mpich, and mpiexec).
  On Debian or Ubuntu: apt-get install libopenmpi-dev])])
  ])
  AS_IF([test "x$femint_mpi_pkg" != x],
    [femint_mpi_summary="yes ($femint_mpi_pkg `$PKG_CONFIG --modversion $femint_mpi_pkg`, $MPIEXEC)"],
    [test "x$with_mpi" = xno], [femint_mpi_summary="no (--without-mpi)"])

  femint_petsc_pkg=
  femint_petsc_summary="no (optional: examples/petsc_elasticity; apt-get install petsc-dev)"
  AS_IF([test "x$with_petsc" != xno], [
    AS_IF([test "x$femint_mpi_pkg" != x], [
      PKG_CHECK_MODULES([PETSC], [PETSc], [femint_petsc_pkg=PETSc],
        [PKG_CHECK_MODULES([PETSC], [petsc], [femint_petsc_pkg=petsc], [:])])
    ])
    AS_IF([test "x$femint_petsc_pkg" != x], [
      femint_save_CPPFLAGS=$CPPFLAGS
      CPPFLAGS="$CPPFLAGS $PETSC_CFLAGS $MPI_CFLAGS"
      AC_CHECK_HEADER([petscksp.h], [], [femint_petsc_pkg=])
      CPPFLAGS=$femint_save_CPPFLAGS
    ])
    AS_IF([test "x$femint_petsc_pkg" = x && test "x$with_petsc" = xyes],
      [AC_MSG_ERROR([--with-petsc: no usable PETSc found (pkg-config PETSc or petsc, petscksp.h,
  and MPI). On Debian or Ubuntu: apt-get install petsc-dev libopenmpi-dev])])
  ])
  AS_IF([test "x$femint_petsc_pkg" != x],
    [femint_petsc_summary="yes ($femint_petsc_pkg `$PKG_CONFIG --modversion $femint_petsc_pkg`)"],
    [test "x$with_petsc" = xno], [femint_petsc_summary="no (--without-petsc)"],
    [test "x$femint_mpi_pkg" = x],
    [femint_petsc_summary="no (optional: examples/petsc_elasticity; needs MPI first)"])
  AM_CONDITIONAL([FEMINT_PETSC_EXAMPLE], [test "x$femint_petsc_pkg" != x])
  AS_IF([test "x$femint_petsc_pkg" != x],
    [femint_example_summary="built, and run by make check (tests/t702)"],
    [femint_example_summary="not built (it needs MPI and PETSc; the rest of femint does not)"])
  AC_SUBST([MPIEXEC])
])
