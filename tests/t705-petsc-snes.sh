#!/bin/sh
# Test: examples/petsc_snes (Bratu's equation through PETSc's SNES, femint's residual and
# Jacobian from pointwise functions on each rank's cells) converges quadratically, in the same
# Newton steps and to the same solution (L2 error to 1e-9 relative) on 1, 2 and 4 ranks, on CPU
# and on OpenCL workers; the L2 error falls at the rate p + 1. Skipped when configure found no
# MPI or PETSc.

# make check sets PETSC_SNES to the program where configure found MPI and PETSc, else to "".
ex=${PETSC_SNES-examples/petsc_snes}
if [ -z "$ex" ] || [ -z "${MPIEXEC:-}" ] || [ ! -x "$ex" ]; then
  echo "1..0 # SKIP configured without MPI or PETSc (examples/petsc_snes not built)"
  exit 0
fi
. "$(dirname "$0")/mpi.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t705.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# mpirun's session files in this test's folder: two mpiruns starting at once (the MPI tests
# run in parallel under make -j) race to create the same /tmp/ompi.HOST.UID otherwise
export OMPI_MCA_orte_tmpdir_base="$tmp"
export FEMINT_CACHE_DIR="$tmp/cache"
. "$(dirname "$0")/tap.sh"

run() { # run NAME RANKS ARGS...
  out=$1 ranks=$2
  shift 2
  "$MPIEXEC" -n "$ranks" "$ex" "$@" >"$tmp/$out" 2>&1
}
steps() { awk '/^newton:/ {print $2}' "$tmp/$1"; }
err() { awk '/^L2 error:/ {print $3}' "$tmp/$1"; }

run one 1 -n 8 -order 2
st=$?
ok $st "1 rank: $(head -n 1 "$tmp/one")"
[ $st -eq 0 ] || diag "$tmp/one"
# quadratic: some step divides |F| by at least the square of the previous reduction over 100
line=$(awk '/^newton:/ { for (k = 7; k < NF; k++) { a = $k; b = $(k + 1)
         if (a < 1e-2 && b > 1e-13 && b <= 100 * a * a) q = 1 }
         printf "%s", $0; exit !q }' "$tmp/one")
ok $? "quadratic convergence: $line"
for np in 2 4; do
  for where in cpu opencl; do
    [ "$np" = 4 ] && [ "$where" = opencl ] && continue
    run "np$np-$where" "$np" -n 8 -order 2 -where $where
    line=$(awk -v s1="$(steps one)" -v s2="$(steps np$np-$where)" -v e1="$(err one)" \
      -v e2="$(err np$np-$where)" 'function abs(x) { return x < 0 ? -x : x }
      BEGIN { printf "%s and %s steps, L2 error %s and %s", s1, s2, e1, e2
              exit !(s1 > 0 && s1 == s2 && e1 > 0 && abs(e1 - e2) <= 1e-9 * e1) }')
    st=$?
    ok $st "1 rank and $np ranks ($where workers): $line"
    [ $st -eq 0 ] || diag "$tmp/np$np-$where"
  done
done
run r4 2 -n 4 -order 2 -where cpu
run r8 2 -n 8 -order 2 -where cpu
line=$(awk -v a="$(err r4)" -v b="$(err r8)" \
  'BEGIN { r = (a > 0 && b > 0) ? log(a / b) / log(2) : 0
           printf "errors %s -> %s, rate %.2f", a, b, r; exit !(r >= 2.7) }')
ok $? "p = 2, h = 1/4 -> 1/8 on 2 ranks: $line (at least 2.7)"
run bad 1 -order 4
st=$?
[ $st -ne 0 ] && grep -q "order" "$tmp/bad"
ok $? "-order 4 refused by name"
echo "1..$n"
[ "$failed" -eq 0 ]
