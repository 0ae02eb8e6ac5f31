#!/usr/bin/env python3
"""Compares Matrix Market files written by `femint run --output` by two builds of femint.

  tools/compare-matrices.py A.mtx B.mtx            entrywise: max |A - B| / max |A|
  tools/compare-matrices.py --spectrum A.mtx B.mtx  for DOF numberings that differ (a signed
                                                     permutation): the sorted eigenvalues, the
                                                     sorted magnitudes of the entries, the sorted
                                                     diagonals (dense: small matrices only)
  tools/compare-matrices.py --pencil T1 S1 T2 S2    also the generalized eigenvalues S x = l T x

Needs Python 3 with NumPy and SciPy (Debian: python3-scipy). Prints one line per comparison and
exits with status 1 when a relative difference exceeds 1e-12."""
import sys

import numpy as np
import scipy.io
import scipy.linalg

TOL = 1e-12


def read(path):
    return scipy.io.mmread(path).tocsr()


def rel(x, y):
    scale = np.abs(x).max() if x.size else 1.0
    return float(np.abs(x - y).max() / scale) if x.size else 0.0


def main(argv):
    if len(argv) == 3 and argv[0] == "--spectrum":
        a, b = read(argv[1]), read(argv[2])
        if a.shape != b.shape or a.nnz != b.nnz:
            print(f"{argv[1]} {a.shape} nnz {a.nnz}, {argv[2]} {b.shape} nnz {b.nnz}: differ")
            return 1
        d = [rel(np.sort(scipy.linalg.eigvalsh(a.toarray())), np.sort(scipy.linalg.eigvalsh(b.toarray()))),
             rel(np.sort(np.abs(a.data)), np.sort(np.abs(b.data))),
             rel(np.sort(a.diagonal()), np.sort(b.diagonal()))]
        print(f"{argv[1]} vs {argv[2]}: {a.shape[0]} rows, {a.nnz} non-zeros; relative differences: "
              f"eigenvalues {d[0]:.2e}, |entries| {d[1]:.2e}, diagonal {d[2]:.2e}")
        return int(max(d) > TOL)
    if len(argv) == 5 and argv[0] == "--pencil":
        t1, s1, t2, s2 = (read(p).toarray() for p in argv[1:])
        g1 = np.sort(scipy.linalg.eigh(s1, t1, eigvals_only=True))
        g2 = np.sort(scipy.linalg.eigh(s2, t2, eigvals_only=True))
        d = rel(g1, g2)
        print(f"S x = l T x, {argv[1]}/{argv[2]} vs {argv[3]}/{argv[4]}: relative difference of the "
              f"eigenvalues {d:.2e}; smallest above zero {g1[g1 > 1e-8 * g1.max()][:3]}")
        return int(d > TOL)
    if len(argv) == 2:
        a, b = read(argv[0]), read(argv[1])
        if a.shape != b.shape:
            print(f"{argv[0]} {a.shape}, {argv[1]} {b.shape}: differ")
            return 1
        d = float(abs(a - b).max() / abs(a).max())
        print(f"{argv[0]} vs {argv[1]}: {a.shape[0]} rows, nnz {a.nnz} / {b.nnz}; "
              f"max |A - B| / max |A| = {d:.2e}")
        return int(d > TOL)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
