#!/bin/sh
# Test: examples/petsc_bps (the bake-off problems through PETSc's KSPCG with a MATSHELL whose
# MatMult is femint's matrix-free operator on each rank's cells) needs the same CG iterations (to
# +-1) and gives the same L2 error on 1, 2 and 4 ranks for BP3 (Laplace), BP5 (Laplace on the
# Gauss-Lobatto nodes), BP1 (mass) and elasticity; Jacobi from the shell's diagonal works on 2
# ranks; the L2 error of BP3 falls at the rate p + 1. Skipped when configure found no MPI or
# PETSc.

# make check sets PETSC_BPS to the program where configure found MPI and PETSc, else to "".
ex=${PETSC_BPS-examples/petsc_bps}
if [ -z "$ex" ] || [ -z "${MPIEXEC:-}" ] || [ ! -x "$ex" ]; then
  echo "1..0 # SKIP configured without MPI or PETSc (examples/petsc_bps not built)"
  exit 0
fi
. "$(dirname "$0")/mpi.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t704.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# mpirun's session files in this test's folder: two mpiruns starting at once (the MPI tests
# run in parallel under make -j) race to create the same /tmp/ompi.HOST.UID otherwise
export OMPI_MCA_orte_tmpdir_base="$tmp"

. "$(dirname "$0")/tap.sh"

# run NAME RANKS ARGS...: the example on RANKS ranks; its output in $tmp/NAME, its status.
run() {
  out=$1 ranks=$2
  shift 2
  "$MPIEXEC" -n "$ranks" "$ex" "$@" >"$tmp/$out" 2>&1
}
its() { awk '/^solve:/ {print $3}' "$tmp/$1"; }
err() { awk '/^L2 error:/ {print $3}' "$tmp/$1"; }

# same A B: the iterations to +-1 and the L2 error to 1e-6 relative (CG stops at 1e-8).
same() {
  awk -v i1="$(its "$1")" -v i2="$(its "$2")" -v e1="$(err "$1")" -v e2="$(err "$2")" \
    'function abs(x) { return x < 0 ? -x : x }
    BEGIN { ok = i1 > 0 && i2 > 0 && abs(i1 - i2) <= 1 && e1 > 0 && abs(e1 - e2) <= 1e-6 * e1
            printf "%s and %s iterations, L2 error %s and %s\n", i1, i2, e1, e2; exit !ok }'
}

for c in "bp3 -problem bp3 -order 3" "bp5 -problem bp5 -order 3" "bp1 -problem bp1 -order 2" \
  "el -problem elasticity -order 2"; do
  # shellcheck disable=SC2086 # the words of $c are the name and the arguments
  set -- $c
  name=$1
  shift
  run "$name-1" 1 -n 3 "$@"
  st=$?
  ok $st "$name on 1 rank: $(head -n 1 "$tmp/$name-1")"
  [ $st -eq 0 ] || diag "$tmp/$name-1"
  for np in 2 4; do
    [ "$np" = 4 ] && [ "$name" != bp3 ] && continue
    run "$name-$np" "$np" -n 3 -where cpu "$@"
    line=$(same "$name-1" "$name-$np")
    st=$?
    ok $st "$name, 1 rank and $np ranks: $line"
    [ $st -eq 0 ] || diag "$tmp/$name-$np"
  done
done

# Jacobi from the shell's diagonal (femint_operator_diagonal summed like A x): fewer iterations
# than plain CG, the same error.
run bp3-j 2 -n 3 -problem bp3 -order 3 -where cpu -pc_type jacobi
awk -v j="$(its bp3-j)" -v p="$(its bp3-1)" -v e1="$(err bp3-1)" -v e2="$(err bp3-j)" \
  'function abs(x) { return x < 0 ? -x : x }
  BEGIN { printf "Jacobi %s iterations against %s\n", j, p
          exit !(j > 0 && j < p && abs(e1 - e2) <= 1e-6 * e1) }' >"$tmp/jline"
st=$?
ok $st "bp3 on 2 ranks, -pc_type jacobi: $(cat "$tmp/jline")"
[ $st -eq 0 ] || diag "$tmp/bp3-j"

# The rate: BP3 of order 2 on 2^3 and 4^3 cells, 2 ranks.
run r2 2 -n 2 -problem bp3 -order 2 -where cpu
run r4 2 -n 4 -problem bp3 -order 2 -where cpu
line=$(awk -v a="$(err r2)" -v b="$(err r4)" \
  'BEGIN { r = (a > 0 && b > 0) ? log(a / b) / log(2) : 0
           printf "errors %s -> %s, rate %.2f", a, b, r; exit !(r >= 2.6) }')
ok $? "bp3, p = 2, h = 1/2 -> 1/4 on 2 ranks: $line (at least 2.6)"

# Bad options are refused by name.
run bad 1 -problem bp7
st=$?
[ $st -ne 0 ] && grep -q "bp7" "$tmp/bad"
ok $? "-problem bp7 refused by name"

echo "1..$n"
[ "$failed" -eq 0 ]
