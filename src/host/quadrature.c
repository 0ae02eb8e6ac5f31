/* Quadrature rules: Gauss-Legendre and Gauss-Jacobi on [-1,1], the conical tetrahedral rule, and
 * Dunavant's symmetric triangle rules, whose published orbit parameters are refined to full
 * double precision on the moment equations (the refinement also serves quadrature_tet.c). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "refel_tet.h"

#define GL_MAX 32

/* P_n(z) and its derivative by the three-term recurrence. */
static void legendre(int n, double z, double *p, double *dp)
{
  double p0 = 1, p1 = z;
  for (int k = 1; k < n; k++) {
    double p2 = ((2 * k + 1) * z * p1 - k * p0) / (k + 1);
    p0 = p1;
    p1 = p2;
  }
  /* p1 = P_n(z), p0 = P_{n-1}(z) and P_n' = n (z P_n - P_{n-1}) / (z^2 - 1) inside (-1, 1). */
  *p = p1;
  *dp = n * (z * p1 - p0) / (z * z - 1);
}

int quad_gauss_legendre(int n, double *x, double *w)
{
  FEMINT_CHECK(n >= 1 && n <= GL_MAX, NULL, FEMINT_EORDER,
               "Gauss-Legendre rule of %d points requested (1..%d supported)", n, GL_MAX);
  for (int i = 0; i < (n + 1) / 2; i++) {
    /* Roots in descending order from the classical first guess, refined by Newton's method
     * until the step is at rounding level, then once more. */
    double z = cos(M_PI * (i + 0.75) / (n + 0.5)), p, dp;
    int extra = 0;
    for (int it = 0; it < 100 && extra < 2; it++) {
      legendre(n, z, &p, &dp);
      double dz = p / dp;
      z -= dz;
      if (fabs(dz) < 1e-15) extra++;
    }
    if (2 * i + 1 == n) z = 0;
    legendre(n, z, &p, &dp);
    double wi = 2 / ((1 - z * z) * dp * dp);
    x[i] = -z;
    x[n - 1 - i] = z;
    w[i] = wi;
    w[n - 1 - i] = wi;
  }
  return 0;
}

/* Dunavant's rules (IJNME 21, 1985) as orbits in barycentric coordinates, with the published
 * values (weights normalized to sum 1) as starting guesses for the refinement: a centroid orbit
 * weight (0 when absent), S21 orbits (w, a) at (a, a, 1 - 2a), S111 orbits (w, a, b) at the six
 * permutations of (a, b, 1 - a - b). A table row reads {degree, points, has centroid, centroid
 * weight, S21 orbits, S111 orbits, {S21 (w, a)}, {S111 (w, a, b)}}. */
#define TRI_NRULE 7
#define TRI_MAX_S21 6
#define TRI_MAX_S111 4
#define TRI_MAX_UNKNOWN (1 + 2 * TRI_MAX_S21 + 3 * TRI_MAX_S111)
#define TRI_MAX_DEGREE 14

struct tri_table {
  int degree, npts;
  int has_centroid;
  double centroid;
  int n21, n111;
  double s21[TRI_MAX_S21][2];
  double s111[TRI_MAX_S111][3];
};

static const struct tri_table tri_tables[TRI_NRULE] = {
  {2, 3, 0, 0, 1, 0, {{1.0 / 3, 1.0 / 6}}, {{0}}},
  {4, 6, 0, 0, 2, 0,
   {{0.223381589678011, 0.445948490915965}, {0.109951743655322, 0.091576213509771}},
   {{0}}},
  {6, 12, 0, 0, 2, 1,
   {{0.116786275726379, 0.249286745170910}, {0.050844906370207, 0.063089014491502}},
   {{0.082851075618374, 0.053145049844817, 0.310352451033784}}},
  {8, 16, 1, 0.144315607677787, 3, 1,
   {{0.095091634267285, 0.459292588292723},
    {0.103217370534718, 0.170569307751760},
    {0.032458497623198, 0.050547228317031}},
   {{0.027230314174435, 0.008394777409958, 0.263112829634638}}},
  {10, 25, 1, 0.090817990382754, 2, 3,
   {{0.036725957756467, 0.485577633383657}, {0.045321059435528, 0.109481575485037}},
   {{0.072757916845420, 0.141707219414880, 0.307939838764121},
    {0.028327242531057, 0.025003534762686, 0.246672560639903},
    {0.009421666963733, 0.009540815400299, 0.066803251012200}}},
  {12, 33, 0, 0, 5, 3,
   {{0.025731066440455, 0.488217389773805},
    {0.043692544538038, 0.439724392294460},
    {0.062858224217885, 0.271210385012116},
    {0.034796112930709, 0.127576145541586},
    {0.006166261051559, 0.021317350453210}},
   {{0.040371557766381, 0.115343494534698, 0.275713269685514},
    {0.022356773202303, 0.022838332222257, 0.281325580989940},
    {0.017316231108659, 0.025734050548330, 0.116251915907597}}},
  {14, 42, 0, 0, 6, 4,
   {{0.021883581369429, 0.488963910362179},
    {0.032788353544125, 0.417644719340454},
    {0.051774104507292, 0.273477528308839},
    {0.042162588736993, 0.177205532412543},
    {0.014433699669777, 0.061799883090873},
    {0.004923403602400, 0.019390961248701}},
   {{0.024665753212564, 0.057124757403648, 0.172266687821356},
    {0.038571510787061, 0.092916249356972, 0.336861459796345},
    {0.014436308113534, 0.014646950055654, 0.298372882136258},
    {0.005010228838501, 0.001268330932872, 0.118974497696957}}},
};

/* Offsets of each rule in the static arrays; 3 + 6 + 12 + 16 + 25 + 33 + 42 points. */
#define TRI_TOTAL 137
static int tri_offset[TRI_NRULE + 1];
static double tri_xy[2 * TRI_TOTAL];
static double tri_w[TRI_TOTAL];
static double tri_moment_error[TRI_NRULE];
static int tri_status[TRI_NRULE]; /* 0 when the refined rule passed its checks */
static pthread_once_t tri_once = PTHREAD_ONCE_INIT;

/* A point of an orbit with the derivatives of (x, y) = (l1, l2) with respect to the orbit's
 * position parameters a and b. */
struct tri_point {
  int col_w, col_a, col_b; /* unknowns of its weight and parameters, -1 when absent */
  double x, y, dxa, dya, dxb, dyb;
};

/* Expand the orbits of unknown vector u into points; returns the number of points. Each
 * barycentric triple (l0, l1, l2) gives x = l1, y = l2. */
static int tri_expand(const struct tri_table *t, const double *u, struct tri_point *pt)
{
  int np = 0, col = 0;
  if (t->has_centroid) {
    pt[np++] = (struct tri_point){col, -1, -1, 1.0 / 3, 1.0 / 3, 0, 0, 0, 0};
    col++;
  }
  for (int o = 0; o < t->n21; o++, col += 2) {
    double a = u[col + 1], c = 1 - 2 * a;
    /* (a, a, c), (a, c, a), (c, a, a): dc/da = -2. */
    pt[np++] = (struct tri_point){col, col + 1, -1, a, c, 1, -2, 0, 0};
    pt[np++] = (struct tri_point){col, col + 1, -1, c, a, -2, 1, 0, 0};
    pt[np++] = (struct tri_point){col, col + 1, -1, a, a, 1, 1, 0, 0};
  }
  for (int o = 0; o < t->n111; o++, col += 3) {
    double v[3] = {u[col + 1], u[col + 2], 1 - u[col + 1] - u[col + 2]};
    /* d(a, b, c)/da = (1, 0, -1), d/db = (0, 1, -1). */
    static const double da[3] = {1, 0, -1}, db[3] = {0, 1, -1};
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int p = 0; p < 6; p++) {
      int i1 = perm[p][1], i2 = perm[p][2];
      pt[np++] = (struct tri_point){col,     col + 1, col + 2, v[i1], v[i2],
                                    da[i1],  da[i2],  db[i1],  db[i2]};
    }
  }
  return np;
}

/* Exact integral of x^i y^j over the reference triangle: i! j! / (i + j + 2)!. */
static double tri_exact(int i, int j)
{
  double r = 1;
  for (int k = 1; k <= j; k++) r *= (double)k / (i + k);
  return r / ((i + j + 1.0) * (i + j + 2.0));
}

/* Relative moment residuals r[m] = (Q(x^i y^j) - I) / I for all i + j <= degree (weights sum
 * to 1/2), optionally with their Jacobian J[m * nu + col]; returns the number of moments. */
static int tri_residual(const void *rule, const double *u, int nu, double *r, double *J)
{
  const struct tri_table *t = rule;
  struct tri_point pt[TRI_TOTAL];
  int np = tri_expand(t, u, pt), d = t->degree, m = 0;
  double px[TRI_TOTAL][TRI_MAX_DEGREE + 1], py[TRI_TOTAL][TRI_MAX_DEGREE + 1];
  for (int q = 0; q < np; q++) {
    px[q][0] = py[q][0] = 1;
    for (int k = 1; k <= d; k++) {
      px[q][k] = px[q][k - 1] * pt[q].x;
      py[q][k] = py[q][k - 1] * pt[q].y;
    }
  }
  for (int i = 0; i <= d; i++) {
    for (int j = 0; i + j <= d; j++, m++) {
      double exact = tri_exact(i, j);
      long double s = 0;
      if (J) memset(J + (size_t)m * nu, 0, sizeof(double) * nu);
      for (int q = 0; q < np; q++) {
        double w = u[pt[q].col_w], mono = px[q][i] * py[q][j];
        s += (long double)w * mono;
        if (!J) continue;
        double gx = i ? i * px[q][i - 1] * py[q][j] : 0;
        double gy = j ? j * px[q][i] * py[q][j - 1] : 0;
        double *row = J + (size_t)m * nu;
        row[pt[q].col_w] += mono / exact;
        if (pt[q].col_a >= 0) row[pt[q].col_a] += w * (gx * pt[q].dxa + gy * pt[q].dya) / exact;
        if (pt[q].col_b >= 0) row[pt[q].col_b] += w * (gx * pt[q].dxb + gy * pt[q].dyb) / exact;
      }
      r[m] = (double)((s - exact) / exact);
    }
  }
  return m;
}

/* Least-squares solution of min |A s - b| by Householder QR (A is m x n, row-major, m >= n,
 * overwritten); returns -1 when A is numerically rank deficient. */
static int lsq_solve(int m, int n, double *A, double *b, double *s)
{
  double diag[QUAD_MAX_UNKNOWN], amax = 0;
  for (int k = 0; k < m * n; k++) amax = fmax(amax, fabs(A[k]));
  for (int k = 0; k < n; k++) {
    double nrm = 0;
    for (int i = k; i < m; i++) nrm = hypot(nrm, A[i * n + k]);
    if (nrm <= 1e-14 * amax) return -1;
    double alpha = A[k * n + k] > 0 ? -nrm : nrm;
    /* v = a_k - alpha e_k, stored in place; H = I - 2 v v^T / (v^T v). */
    A[k * n + k] -= alpha;
    double vtv = 0;
    for (int i = k; i < m; i++) vtv += A[i * n + k] * A[i * n + k];
    for (int j = k + 1; j < n; j++) {
      double dot = 0;
      for (int i = k; i < m; i++) dot += A[i * n + k] * A[i * n + j];
      double f = 2 * dot / vtv;
      for (int i = k; i < m; i++) A[i * n + j] -= f * A[i * n + k];
    }
    double dot = 0;
    for (int i = k; i < m; i++) dot += A[i * n + k] * b[i];
    double f = 2 * dot / vtv;
    for (int i = k; i < m; i++) b[i] -= f * A[i * n + k];
    diag[k] = alpha;
  }
  for (int k = n - 1; k >= 0; k--) {
    double v = b[k];
    for (int j = k + 1; j < n; j++) v -= A[k * n + j] * s[j];
    s[k] = v / diag[k];
  }
  return 0;
}

static double max_abs(int n, const double *v)
{
  double r = 0;
  for (int i = 0; i < n; i++) r = fmax(r, fabs(v[i]));
  return r;
}

/* One Gauss-Newton step s for J s = -r (J is m x nu, overwritten; r is negated); where the moment
 * equations leave a combination of the parameters free (J rank deficient), the step of the
 * slightly damped problem [J; mu I] s = [-r; 0] instead, close to the least-norm step. */
static int gauss_newton_step(int m, int nu, double *J, double *r, double *s, double *work)
{
  for (int k = 0; k < m; k++) r[k] = -r[k];
  /* work holds copies of J and -r, (m + nu) rows, for the damped retry. */
  double *A = work, *b = work + (size_t)(m + nu) * nu, amax = max_abs(m * nu, J);
  memcpy(A, J, sizeof(double) * m * nu);
  memcpy(b, r, sizeof(double) * m);
  if (!lsq_solve(m, nu, J, r, s)) return 0;
  memset(A + (size_t)m * nu, 0, sizeof(double) * nu * nu);
  memset(b + m, 0, sizeof(double) * nu);
  for (int k = 0; k < nu; k++) A[(size_t)(m + k) * nu + k] = 1e-10 * amax;
  return lsq_solve(m + nu, nu, A, b, s);
}

double quad_refine_orbits(int nu, int m, quad_residual_fn residual, const void *rule, double *u)
{
  if (nu > QUAD_MAX_UNKNOWN) return -1;
  double *r = malloc(sizeof(double) * m), *J = malloc(sizeof(double) * m * nu);
  double *work = malloc(sizeof(double) * (m + nu) * (nu + 1));
  double s[QUAD_MAX_UNKNOWN], best[QUAD_MAX_UNKNOWN];
  if (!r || !J || !work) {
    free(r);
    free(J);
    free(work);
    return -1;
  }
  residual(rule, u, nu, r, J);
  double rbest = max_abs(m, r);
  memcpy(best, u, sizeof(double) * nu);
  /* Stop once exact to a few units of rounding: where the equations leave parameters free,
   * further steps would only wander along the solutions. */
  for (int it = 0; it < 50 && rbest > 1e-15; it++) {
    if (gauss_newton_step(m, nu, J, r, s, work)) break;
    for (int k = 0; k < nu; k++) u[k] += s[k];
    residual(rule, u, nu, r, J);
    double rn = max_abs(m, r);
    if (rn < rbest) {
      rbest = rn;
      memcpy(best, u, sizeof(double) * nu);
    } else if (max_abs(nu, s) < 1e-14) {
      /* Converged to rounding: further steps only move the last bits around. */
      break;
    }
  }
  memcpy(u, best, sizeof(double) * nu);
  free(r);
  free(J);
  free(work);
  return rbest;
}

/* Refine rule t by Gauss-Newton on the relative moment residuals, expand it into xy and w, and
 * check it; returns 0 when every moment is exact to 1e-14 with points inside and w > 0. */
static int tri_refine(const struct tri_table *t, double *xy, double *w, double *moment_error)
{
  double u[TRI_MAX_UNKNOWN];
  int nu = 0;
  /* The published weights sum to 1; the reference triangle has area 1/2. */
  if (t->has_centroid) u[nu++] = t->centroid / 2;
  for (int o = 0; o < t->n21; o++) {
    u[nu++] = t->s21[o][0] / 2;
    u[nu++] = t->s21[o][1];
  }
  for (int o = 0; o < t->n111; o++) {
    u[nu++] = t->s111[o][0] / 2;
    u[nu++] = t->s111[o][1];
    u[nu++] = t->s111[o][2];
  }
  if (quad_refine_orbits(nu, (t->degree + 1) * (t->degree + 2) / 2, tri_residual, t, u) < 0)
    return -1;

  struct tri_point pt[TRI_TOTAL];
  int np = tri_expand(t, u, pt), ok = np == t->npts;
  for (int q = 0; q < np; q++) {
    xy[2 * q] = pt[q].x;
    xy[2 * q + 1] = pt[q].y;
    w[q] = u[pt[q].col_w];
    ok = ok && w[q] > 0 && pt[q].x > 0 && pt[q].y > 0 && pt[q].x + pt[q].y < 1;
  }
  /* Check the expanded rule itself, summed in double as its users sum it. */
  double err = 0;
  for (int i = 0; i <= t->degree; i++) {
    for (int j = 0; i + j <= t->degree; j++) {
      double sum = 0;
      for (int q = 0; q < np; q++) sum += w[q] * pow(xy[2 * q], i) * pow(xy[2 * q + 1], j);
      err = fmax(err, fabs(sum - tri_exact(i, j)) / tri_exact(i, j));
    }
  }
  *moment_error = err;
  return ok && err < 1e-14 ? 0 : -1;
}

static void tri_init(void)
{
  tri_offset[0] = 0;
  for (int r = 0; r < TRI_NRULE; r++) {
    int off = tri_offset[r];
    tri_offset[r + 1] = off + tri_tables[r].npts;
    tri_status[r] = tri_refine(&tri_tables[r], tri_xy + 2 * off, tri_w + off, &tri_moment_error[r]);
  }
}

int quad_triangle(int degree, int *npts, const double **xy, const double **w)
{
  if (degree < 2) degree = 2;
  if (degree % 2) degree++;
  FEMINT_CHECK(degree <= TRI_MAX_DEGREE, NULL, FEMINT_EORDER,
               "triangle rule of degree %d requested (at most %d supported)", degree,
               TRI_MAX_DEGREE);
  pthread_once(&tri_once, tri_init);
  int r = degree / 2 - 1;
  FEMINT_CHECK(tri_status[r] == 0, NULL, FEMINT_EORDER,
               "triangle rule of degree %d failed its check after refinement (moment error %g)",
               degree, tri_moment_error[r]);
  *npts = tri_tables[r].npts;
  *xy = tri_xy + 2 * tri_offset[r];
  *w = tri_w + tri_offset[r];
  return 0;
}

/* Eigenvalues d[n] and first components z[n] of the eigenvectors of the symmetric tridiagonal
 * matrix with diagonal d and off-diagonal e[1..n-1], by cyclic Jacobi rotations on the dense
 * matrix (n <= GL_MAX: small, and accurate to rounding). */
static void tridiag_eigen(int n, double *d, const double *e, double *z)
{
  double A[GL_MAX * GL_MAX], V[GL_MAX * GL_MAX];
  memset(A, 0, sizeof(double) * n * n);
  for (int i = 0; i < n; i++) {
    A[i * n + i] = d[i];
    if (i) A[i * n + i - 1] = A[(i - 1) * n + i] = e[i];
    for (int j = 0; j < n; j++) V[i * n + j] = i == j;
  }
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0, diag = 0;
    for (int i = 0; i < n; i++) {
      diag += A[i * n + i] * A[i * n + i];
      for (int j = i + 1; j < n; j++) off += A[i * n + j] * A[i * n + j];
    }
    if (off <= 1e-34 * diag) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        if (A[p * n + q] == 0) continue;
        const double th = (A[q * n + q] - A[p * n + p]) / (2 * A[p * n + q]);
        const double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
        const double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; k++) {
          const double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq;
          A[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) {
          const double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk;
          A[q * n + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < n; k++) {
          const double vkp = V[k * n + p], vkq = V[k * n + q];
          V[k * n + p] = c * vkp - s * vkq;
          V[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  for (int i = 0; i < n; i++) {
    d[i] = A[i * n + i];
    z[i] = V[i];
  }
}

int quad_gauss_jacobi(int n, int alpha, double *x, double *w)
{
  FEMINT_CHECK(n >= 1 && n <= GL_MAX, NULL, FEMINT_EORDER,
               "Gauss-Jacobi rule of %d points requested (1..%d supported)", n, GL_MAX);
  FEMINT_CHECK(alpha >= 0 && alpha <= 2, NULL, FEMINT_EINVAL,
               "Gauss-Jacobi rule for the weight (1-x)^%d requested (0, 1 or 2 supported)", alpha);
  /* Golub-Welsch: the nodes are the eigenvalues of the Jacobi matrix of the monic Jacobi
   * polynomials (alpha, beta = 0); the weights mu0 z_i^2, mu0 = int (1-x)^alpha = 2^(a+1)/(a+1). */
  const double a = alpha;
  double d[GL_MAX], e[GL_MAX], z[GL_MAX];
  for (int k = 0; k < n; k++) {
    const double s = 2 * k + a;
    d[k] = k == 0 ? -a / (a + 2) : -a * a / (s * (s + 2));
    if (k > 0)
      e[k] = sqrt(4.0 * k * (k + a) * k * (k + a) / (s * s * (s + 1) * (s - 1)));
  }
  tridiag_eigen(n, d, e, z);
  const double mu0 = pow(2, a + 1) / (a + 1);
  /* Sort ascending (selection sort: n is small). */
  for (int i = 0; i < n; i++) {
    int m = i;
    for (int j = i + 1; j < n; j++)
      if (d[j] < d[m]) m = j;
    double t = d[i];
    d[i] = d[m];
    d[m] = t;
    t = z[i];
    z[i] = z[m];
    z[m] = t;
    x[i] = d[i];
    w[i] = mu0 * z[i] * z[i];
  }
  return 0;
}

int quad_tet(int n, double *xyz, double *w)
{
  FEMINT_CHECK(n >= 1 && n <= 16, NULL, FEMINT_EORDER,
               "tetrahedral rule of %d points per direction requested (1..16 supported)", n);
  double xu[GL_MAX], wu[GL_MAX], xv[GL_MAX], wv[GL_MAX], xw[GL_MAX], ww[GL_MAX];
  FEMINT_CALL(quad_gauss_jacobi(n, 0, xu, wu));
  FEMINT_CALL(quad_gauss_jacobi(n, 1, xv, wv));
  FEMINT_CALL(quad_gauss_jacobi(n, 2, xw, ww));
  /* int_0^1 g(s) (1-s)^a ds = 2^-(a+1) int_-1^1 g((1+t)/2) (1-t)^a dt. */
  int q = 0;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++, q++) {
        const double u = (1 + xu[i]) / 2, v = (1 + xv[j]) / 2, s = (1 + xw[k]) / 2;
        xyz[3 * q] = u * (1 - v) * (1 - s);
        xyz[3 * q + 1] = v * (1 - s);
        xyz[3 * q + 2] = s;
        w[q] = wu[i] / 2 * wv[j] / 4 * ww[k] / 8;
      }
  return 0;
}
