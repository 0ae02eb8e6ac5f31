/* Pointwise forms (seed 002): the gallery, the prelude of a caller's source, the geometry at the
 * quadrature points and the residual of one cell (pointwise.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pointwise.h"
#include "refel_quad.h"

int pw_prelude(char *buf, size_t len, const struct pointwise *pw, int dim, int opencl,
               int single)
{
  return snprintf(buf, len,
                  "%s#define REAL %s\n#define FEMINT_POINTWISE\n#define FEMINT_DIM %d\n"
                  "#define FEMINT_NC %d\n#define FEMINT_NA %d\n#define FEMINT_NCONST %d\n"
                  "#line 1 \"%s\"\n",
                  opencl ? "" : "#include <math.h>\n", opencl && single ? "float" : "double", dim, pw->ncomp,
                  pw->naux, pw->nconst, pw->name);
}

int pw_geometry(const struct refel *re, int nnode, const double *X, double *g)
{
  const int dim = re->dim, ng = pw_geo_size(dim);
  for (int q = 0; q < re->nq; q++) {
    double J[9], K[9], x[3] = {0, 0, 0};
    geom_map(re->shape, nnode, X, &re->xq[dim * q], x, J);
    const double det = fabs(dim == 3 ? geom_inverse3(J, K) : geom_inverse2(J, K));
    if (!(det > 0) || !isfinite(det)) return FEMINT_EJACOBIAN;
    double *gq = g + (size_t)ng * q;
    gq[0] = det * re->wq[q];
    for (int i = 0; i < dim * dim; i++) gq[1 + i] = K[i];
    for (int d = 0; d < dim; d++) gq[1 + dim * dim + d] = x[d];
  }
  return 0;
}

int pw_geometry_affine(const struct refel *re, int nnode, const double *X, double *g)
{
  const int dim = re->dim;
  double J[9], K[9], x0[3], xi0[3] = {0, 0, 0};
  geom_map(re->shape, nnode, X, xi0, x0, J);
  const double det = fabs(dim == 3 ? geom_inverse3(J, K) : geom_inverse2(J, K));
  if (!(det > 0) || !isfinite(det)) return FEMINT_EJACOBIAN;
  g[0] = det;
  for (int i = 0; i < dim * dim; i++) g[1 + i] = K[i], g[1 + dim * dim + i] = J[i];
  for (int d = 0; d < dim; d++) g[1 + 2 * dim * dim + d] = x0[d];
  return 0;
}

void pw_affine_points(const struct refel *re, const double *ga, double *g)
{
  const int dim = re->dim, ng = pw_geo_size(dim);
  const double *J = ga + 1 + dim * dim, *x0 = J + dim * dim;
  for (int q = 0; q < re->nq; q++) {
    double *gq = g + (size_t)ng * q;
    const double *xi = &re->xq[dim * q];
    gq[0] = re->wq[q] * ga[0];
    for (int i = 0; i < dim * dim; i++) gq[1 + i] = ga[1 + i];
    for (int a = 0; a < dim; a++) {
      double x = x0[a];
      for (int b = 0; b < dim; b++) x += J[dim * a + b] * xi[b];
      gq[1 + dim * dim + a] = x;
    }
  }
}

/* Values and physical gradients at point q of a field of n components with local values v[nsh
 * * n]: val[n], grad[n * dim]. */
static void field_at(const double *phi, int nsh, int dim, const double *K, int n, const double *v,
                     double *val, double *grad)
{
  for (int c = 0; c < n; c++) {
    double s = 0, ref[3] = {0, 0, 0};
    for (int i = 0; i < nsh; i++) {
      const double vi = v[i * n + c];
      s += phi[i] * vi;
      for (int j = 0; j < dim; j++) ref[j] += phi[(j + 1) * nsh + i] * vi;
    }
    val[c] = s;
    for (int d = 0; d < dim; d++) {
      double gd = 0;
      for (int j = 0; j < dim; j++) gd += K[dim * j + d] * ref[j];
      grad[c * dim + d] = gd;
    }
  }
}

void pw_cell_residual(const struct pw_eval *e, const double *g, const double *ue,
                      const double *ae, double *r)
{
  const struct refel *re = e->re;
  const int dim = e->dim, nc = e->nc, na = e->na, nsh = re->nsh, ng = pw_geo_size(dim);
  memset(r, 0, (size_t)nc * nsh * sizeof *r);
  for (int q = 0; q < re->nq; q++) {
    const double *gq = g + (size_t)ng * q, *K = gq + 1, *x = gq + 1 + dim * dim;
    const double *phi = re->phi + (size_t)q * (dim + 1) * nsh;
    double u[PW_MAX_NC], du[PW_MAX_NC * 3], a[PW_MAX_NA] = {0}, da[PW_MAX_NA * 3] = {0};
    double f0[PW_MAX_NC] = {0}, f1[PW_MAX_NC * 3] = {0}, G[PW_MAX_NC * 3];
    field_at(phi, nsh, dim, K, nc, ue, u, du);
    if (e->aux == FEMINT_AUX_FIELD) field_at(phi, nsh, dim, K, na, ae, a, da);
    else if (e->aux == FEMINT_AUX_CELL) memcpy(a, ae, (size_t)na * sizeof *a);
    if (e->f0) e->f0(dim, u, du, a, da, x, e->k, f0);
    if (e->f1) e->f1(dim, u, du, a, da, x, e->k, f1);
    /* f1 against the reference gradients: G[c][j] = sum_d K[j][d] f1[c][d] */
    for (int c = 0; c < nc; c++)
      for (int j = 0; j < dim; j++) {
        double s = 0;
        for (int d = 0; d < dim; d++) s += K[dim * j + d] * f1[c * dim + d];
        G[c * dim + j] = gq[0] * s;
      }
    for (int c = 0; c < nc; c++) {
      const double w0 = gq[0] * f0[c];
      for (int i = 0; i < nsh; i++) {
        double s = phi[i] * w0;
        for (int j = 0; j < dim; j++) s += phi[(j + 1) * nsh + i] * G[c * dim + j];
        r[c * nsh + i] += s;
      }
    }
  }
}

int pw_defines(const char *source, const char *name)
{
  const size_t n = strlen(name);
  for (const char *s = source; *s; s++) {
    if (s[0] == '/' && s[1] == '*') { /* skip comments */
      const char *end = strstr(s + 2, "*/");
      if (!end) return 0;
      s = end + 1;
      continue;
    }
    if (s[0] == '/' && s[1] == '/') {
      while (*s && *s != '\n') s++;
      if (!*s) return 0;
      continue;
    }
    const int word = s == source || !(isalnum((unsigned char)s[-1]) || s[-1] == '_');
    if (!word || strncmp(s, name, n) || isalnum((unsigned char)s[n]) || s[n] == '_') continue;
    const char *t = s + n;
    while (*t == ' ' || *t == '\t') t++;
    if (*t != '(') continue;
    /* a definition: the word before is a type (void), not an operator or a call's context */
    const char *b = s;
    while (b > source && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n')) b--;
    if (b - source >= 4 && !strncmp(b - 4, "void", 4)) return 1;
  }
  return 0;
}

int pw_defines_g(const char *source)
{
  return source && (pw_defines(source, "g0") || pw_defines(source, "g1") ||
                    pw_defines(source, "g2") || pw_defines(source, "g3"));
}

/* The physical gradients grad[i * dim + d] of the first n functions at a point, from their
 * reference derivatives there (phi as at the point: value, then d/dxi_j at (j + 1) nsh + i). */
static void function_gradients(const double *phi, int nsh, int n, int dim, const double *K,
                               double *grad)
{
  for (int i = 0; i < n; i++)
    for (int d = 0; d < dim; d++) {
      double s = 0;
      for (int j = 0; j < dim; j++) s += K[dim * j + d] * phi[(j + 1) * nsh + i];
      grad[i * dim + d] = s;
    }
}

/* The pointwise derivatives g0..g3 at point q of a cell (gall zeroed first, then g0, g1, g2, g3
 * one after the other) from the cell's values and geometry gq at the point. */
static void jacobian_point(const struct pw_eval *e, femint_pointwise_fn const g[4], int q,
                           const double *gq, const double *ue, const double *ae, double *gall,
                           int nall)
{
  const struct refel *re = e->re;
  const int dim = e->dim, nc = e->nc, na = e->na, nsh = re->nsh;
  const double *K = gq + 1, *x = gq + 1 + dim * dim;
  const double *phi = re->phi + (size_t)q * (dim + 1) * nsh;
  double u[PW_MAX_NC], du[PW_MAX_NC * 3], a[PW_MAX_NA] = {0}, da[PW_MAX_NA * 3] = {0};
  memset(gall, 0, (size_t)nall * sizeof *gall);
  const int n0 = nc * nc, n1 = n0 * dim;
  double *out[4] = {gall, gall + n0, gall + n0 + n1, gall + n0 + 2 * n1};
  field_at(phi, nsh, dim, K, nc, ue, u, du);
  if (e->aux == FEMINT_AUX_FIELD) field_at(phi, nsh, dim, K, na, ae, a, da);
  else if (e->aux == FEMINT_AUX_CELL) memcpy(a, ae, (size_t)na * sizeof *a);
  for (int k = 0; k < 4; k++)
    if (g[k]) g[k](dim, u, du, a, da, x, e->k, out[k]);
}

/* pw_cell_jacobian of a straight simplex of order 1, whose functions' gradients are the same at
 * every point: g0..g3 weighted by the functions' values summed over the points first, then
 * every entry once. Inlined with dim and nc known (pw_cell_jacobian). */
static inline __attribute__((always_inline)) void
jacobian_linear_of(const struct pw_eval *e, femint_pointwise_fn const g[4], const double *geo,
                   const double *ue, const double *ae, double *J, const int dim, const int nc)
{
  const struct refel *re = e->re;
  const int nsh = dim + 1, ng = pw_geo_size(dim), n = nsh * nc;
  const int n0 = nc * nc, n1 = n0 * dim, nall = n0 + 2 * n1 + n1 * dim;
  double gall[PW_MAX_NC * PW_MAX_NC * 16], grad[4 * 3];
  /* G0[i][j][ce], G1[i][ce][d], G2[j][ce][d], G3[ce][d1][d]: their used parts zeroed (the whole
   * arrays, 3.6 KB a cell, cost more than the rest at order 1) */
  double G0[4 * 4 * PW_MAX_NC * PW_MAX_NC], G1[4 * PW_MAX_NC * PW_MAX_NC * 3],
      G2[4 * PW_MAX_NC * PW_MAX_NC * 3], G3[PW_MAX_NC * PW_MAX_NC * 9];
  memset(G0, 0, (size_t)nsh * nsh * n0 * sizeof *G0);
  memset(G1, 0, (size_t)nsh * n1 * sizeof *G1);
  memset(G2, 0, (size_t)nsh * n1 * sizeof *G2);
  memset(G3, 0, (size_t)n1 * dim * sizeof *G3);
  function_gradients(re->phi, nsh, nsh, dim, geo + 1, grad);
  /* the fields' gradients, the same at every point; their values at each point below */
  const int na = e->na, field = e->aux == FEMINT_AUX_FIELD;
  double du[PW_MAX_NC * 3] = {0}, da[PW_MAX_NA * 3] = {0}, a[PW_MAX_NA] = {0};
  for (int i = 0; i < nsh; i++)
    for (int d = 0; d < dim; d++) {
      for (int c = 0; c < nc; c++) du[c * dim + d] += grad[i * dim + d] * ue[i * nc + c];
      for (int c = 0; field && c < na; c++) da[c * dim + d] += grad[i * dim + d] * ae[i * na + c];
    }
  if (e->aux == FEMINT_AUX_CELL) memcpy(a, ae, (size_t)na * sizeof *a);
  double *out[4] = {gall, gall + n0, gall + n0 + n1, gall + n0 + 2 * n1};
  for (int q = 0; q < re->nq; q++) {
    const double *gq = geo + (size_t)ng * q, *phi = re->phi + (size_t)q * (dim + 1) * nsh;
    double u[PW_MAX_NC];
    for (int c = 0; c < nc; c++) {
      double t = 0;
      for (int i = 0; i < nsh; i++) t += phi[i] * ue[i * nc + c];
      u[c] = t;
    }
    for (int c = 0; field && c < na; c++) {
      double t = 0;
      for (int i = 0; i < nsh; i++) t += phi[i] * ae[i * na + c];
      a[c] = t;
    }
    memset(gall, 0, (size_t)nall * sizeof *gall);
    for (int k = 0; k < 4; k++)
      if (g[k]) g[k](dim, u, du, a, da, gq + 1 + dim * dim, e->k, out[k]);
    const double w = gq[0], *g0 = gall, *g1 = g0 + n0, *g2 = g1 + n1, *g3 = g2 + n1;
    if (g[0])
      for (int i = 0; i < nsh; i++)
        for (int j = 0; j < nsh; j++)
          for (int ce = 0; ce < n0; ce++) G0[(i * nsh + j) * n0 + ce] += w * phi[i] * phi[j] * g0[ce];
    for (int i = 0; i < nsh; i++)
      for (int m = 0; m < n1; m++) {
        if (g[1]) G1[i * n1 + m] += w * phi[i] * g1[m];
        if (g[2]) G2[i * n1 + m] += w * phi[i] * g2[m];
      }
    if (g[3])
      for (int m = 0; m < n1 * dim; m++) G3[m] += w * g3[m];
  }
  /* H[i][ce][d]: the test function's side, G1 and grad phi_i G3, against the trial gradient */
  double H[4 * PW_MAX_NC * PW_MAX_NC * 3];
  for (int i = 0; i < nsh; i++)
    for (int m = 0; m < n1; m++) {
      const int ce = m / dim, d = m % dim;
      double h = G1[i * n1 + m];
      for (int d1 = 0; d1 < dim; d1++) h += grad[i * dim + d1] * G3[(ce * dim + d1) * dim + d];
      H[i * n1 + m] = h;
    }
  for (int i = 0; i < nsh; i++)
    for (int c = 0; c < nc; c++)
      for (int j = 0; j < nsh; j++)
        for (int f = 0; f < nc; f++) {
          const int ce = c * nc + f;
          const double *gi = grad + i * dim, *gj = grad + j * dim;
          double v = G0[(i * nsh + j) * n0 + ce];
          for (int d = 0; d < dim; d++)
            v += H[i * n1 + ce * dim + d] * gj[d] + gi[d] * G2[j * n1 + ce * dim + d];
          J[(size_t)(i * nc + c) * n + j * nc + f] = v;
        }
}

/* pw_cell_jacobian of any cell, point by point; inlined with dim and nc known. */
static inline __attribute__((always_inline)) void
jacobian_points_of(const struct pw_eval *e, femint_pointwise_fn const g[4], const double *geo,
                   const double *ue, const double *ae, double *J, const int dim, const int nc)
{
  const struct refel *re = e->re;
  const int nsh = re->nsh, ng = pw_geo_size(dim);
  const int n = nsh * nc;
  /* g0..g3 one after the other, the used part zeroed at every point; the terms of the trial
   * function's value (g0, g2) and gradient (g1, g3) only where the source defines them */
  const int n0 = nc * nc, n1 = n0 * dim, nall = n0 + 2 * n1 + n1 * dim;
  const int has_v = g[0] || g[2], has_g = g[1] || g[3];
  memset(J, 0, (size_t)n * n * sizeof *J);
  for (int q = 0; q < re->nq; q++) {
    const double *gq = geo + (size_t)ng * q, *K = gq + 1;
    const double *phi = re->phi + (size_t)q * (dim + 1) * nsh;
    double gall[PW_MAX_NC * PW_MAX_NC * 16];
    jacobian_point(e, g, q, gq, ue, ae, gall, nall);
    const double *g0 = gall, *g1 = g0 + n0, *g2 = g1 + n1, *g3 = g2 + n1;
    /* the physical gradients of the functions at the point */
    double grad[64 * 3], gradT[3 * 64];
    function_gradients(phi, nsh, nsh < 64 ? nsh : 64, dim, K, grad);
    /* and by direction (gradT[d][j]), for the loops over the trial functions */
    for (int j = 0; j < nsh && j < 64; j++)
      for (int d = 0; d < dim; d++) gradT[d * 64 + j] = grad[j * dim + d];
    /* per test function and components, the coefficients of the trial function's value and
     * gradient, then every trial function */
    const double w = gq[0];
    for (int i = 0; i < nsh; i++)
      for (int c = 0; c < nc; c++)
        for (int f = 0; f < nc; f++) {
          const int ce = c * nc + f;
          const double *gi = grad + i * dim;
          double cv = phi[i] * g0[ce], cg[3] = {0, 0, 0};
          for (int d = 0; d < dim; d++) {
            cv += gi[d] * g2[ce * dim + d];
            double t = phi[i] * g1[ce * dim + d];
            for (int d1 = 0; d1 < dim; d1++) t += gi[d1] * g3[(ce * dim + d1) * dim + d];
            cg[d] = w * t;
          }
          cv *= w;
          double *row = J + (size_t)(i * nc + c) * n + f;
          if (has_v && has_g)
            for (int j = 0; j < nsh; j++) {
              double t = cv * phi[j];
              for (int d = 0; d < dim; d++) t += cg[d] * gradT[d * 64 + j];
              row[j * nc] += t;
            }
          else if (has_g)
            for (int j = 0; j < nsh; j++) {
              double t = 0;
              for (int d = 0; d < dim; d++) t += cg[d] * gradT[d * 64 + j];
              row[j * nc] += t;
            }
          else if (has_v)
            for (int j = 0; j < nsh; j++) row[j * nc] += cv * phi[j];
        }
  }
}

/* The cell's Jacobian, inlined with dim and nc known: straight order-1 simplices once, the rest
 * point by point. */
static inline __attribute__((always_inline)) void
cell_jacobian_of(const struct pw_eval *e, femint_pointwise_fn const g[4], const double *geo,
                 const double *ue, const double *ae, double *J, const int dim, const int nc)
{
  if (e->affine && e->re->nsh == dim + 1) jacobian_linear_of(e, g, geo, ue, ae, J, dim, nc);
  else jacobian_points_of(e, g, geo, ue, ae, J, dim, nc);
}

void pw_cell_jacobian(const struct pw_eval *e, femint_pointwise_fn const g[4], const double *geo,
                      const double *ue, const double *ae, double *J)
{
  const int dim = e->dim, nc = e->nc;
  if (dim == 3 && nc == 1) cell_jacobian_of(e, g, geo, ue, ae, J, 3, 1);
  else if (dim == 2 && nc == 1) cell_jacobian_of(e, g, geo, ue, ae, J, 2, 1);
  else if (dim == 3 && nc == 3) cell_jacobian_of(e, g, geo, ue, ae, J, 3, 3);
  else if (dim == 2 && nc == 2) cell_jacobian_of(e, g, geo, ue, ae, J, 2, 2);
  else cell_jacobian_of(e, g, geo, ue, ae, J, dim, nc);
}

/* ---- The gallery: text that is C and OpenCL C at once ---- */

static const char poisson[] =
    "/* Poisson: -div(a grad u) = f, a the auxiliary field (1 without), f = k[0] (0 without) */\n"
    "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  f[0] = FEMINT_NCONST > 0 ? -k[0] : 0;\n"
    "}\n"
    "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  const REAL c = FEMINT_NA > 0 ? a[0] : 1;\n"
    "  for (int d = 0; d < dim; d++) f[d] = c * du[d];\n"
    "}\n"
    "FEMINT_POINTWISE void g3(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  const REAL c = FEMINT_NA > 0 ? a[0] : 1;\n"
    "  for (int d = 0; d < dim * dim; d++) g[d] = d % (dim + 1) == 0 ? c : 0;\n"
    "}\n";

static const char elasticity[] =
    "/* Linear elasticity: sigma = lambda tr(eps) I + 2 mu eps, lambda = k[0], mu = k[1] */\n"
    "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  for (int c = 0; c < dim; c++) f[c] = 0;\n"
    "}\n"
    "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  REAL tr = 0;\n"
    "  for (int d = 0; d < dim; d++) tr += du[d * dim + d];\n"
    "  for (int c = 0; c < dim; c++)\n"
    "    for (int d = 0; d < dim; d++)\n"
    "      f[c * dim + d] = k[1] * (du[c * dim + d] + du[d * dim + c]) + (c == d ? k[0] * tr : 0);\n"
    "}\n"
    "FEMINT_POINTWISE void g3(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  for (int c = 0; c < dim; c++)\n"
    "    for (int e = 0; e < dim; e++)\n"
    "      for (int d = 0; d < dim; d++)\n"
    "        for (int d2 = 0; d2 < dim; d2++)\n"
    "          g[((c * dim + e) * dim + d) * dim + d2] =\n"
    "              k[1] * ((c == e && d == d2) + (c == d2 && e == d)) + k[0] * (c == d && e == d2);\n"
    "}\n";

static const char plaplace[] =
    "/* p-Laplacian: -div((eps^2 + |grad u|^2)^((p-2)/2) grad u) = f, p = k[0], f = k[1],\n"
    " * eps = k[2] (0 without) */\n"
    "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  f[0] = -k[1];\n"
    "}\n"
    "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  REAL s = FEMINT_NCONST > 2 ? k[2] * k[2] : 0;\n"
    "  for (int d = 0; d < dim; d++) s += du[d] * du[d];\n"
    "  const REAL c = s > 0 ? pow(s, (REAL)0.5 * (k[0] - 2)) : 0;\n"
    "  for (int d = 0; d < dim; d++) f[d] = c * du[d];\n"
    "}\n"
    "FEMINT_POINTWISE void g3(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  REAL s = FEMINT_NCONST > 2 ? k[2] * k[2] : 0;\n"
    "  for (int d = 0; d < dim; d++) s += du[d] * du[d];\n"
    "  const REAL c = s > 0 ? pow(s, (REAL)0.5 * (k[0] - 2)) : 0;\n"
    "  const REAL c2 = s > 0 ? (k[0] - 2) * pow(s, (REAL)0.5 * (k[0] - 4)) : 0;\n"
    "  for (int d = 0; d < dim; d++)\n"
    "    for (int d2 = 0; d2 < dim; d2++) g[d * dim + d2] = (d == d2 ? c : 0) + c2 * du[d] * du[d2];\n"
    "}\n";

static const char bratu[] =
    "/* Bratu: -laplace u - lambda exp(u) = 0, lambda = k[0] */\n"
    "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  f[0] = -k[0] * exp(u[0]);\n"
    "}\n"
    "FEMINT_POINTWISE void g0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  g[0] = -k[0] * exp(u[0]);\n"
    "}\n"
    "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  for (int d = 0; d < dim; d++) f[d] = du[d];\n"
    "}\n"
    "FEMINT_POINTWISE void g3(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  for (int d = 0; d < dim * dim; d++) g[d] = d % (dim + 1) == 0 ? 1 : 0;\n"
    "}\n";

const char *pw_gallery(const char *name)
{
  static const struct {
    const char *name, *text;
  } gallery[] = {{"poisson", poisson}, {"elasticity", elasticity}, {"plaplace", plaplace},
                 {"bratu", bratu}};
  for (size_t i = 0; name && i < sizeof gallery / sizeof *gallery; i++)
    if (!strcmp(name, gallery[i].name)) return gallery[i].text;
  return NULL;
}

const char *femint_pointwise_gallery(const char *name) { return pw_gallery(name); }
