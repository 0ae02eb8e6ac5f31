/* Weak forms, constant per cell: the generic coefficient array of seed 000 and its instances
 * (linear elasticity in 3D and in plane stress or strain, the Laplacian, the mass matrix) on H1
 * spaces; the mass and curl-curl forms of seed 004 on H(curl) spaces. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pointwise.h"
#include "refel_tet.h"

static int form_new_dim(femint_context_t ctx, int kind, int dim, int ne, int ncoef, int nvalues,
                        femint_form_t *form)
{
  FEMINT_CHECK(form, ctx, FEMINT_EINVAL, "form: the output pointer is NULL");
  *form = NULL;
  FEMINT_CHECK(nvalues >= 1, ctx, FEMINT_EINVAL,
               "form: the number of per-cell values must be >= 1, got %d", nvalues);
  FEMINT_CHECK(ne >= 1 && ne <= 5, ctx, FEMINT_EINVAL,
               "form: the number of components must be 1..5, got %d", ne);
  struct femint_form *f = calloc(1, sizeof *f);
  double *coef = f ? calloc((size_t)nvalues * ncoef, sizeof *coef) : NULL;
  if (!coef) {
    free(f);
    return femint_seterr(ctx, FEMINT_ENOMEM, "form: out of memory for %d cells", nvalues);
  }
  const int family = kind == FORM_HCURL_MASS || kind == FORM_CURLCURL ? FEMINT_HCURL : FEMINT_H1;
  *f = (struct femint_form){ctx, kind, family, dim, ne, ncoef, nvalues, coef, NULL};
  *form = f;
  return 0;
}

static int form_new(femint_context_t ctx, int kind, int ne, int ncoef, int nvalues,
                    femint_form_t *form)
{
  return form_new_dim(ctx, kind, 0, ne, ncoef, nvalues, form);
}

/* Elasticity in 3D (plane < 0) or in plane stress or strain: the coefficients lambda and mu of
 * sigma = lambda tr(eps) I + 2 mu eps, with plane stress's lambda* = 2 lambda mu / (lambda + 2 mu)
 * = E nu / (1 - nu^2) in place of lambda (sigma_zz = 0 eliminated). */
static int elasticity(femint_context_t ctx, int plane, int nvalues, const double *young,
                      const double *poisson, femint_form_t *form)
{
  FEMINT_CHECK(form, ctx, FEMINT_EINVAL, "elasticity: the output pointer is NULL");
  *form = NULL;
  FEMINT_CHECK(young && poisson, ctx, FEMINT_EINVAL, "elasticity: NULL material arrays");
  for (int c = 0; c < nvalues; c++) {
    FEMINT_CHECK(young[c] > 0 && isfinite(young[c]), ctx, FEMINT_EINVAL,
                 "elasticity: Young's modulus of cell %d is %g, must be finite and > 0", c,
                 young[c]);
    FEMINT_CHECK(poisson[c] > -1 && poisson[c] < 0.5, ctx, FEMINT_EINVAL,
                 "elasticity: Poisson ratio of cell %d is %g, must be in (-1, 0.5)", c,
                 poisson[c]);
  }
  const int dim = plane < 0 ? 3 : 2;
  FEMINT_CALL(form_new_dim(ctx, FORM_ELASTICITY, dim, dim, 2, nvalues, form));
  for (int c = 0; c < nvalues; c++) {
    double E = young[c], nu = poisson[c];
    (*form)->coef[2 * c] = plane == FEMINT_PLANE_STRESS ? E * nu / (1 - nu * nu)
                                                         : E * nu / ((1 + nu) * (1 - 2 * nu));
    (*form)->coef[2 * c + 1] = E / (2 * (1 + nu)); /* mu */
  }
  return 0;
}

int femint_form_create_elasticity(femint_context_t ctx, int nvalues, const double *young,
                                  const double *poisson, femint_form_t *form)
{
  return elasticity(ctx, -1, nvalues, young, poisson, form);
}

int femint_form_create_plane_elasticity(femint_context_t ctx, int plane, int nvalues,
                                        const double *young, const double *poisson,
                                        femint_form_t *form)
{
  FEMINT_CHECK(plane == FEMINT_PLANE_STRESS || plane == FEMINT_PLANE_STRAIN, ctx, FEMINT_EINVAL,
               "plane elasticity: plane = %d is neither FEMINT_PLANE_STRESS nor "
               "FEMINT_PLANE_STRAIN",
               plane);
  return elasticity(ctx, plane, nvalues, young, poisson, form);
}

static int form_scalar(femint_context_t ctx, int kind, const char *what, int ncomp, int nvalues,
                       const double *v, femint_form_t *form)
{
  FEMINT_CHECK(v, ctx, FEMINT_EINVAL, "%s: NULL coefficient array", what);
  for (int c = 0; c < nvalues; c++)
    FEMINT_CHECK(v[c] > 0 && isfinite(v[c]), ctx, FEMINT_EINVAL,
                 "%s: coefficient of cell %d is %g, must be finite and > 0", what, c, v[c]);
  FEMINT_CALL(form_new(ctx, kind, ncomp, 1, nvalues, form));
  memcpy((*form)->coef, v, (size_t)nvalues * sizeof *v);
  return 0;
}

int femint_form_create_laplace(femint_context_t ctx, int ncomp, int nvalues, const double *kappa,
                               femint_form_t *form)
{
  return form_scalar(ctx, FORM_LAPLACE, "laplace", ncomp, nvalues, kappa, form);
}

int femint_form_create_mass(femint_context_t ctx, int ncomp, int nvalues, const double *rho,
                            femint_form_t *form)
{
  return form_scalar(ctx, FORM_MASS, "mass", ncomp, nvalues, rho, form);
}

int femint_form_create_generic(femint_context_t ctx, int ne, int nvalues, const double *c,
                               femint_form_t *form)
{
  FEMINT_CHECK(c, ctx, FEMINT_EINVAL, "generic form: NULL coefficient array");
  for (size_t i = 0; ne >= 1 && ne <= 5 && nvalues >= 1 && i < (size_t)nvalues * ne * ne * 16; i++)
    FEMINT_CHECK(isfinite(c[i]), ctx, FEMINT_EINVAL,
                 "generic form: coefficient %zu of cell %zu is %g, not finite", i % (ne * ne * 16),
                 i / (ne * ne * 16), c[i]);
  FEMINT_CALL(form_new(ctx, FORM_GENERIC, ne, ne * ne * 16, nvalues, form));
  memcpy((*form)->coef, c, (size_t)nvalues * ne * ne * 16 * sizeof *c);
  return 0;
}

/* The H(curl) forms: the tensor of each cell (eps, or nu = mu^-1 for the curl-curl form). */
static int hcurl_form(femint_context_t ctx, int kind, int nvalues, int tensor, const double *v,
                      femint_form_t *form)
{
  const char *what = kind == FORM_HCURL_MASS ? "hcurl_mass" : "curlcurl";
  FEMINT_CHECK(form, ctx, FEMINT_EINVAL, "%s: the output pointer is NULL", what);
  *form = NULL;
  FEMINT_CHECK(v, ctx, FEMINT_EINVAL, "%s: NULL coefficient array", what);
  FEMINT_CHECK(tensor == 0 || tensor == 1, ctx, FEMINT_EINVAL,
               "%s: tensor = %d (0: a scalar per cell, 1: a 3 x 3 tensor per cell)", what, tensor);
  FEMINT_CALL(form_new_dim(ctx, kind, 3, 1, 9, nvalues, form));
  static const double unit[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int c = 0; c < nvalues; c++) {
    double A[9];
    int err = 0;
    if (tensor) {
      memcpy(A, v + 9 * (size_t)c, sizeof A);
    } else if (v[c] > 0 && isfinite(v[c])) {
      for (int i = 0; i < 9; i++) A[i] = unit[i] * v[c];
    } else {
      err = femint_seterr(ctx, FEMINT_EINVAL, "%s: coefficient of cell %d is %g, must be > 0",
                          what, c, v[c]);
    }
    struct tet_coef k;
    if (!err && (kind == FORM_HCURL_MASS ? tet_coef_tensor(A, unit, &k)
                                         : tet_coef_tensor(unit, A, &k)))
      err = femint_seterr(ctx, FEMINT_EINVAL, "%s: cell %d: %s", what, c, femint_thread_error());
    if (err) {
      femint_form_destroy(form);
      return err;
    }
    memcpy((*form)->coef + 9 * (size_t)c, kind == FORM_HCURL_MASS ? k.eps : k.nu, sizeof k.eps);
  }
  return 0;
}

int femint_form_create_hcurl_mass(femint_context_t ctx, int nvalues, int tensor,
                                  const double *eps, femint_form_t *form)
{
  return hcurl_form(ctx, FORM_HCURL_MASS, nvalues, tensor, eps, form);
}

int femint_form_create_curlcurl(femint_context_t ctx, int nvalues, int tensor, const double *mu,
                                femint_form_t *form)
{
  return hcurl_form(ctx, FORM_CURLCURL, nvalues, tensor, mu, form);
}

int femint_form_create_pointwise(femint_context_t ctx, const struct femint_pointwise *pw,
                                 femint_form_t *form)
{
  static const char who[] = "femint_form_create_pointwise";
  FEMINT_CHECK(form, ctx, FEMINT_EINVAL, "%s: form (output) is NULL", who);
  *form = NULL;
  FEMINT_CHECK(pw, ctx, FEMINT_EINVAL, "%s: the description is NULL", who);
  FEMINT_CHECK(pw->ncomp >= 1 && pw->ncomp <= PW_MAX_NC, ctx, FEMINT_EINVAL,
               "%s: ncomp = %d (1..%d)", who, pw->ncomp, PW_MAX_NC);
  FEMINT_CHECK(pw->aux == FEMINT_AUX_NONE || pw->aux == FEMINT_AUX_FIELD ||
                   pw->aux == FEMINT_AUX_CELL,
               ctx, FEMINT_EINVAL, "%s: aux = %d is not an enum femint_aux", who, pw->aux);
  FEMINT_CHECK(pw->aux == FEMINT_AUX_NONE ? pw->naux == 0 : pw->naux >= 1 && pw->naux <= PW_MAX_NA,
               ctx, FEMINT_EINVAL, "%s: naux = %d (%s)", who, pw->naux,
               pw->aux == FEMINT_AUX_NONE ? "0 without an auxiliary field" : "1..3");
  FEMINT_CHECK(pw->aux != FEMINT_AUX_CELL || (pw->aux_cell && pw->ncell_aux >= 1), ctx,
               FEMINT_EINVAL, "%s: FEMINT_AUX_CELL without aux_cell values (ncell_aux = %d)", who,
               pw->ncell_aux);
  FEMINT_CHECK(pw->nconst >= 0 && pw->nconst <= PW_MAX_CONST && (!pw->nconst || pw->constants),
               ctx, FEMINT_EINVAL, "%s: nconst = %d (0..%d, with the constants)", who, pw->nconst,
               PW_MAX_CONST);
  FEMINT_CHECK(pw->source || pw->f0 || pw->f1, ctx, FEMINT_EINVAL,
               "%s: neither a source text nor the functions f0 and f1", who);
  for (int i = 0; i < pw->nconst; i++)
    FEMINT_CHECK(isfinite(pw->constants[i]), ctx, FEMINT_EINVAL, "%s: constants[%d] = %g", who,
                 i, pw->constants[i]);
  const size_t naux = pw->aux == FEMINT_AUX_CELL ? (size_t)pw->ncell_aux * pw->naux : 0;
  for (size_t i = 0; i < naux; i++)
    FEMINT_CHECK(isfinite(pw->aux_cell[i]), ctx, FEMINT_EINVAL,
                 "%s: aux_cell of cell %zu, component %zu = %g", who, i / pw->naux,
                 i % pw->naux, pw->aux_cell[i]);
  struct femint_form *f = calloc(1, sizeof *f);
  struct pointwise *q = calloc(1, sizeof *q);
  const char *name = pw->name ? pw->name : "pointwise";
  if (f && q) {
    q->name = strdup(name);
    q->source = pw->source ? strdup(pw->source) : NULL;
    q->aux_cell = naux ? malloc(naux * sizeof *q->aux_cell) : NULL;
  }
  if (!f || !q || !q->name || (pw->source && !q->source) || (naux && !q->aux_cell)) {
    if (q) free(q->name), free(q->source), free(q->aux_cell);
    free(q);
    free(f);
    return femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  }
  q->ncomp = pw->ncomp;
  q->aux = pw->aux;
  q->naux = pw->naux;
  q->ncell_aux = pw->aux == FEMINT_AUX_CELL ? pw->ncell_aux : 0;
  q->nconst = pw->nconst;
  if (naux) memcpy(q->aux_cell, pw->aux_cell, naux * sizeof *q->aux_cell);
  if (pw->nconst) memcpy(q->k, pw->constants, (size_t)pw->nconst * sizeof *q->k);
  q->f0 = pw->f0;
  q->f1 = pw->f1;
  memcpy(q->g, pw->g, sizeof q->g);
  *f = (struct femint_form){.ctx = ctx, .kind = FORM_POINTWISE, .family = FEMINT_H1,
                            .ne = pw->ncomp, .nvalues = 1, .pw = q};
  *form = f;
  return 0;
}

int femint_form_destroy(femint_form_t *form)
{
  if (!form || !*form) return 0;
  if ((*form)->pw) {
    free((*form)->pw->name);
    free((*form)->pw->source);
    free((*form)->pw->aux_cell);
    free((*form)->pw);
  }
  free((*form)->coef);
  free(*form);
  *form = NULL;
  return 0;
}

int femint_form_num_components(femint_form_t form) { return form ? form->ne : FEMINT_EINVAL; }

const double *form_coef(const struct femint_form *f, int cell)
{
  return f->coef + (size_t)(f->nvalues == 1 ? 0 : cell) * f->ncoef;
}

void form_expand(const struct femint_form *f, int cell, double *c)
{
  const int ne = f->ne;
  const double *k = form_coef(f, cell);
#define C(iE, jE, iD, jD) c[(((iE) * ne + (jE)) * 4 + (iD)) * 4 + (jD)]
  if (f->kind == FORM_GENERIC) {
    memcpy(c, k, (size_t)ne * ne * 16 * sizeof *c);
    return;
  }
  memset(c, 0, (size_t)ne * ne * 16 * sizeof *c);
  switch (f->kind) {
  case FORM_ELASTICITY: /* C_ijkl = lambda d_ij d_kl + mu (d_ik d_jl + d_il d_jk), c[i][k][j][l];
                          ne is the dimension */
    for (int i = 0; i < ne; i++)
      for (int j = 0; j < ne; j++)
        for (int kk = 0; kk < ne; kk++)
          for (int l = 0; l < ne; l++)
            C(i, kk, j + 1, l + 1) = k[0] * (i == j) * (kk == l) +
                                      k[1] * ((i == kk) * (j == l) + (i == l) * (j == kk));
    break;
  case FORM_LAPLACE:
    for (int e = 0; e < ne; e++)
      for (int d = 1; d <= 3; d++) C(e, e, d, d) = k[0];
    break;
  case FORM_MASS:
    for (int e = 0; e < ne; e++) C(e, e, 0, 0) = k[0];
    break;
  }
#undef C
}

const char *form_kind_name(int kind)
{
  static const char *names[] = {"generic",    "elasticity", "laplace", "mass",
                                "hcurl_mass", "curlcurl",   "pointwise"};
  return kind >= 0 && kind <= FORM_POINTWISE ? names[kind] : "unknown";
}

double form_flops_per_block(const struct femint_form *f)
{
  switch (f->kind) {
  case FORM_ELASTICITY: return f->ne == 3 ? 63 : 28; /* seed 000, section 5.1: 7 per entry */
  case FORM_LAPLACE: return 7.0 * f->ne;
  case FORM_MASS: return 3.0 * f->ne;
  case FORM_HCURL_MASS:
  case FORM_CURLCURL: return 2.0 * 9; /* u . A v with the 3 x 3 A of the point */
  default: return 3.0 * 16 * f->ne * f->ne;
  }
}

int form_symmetric(const struct femint_form *f)
{
  return f->kind != FORM_GENERIC && f->kind != FORM_POINTWISE;
}
