/* The CPU's residual of a run of cells, compiled with the caller's pointwise source in front of it
 * (scheduler/pointwise_cc.c) so that the compiler knows the sizes (FEMINT_DIM, FEMINT_NC,
 * FEMINT_NA) and inlines f0 and f1: what host/pointwise.c's pw_cell_residual computes, cell after
 * cell. The codelet (codelets/residual.c) gives each thread of its team a range of cells.
 * ev[cell][nc][nsh] (floats when single) from u at dofs[cell][nsh], the geometry geo[cell][nq][1 +
 * dim^2 + dim] (w |det J|, K, x; floats when single), phi[nq][dim + 1][nsh], and the auxiliary
 * values: a field aux at adofs[cell][nsh] (aux_kind 1) or aux[cell][na] (2). */
#define FEMINT_NG (1 + FEMINT_DIM * FEMINT_DIM + FEMINT_DIM)
#define FEMINT_NAS (FEMINT_NA > 0 ? FEMINT_NA : 1)

/* Component c of a field of n components with the cell's values v[nsh][n] at a point (phi p):
 * its value, and its physical gradient into grad (K of the point). */
static inline double femint_field_at(const double *p, const double *v, int nsh, int n, int c,
                                     const double *K, double *grad)
{
  double s = 0, ref[FEMINT_DIM];
  for (int j = 0; j < FEMINT_DIM; j++) ref[j] = 0;
  for (int i = 0; i < nsh; i++) {
    const double vi = v[i * n + c];
    s += p[i] * vi;
    for (int j = 0; j < FEMINT_DIM; j++) ref[j] += p[(j + 1) * nsh + i] * vi;
  }
  for (int d = 0; d < FEMINT_DIM; d++) {
    double gd = 0;
    for (int j = 0; j < FEMINT_DIM; j++) gd += K[FEMINT_DIM * j + d] * ref[j];
    grad[d] = gd;
  }
  return s;
}

void femint_residual_cells(int ncell, int nsh, int nq, const double *phi, const double *u,
                           const long long *dofs, const void *geo, int single, const double *aux,
                           const long long *adofs, int aux_kind, const double *k, void *ev)
{
  double ue[nsh * FEMINT_NC], ae[nsh * FEMINT_NAS], r[FEMINT_NC * nsh];
  for (int cell = 0; cell < ncell; cell++) {
    const long long *dk = dofs + (long long)cell * nsh;
    for (int i = 0; i < nsh; i++)
      for (int c = 0; c < FEMINT_NC; c++) ue[i * FEMINT_NC + c] = dk[i] >= 0 ? u[dk[i] * FEMINT_NC + c] : 0;
    for (int i = 0; i < nsh * FEMINT_NAS; i++) ae[i] = 0;
    if (aux_kind == 1)
      for (int i = 0; i < nsh; i++)
        for (int c = 0; c < FEMINT_NA; c++) {
          const long long g = adofs[(long long)cell * nsh + i];
          ae[i * FEMINT_NAS + c] = g >= 0 ? aux[g * FEMINT_NA + c] : 0;
        }
    for (int i = 0; i < FEMINT_NC * nsh; i++) r[i] = 0;
    for (int q = 0; q < nq; q++) {
      const double *p = phi + (long long)q * (FEMINT_DIM + 1) * nsh;
      double g[FEMINT_NG];
      const long long at = ((long long)cell * nq + q) * FEMINT_NG;
      for (int i = 0; i < FEMINT_NG; i++)
        g[i] = single ? ((const float *)geo)[at + i] : ((const double *)geo)[at + i];
      const double *K = g + 1, *x = g + 1 + FEMINT_DIM * FEMINT_DIM;
      double uu[FEMINT_NC], du[FEMINT_NC * FEMINT_DIM], a[FEMINT_NAS], da[FEMINT_NAS * FEMINT_DIM];
      double f0v[FEMINT_NC], f1v[FEMINT_NC * FEMINT_DIM];
      for (int c = 0; c < FEMINT_NC; c++)
        uu[c] = femint_field_at(p, ue, nsh, FEMINT_NC, c, K, du + c * FEMINT_DIM);
      for (int c = 0; c < FEMINT_NAS; c++) {
        a[c] = aux_kind == 2 ? aux[(long long)cell * FEMINT_NAS + c] : 0;
        for (int d = 0; d < FEMINT_DIM; d++) da[c * FEMINT_DIM + d] = 0;
      }
      if (aux_kind == 1)
        for (int c = 0; c < FEMINT_NA; c++)
          a[c] = femint_field_at(p, ae, nsh, FEMINT_NAS, c, K, da + c * FEMINT_DIM);
      for (int c = 0; c < FEMINT_NC; c++) f0v[c] = 0;
      for (int c = 0; c < FEMINT_NC * FEMINT_DIM; c++) f1v[c] = 0;
      if (f0) f0(FEMINT_DIM, uu, du, a, da, x, k, f0v);
      if (f1) f1(FEMINT_DIM, uu, du, a, da, x, k, f1v);
      for (int c = 0; c < FEMINT_NC; c++) {
        double G[FEMINT_DIM];
        for (int j = 0; j < FEMINT_DIM; j++) {
          double s = 0;
          for (int d = 0; d < FEMINT_DIM; d++) s += K[FEMINT_DIM * j + d] * f1v[c * FEMINT_DIM + d];
          G[j] = g[0] * s;
        }
        const double w0 = g[0] * f0v[c];
        for (int i = 0; i < nsh; i++) {
          double s = p[i] * w0;
          for (int j = 0; j < FEMINT_DIM; j++) s += p[(j + 1) * nsh + i] * G[j];
          r[c * nsh + i] += s;
        }
      }
    }
    const long long out = (long long)cell * FEMINT_NC * nsh;
    for (int i = 0; i < FEMINT_NC * nsh; i++) {
      if (single) ((float *)ev)[out + i] = (float)r[i];
      else ((double *)ev)[out + i] = r[i];
    }
  }
}
