#!/bin/sh
# Test: the installed femint is usable through pkg-config. `make install` into a temporary
# DESTDIR; the installed femint.pc has every @...@ substituted, `pkg-config --exists femint`
# holds and its Cflags name the installed include folder holding femint.h; each installed header
# compiles alone; the first C block of
# README.md builds with `pkg-config --cflags --libs femint` against the installed shared library
# and with `pkg-config --static --libs femint` against the installed libfemint.a, and both
# programs run. Skipped where pkg-config is missing.

# make check sets top_builddir and top_srcdir (absolute), CC and PKG_CONFIG (configure's).
top_builddir=$(cd "${top_builddir:-.}" && pwd) || exit 1
tests_dir=$(cd "$(dirname "$0")" && pwd) || exit 1
top_srcdir=$(cd "${top_srcdir:-$tests_dir/..}" && pwd) || exit 1
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
CC=${CC:-cc}
if ! command -v "$PKG_CONFIG" >/dev/null 2>&1; then
  echo "1..0 # SKIP pkg-config not found ('$PKG_CONFIG')"
  exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t703.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
root=$tmp/root

. "$tests_dir/tap.sh"
# The plan, and the status, after the points so far (the last points need the earlier ones).
finish() {
  echo "1..$n"
  [ $failed -eq 0 ]
  exit
}

# make in the build tree, as a fresh top-level make. This test may run inside `make check -j2`:
# MAKEFLAGS then names the jobserver of the enclosing make (file descriptors that a test does not
# inherit, whose numbers may be other files here) and the command-line variables of make check
# (TESTS=...). With them unset, the inner make runs alone (serially) on the Makefile's settings.
# make check builds everything before it runs the first test, so installing only reads the
# build tree and copies files out of it, which disturbs no test running beside this one; the
# second point checks that nothing was built. (Run by hand, run make first.)
build_make() {
  (
    unset MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKEFILES MAKELEVEL MAKEOVERRIDES
    cd "$top_builddir" && ${MAKE:-make} "$@"
  )
}

# 1, 2. make install DESTDIR=$root, which builds nothing: no object, library, program of libtool,
# dependency file, Makefile, config.h or femint.pc of the build tree (the tests' folder aside,
# where the other tests write) is newer than the start of the install.
: >"$tmp/stamp"
build_make install DESTDIR="$root" >"$tmp/install.log" 2>&1
st=$?
ok $st "make install DESTDIR=<temporary folder>"
[ $st -eq 0 ] || { tail -n 30 "$tmp/install.log" | diag; finish; }
find "$top_builddir" \( -path "$top_builddir/tests" -o -path "$tmp" -o -name .git \) -prune -o \
  -type f \( -name '*.o' -o -name '*.lo' -o -name '*.la' -o -name '*.a' -o -name '*.so' \
  -o -name '*.so.*' -o -name '*.P[lo]' -o -path '*/.libs/*' -o -name Makefile -o -name config.h \
  -o -name '*.pc' -o -name kernels_embedded.c \) -newer "$tmp/stamp" -print >"$tmp/rebuilt"
[ ! -s "$tmp/rebuilt" ]
st=$?
ok $st "make install built nothing"
if [ $st -ne 0 ]; then
  echo "# written in $top_builddir by make install (run make before this test):"
  head -n 20 "$tmp/rebuilt" | diag
fi

# 3. The installed femint.pc: one, every @...@ substituted by configure.
pc=$(find "$root" -name femint.pc -path '*/pkgconfig/*')
st=0
if [ -z "$pc" ] || [ "$(echo "$pc" | wc -l)" -ne 1 ]; then
  st=1
  echo "femint.pc files installed: ${pc:-none}" >"$tmp/pc-check"
elif grep -n '@[A-Za-z_][A-Za-z0-9_]*@' "$pc" >"$tmp/leftover"; then
  st=1
  { echo "configure placeholders left:"; cat "$tmp/leftover"; } >"$tmp/pc-check"
fi
ok $st "one femint.pc installed (${pc#"$root"}), with no @...@ left"
[ $st -eq 0 ] || diag "$tmp/pc-check"
[ -f "$pc" ] || finish

# pkg-config on the installed femint.pc. Its variables (prefix, libdir, ...) name the final
# folders, which lie under $root here: a copy of it in $tmp/pc has each absolute variable moved
# under $root, as DESTDIR moved the files, and nothing else changed. PKG_CONFIG_SYSROOT_DIR and
# --define-prefix would move StarPU's and hwloc's folders (and the -L of BLAS_LIBS) too.
mkdir "$tmp/pc" || exit 1
awk -v root="$root" '/^[A-Za-z0-9_.]+=\// { i = index($0, "=")
  $0 = substr($0, 1, i) root substr($0, i + 1) } { print }' "$pc" >"$tmp/pc/femint.pc" || exit 1
PKG_CONFIG_PATH=$tmp/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
echo "# $PKG_CONFIG on ${pc#"$root"} with its folders under the temporary DESTDIR:"
diag "$tmp/pc/femint.pc"

# 4. pkg-config finds it (that one: pcfiledir), with its requirements.
"$PKG_CONFIG" --print-errors --exists femint >"$tmp/exists" 2>&1
st=$?
dir=$("$PKG_CONFIG" --variable=pcfiledir femint 2>/dev/null)
if [ $st -eq 0 ] && [ "$dir" != "$tmp/pc" ]; then
  st=1
  echo "pkg-config took the femint.pc of $dir" >"$tmp/exists"
fi
ok $st "pkg-config --exists femint (version $("$PKG_CONFIG" --modversion femint 2>/dev/null))"
[ $st -eq 0 ] || { diag "$tmp/exists"; finish; }

# 5. Cflags: an -I of the installed include folder, which holds the femint.h of the sources.
cflags=$("$PKG_CONFIG" --cflags femint)
includedir=$("$PKG_CONFIG" --variable=includedir femint)
st=1
for w in $cflags; do
  case $w in
    -I"$root"/*) [ "${w#-I}" = "$includedir" ] && cmp -s "${w#-I}/femint.h" \
      "$top_srcdir/include/femint.h" && st=0 ;;
  esac
done
ok $st "Cflags name the installed include folder holding femint.h: $cflags"
[ $st -eq 0 ] || echo "# includedir: $includedir; femint.h there: $(ls "$includedir/femint.h" 2>&1)"

# 5b. Every installed header compiles alone, first in a file (C99, pedantic): a code that
# includes femint_matfree.h or femint_mpi.h without femint.h builds.
st=0
headers=
for h in "$includedir"/femint*.h; do
  name=$(basename "$h")
  headers="$headers $name"
  printf '#include <%s>\n' "$name" >"$tmp/header.c"
  # shellcheck disable=SC2086
  $CC -std=c99 -pedantic -Werror -fsyntax-only $cflags "$tmp/header.c" >>"$tmp/headers.log" 2>&1 ||
    st=1
done
[ -n "$headers" ] || st=1
ok $st "each installed header compiles alone:$headers"
[ $st -eq 0 ] || diag "$tmp/headers.log"

# 6. The example: the first ```c block of README.md.
awk '/^[ \t]*```[ \t]*c[ \t]*$/ { on = 1; next } on && /^[ \t]*```/ { exit } on { print }' \
  "$top_srcdir/README.md" >"$tmp/example.c"
lines=$(wc -l <"$tmp/example.c")
[ "$lines" -gt 0 ]
st=$?
ok $st "README.md has a C example (its first \`\`\`c block: $lines lines)"
[ $st -eq 0 ] || { echo "# no \`\`\`c block in $top_srcdir/README.md"; finish; }

libdir=$("$PKG_CONFIG" --variable=libdir femint)
# StarPU keeps its calibration files in a fresh home, removed with $tmp.
STARPU_HOME=$tmp/starpu-home
export STARPU_HOME
mkdir "$STARPU_HOME" || exit 1

# run NAME LIBRARY_PATH DESCRIPTION: a TAP point, ./NAME runs with LIBRARY_PATH (if not empty)
# first on the loader's path. Where there is ldd, it shows the libfemint that NAME loads: the
# installed one for example-shared, none for example-static.
run() {
  name=$1
  (
    if [ -n "$2" ]; then
      LD_LIBRARY_PATH=$2${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      export LD_LIBRARY_PATH
    fi
    if command -v ldd >/dev/null 2>&1; then ldd "$tmp/$name" >"$tmp/$name.ldd" 2>&1; fi
    cd "$tmp" && "./$name" >"$tmp/$name.out" 2>&1
  )
  st=$?
  so=$(grep libfemint "$tmp/$name.ldd" 2>/dev/null)
  case $name:$so in
    *-static:?*) st=1; echo "$name should not load a libfemint: $so" >>"$tmp/$name.out" ;;
    *-shared:?*) case $so in
        *"$root"/*) ;;
        *) st=1; echo "$name does not load the installed libfemint: $so" >>"$tmp/$name.out" ;;
      esac ;;
  esac
  ok $st "$3: $(tail -n 1 "$tmp/$name.out")"
  [ $st -eq 0 ] || diag "$tmp/$name.out"
}

# 7, 8. Built with the shared library and run with the installed one on the loader's path.
libs=$("$PKG_CONFIG" --libs femint)
# shellcheck disable=SC2086 # the words of $CC and of pkg-config's flags
$CC -o "$tmp/example-shared" "$tmp/example.c" $cflags $libs >"$tmp/cc-shared.log" 2>&1
st=$?
ok $st "the example builds with pkg-config --cflags --libs femint: $CC $cflags $libs"
why=
if [ $st -eq 0 ]; then
  run example-shared "$libdir" "the example runs with the installed shared library"
else
  diag "$tmp/cc-shared.log"
  skip "the example runs with the installed shared library" "it does not build"
  why="the example does not build (above)"
fi

# 9, 10. Built with libfemint.a and pkg-config --static. A linker takes the shared library
# for -lfemint where both are installed: the archive is named in its place. The static flags of
# the required modules (StarPU's Libs.private, say) must link on this system for femint's to:
# where they do not, these points are skipped.
static_libs=
for w in $("$PKG_CONFIG" --static --libs femint); do
  [ "$w" = -lfemint ] && w=$libdir/libfemint.a
  static_libs="$static_libs $w"
done
if [ -n "$why" ]; then
  :
elif [ ! -f "$libdir/libfemint.a" ]; then
  why="no libfemint.a installed (configured with --disable-static)"
else
  requires=$("$PKG_CONFIG" --print-requires-private femint |
    awk '{ printf "%s%s", s, $1; s = " " }')
  printf 'int main(void) { return 0; }\n' >"$tmp/empty.c"
  # shellcheck disable=SC2046,SC2086 # the words of $CC and of pkg-config's flags
  [ -z "$requires" ] || $CC -o "$tmp/empty" "$tmp/empty.c" \
    $("$PKG_CONFIG" --static --libs $requires) >"$tmp/cc-requires.log" 2>&1 ||
    why="pkg-config --static --libs $requires does not link here: $(grep -E \
      'cannot find|not found|error' "$tmp/cc-requires.log" | head -n 1)"
fi
if [ -n "$why" ]; then
  skip "the example builds with libfemint.a" "$why"
  skip "the example linked with libfemint.a runs" "$why"
else
  # shellcheck disable=SC2086 # the words of $CC and of pkg-config's flags
  $CC -o "$tmp/example-static" "$tmp/example.c" $cflags $static_libs >"$tmp/cc-static.log" 2>&1
  st=$?
  ok $st "the example builds with libfemint.a and pkg-config --static --libs femint:$static_libs"
  if [ $st -eq 0 ]; then
    run example-static "" "the example linked with libfemint.a runs"
  else
    diag "$tmp/cc-static.log"
    skip "the example linked with libfemint.a runs" "it does not build"
  fi
fi

finish
