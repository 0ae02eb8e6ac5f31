# TAP helpers for the shell tests, sourced: ok STATUS DESCRIPTION counts a test point (status 0
# passes), skip DESCRIPTION REASON a skipped one, diag FILE... prints files as comments; $n
# counts the points and $failed the failures; same_matrix A.mtx B.mtx compares two Matrix Market
# files.
n=0
failed=0
ok() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $n - $2"
  else
    echo "not ok $n - $2"
    failed=$((failed + 1))
  fi
}
skip() {
  n=$((n + 1))
  echo "ok $n - $1 # SKIP $2"
}
diag() { sed 's/^/# /' "$@"; }

# scipy may live in the system's python3 only (Debian's python3-scipy) when another python3 is first
# on the PATH.
have_scipy=no
scipy_python=python3
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import scipy.io' 2>/dev/null; then have_scipy=yes; scipy_python=$py; break; fi
done

# Whether two Matrix Market files hold the same entries, to 1e-12 of the largest one.
same_matrix() {
  if [ $have_scipy = yes ]; then
    "$scipy_python" -c '
import sys, scipy.io
A, B = (scipy.io.mmread(f).tocsr() for f in sys.argv[1:3])
assert A.shape == B.shape and A.nnz == B.nnz, (A.shape, B.shape, A.nnz, B.nnz)
assert abs(A - B).max() <= 1e-12 * abs(A).max()
' "$1" "$2"
  else
    awk '
      FNR == 1 { f++ }
      /^%/ { next }
      !sized[f]++ { size[f] = $1 " " $2 " " $3; next }
      { k = $1 " " $2; v[f, k] = $3; keys[k] = 1; a = $3 < 0 ? -$3 : $3; if (a > m) m = a }
      END {
        if (f != 2 || size[1] != size[2]) exit 1
        for (k in keys) { d = v[1, k] - v[2, k]; if (d < 0) d = -d; if (d > 1e-12 * m) exit 1 }
      }' "$1" "$2"
  fi
}
