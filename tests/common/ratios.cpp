#include "ratios.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lapack_ref.hpp"

namespace ratios {
namespace {

using Mat = std::vector<double>;

// max() that keeps a NaN: a NaN anywhere must make a ratio fail, never vanish from it.
double worst_of(double a, double b) { return (b > a || std::isnan(b)) ? b : a; }

// c = op(a) * op(b), all n x n with leading dimension n (small test sizes only).
Mat product(const char *ta, const char *tb, int n, const double *a, int lda, const double *b,
            int ldb) {
  Mat c(static_cast<size_t>(n) * n);
  const double one = 1, zero = 0;
  dgemm_(ta, tb, &n, &n, &n, &one, a, &lda, b, &ldb, &zero, c.data(), &n, 1, 1);
  return c;
}

}  // namespace

double norm1(int64_t m, int64_t n, const double *a, int64_t lda) {
  double best = 0;
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t i = 0; i < m; ++i) s += std::fabs(a[i + j * lda]);
    best = worst_of(best, s);
  }
  return best;
}

double gtsv_residual(int64_t n, int64_t nrhs, const double *dl, const double *d, const double *du,
                     const double *b, int64_t ldb, const double *x, int64_t ldx) {
  double anorm = 0;
  for (int64_t j = 0; j < n; ++j)
    anorm = worst_of(anorm, std::fabs(d[j]) + (j > 0 ? std::fabs(du[j - 1]) : 0.0) +
                                (j < n - 1 ? std::fabs(dl[j]) : 0.0));
  double worst = 0;
  for (int64_t c = 0; c < nrhs; ++c) {
    const double *xc = x + c * ldx, *bc = b + c * ldb;
    double rn = 0, xn = 0;
    for (int64_t i = 0; i < n; ++i) {
      double ax = d[i] * xc[i];
      if (i > 0) ax += dl[i - 1] * xc[i - 1];
      if (i < n - 1) ax += du[i] * xc[i + 1];
      rn += std::fabs(bc[i] - ax);
      xn += std::fabs(xc[i]);
    }
    double r = (xn <= 0) ? (rn > 0 ? 1 / kEps : 0.0) : ((rn / anorm) / xn) / kEps;
    worst = worst_of(worst, r);
  }
  return worst;
}

double getrf_residual(int64_t m, int64_t n, const double *a, int64_t lda, const double *lu,
                      int64_t ldlu, const int *ipiv) {
  const int64_t k = std::min(m, n);
  // L U, then undo the row interchanges backwards to compare with A. Column by column as
  // axpys down L's columns (unit diagonal): contiguous, so the large GPU test shapes stay quick;
  // each entry still sums over l in increasing order.
  Mat prod(m * n, 0.0);
  for (int64_t j = 0; j < n; ++j) {
    double *p = &prod[j * m];
    for (int64_t l = 0; l <= std::min(j, k - 1); ++l) {
      const double u = lu[l + j * ldlu];
      const double *col = lu + l * ldlu;
      p[l] += u;
      for (int64_t i = l + 1; i < m; ++i) p[i] += col[i] * u;
    }
  }
  for (int64_t i = k - 1; i >= 0; --i) {
    int64_t p = ipiv[i] - 1;
    if (p != i)
      for (int64_t j = 0; j < n; ++j) std::swap(prod[i + j * m], prod[p + j * m]);
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) prod[i + j * m] -= a[i + j * lda];
  double anorm = norm1(m, n, a, lda);
  double rn = norm1(m, n, prod.data(), m);
  if (anorm <= 0) return rn > 0 ? 1 / kEps : 0.0;
  return ((rn / anorm) / static_cast<double>(std::max<int64_t>(1, n))) / kEps;
}

double getrf_probe_residual(int64_t m, int64_t n, const double *a, int64_t lda, const double *lu,
                            int64_t ldlu, const int *ipiv) {
  const int64_t k = std::min(m, n);
  std::vector<double> x(n), ax(m, 0.0), ux(k, 0.0), lux(m, 0.0);
  uint64_t state = 0x9e3779b97f4a7c15ull;  // a fixed uniform(-1, 1) vector
  for (double &v : x) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<double>(state >> 11) * 0x1p-52 - 1.0;
  }
  double anorm = 0, xnorm = 0;
  for (int64_t j = 0; j < n; ++j) {
    double col = 0;
    for (int64_t i = 0; i < m; ++i) {
      ax[i] += a[i + j * lda] * x[j];
      col += std::fabs(a[i + j * lda]);
    }
    anorm = std::max(anorm, col);
    xnorm += std::fabs(x[j]);
    for (int64_t i = 0; i <= std::min(j, k - 1); ++i) ux[i] += lu[i + j * ldlu] * x[j];
  }
  for (int64_t j = 0; j < k; ++j) {  // L (m x k, unit diagonal) times U x
    lux[j] += ux[j];
    const double *col = lu + j * ldlu;
    for (int64_t i = j + 1; i < m; ++i) lux[i] += col[i] * ux[j];
  }
  for (int64_t i = 0; i < k; ++i) {
    if (ipiv[i] < i + 1 || ipiv[i] > m) return std::numeric_limits<double>::infinity();
    std::swap(ax[i], ax[ipiv[i] - 1]);
  }
  double r = 0;
  for (int64_t i = 0; i < m; ++i) r += std::fabs(ax[i] - lux[i]);
  if (anorm <= 0 || xnorm <= 0) return r > 0 ? 1 / kEps : 0.0;
  return ((r / anorm) / xnorm) / (static_cast<double>(std::max<int64_t>(1, n)) * kEps);
}

double solve_residual(int64_t n, const double *a, int64_t lda, const double *x, const double *b) {
  double rn = 0, xn = 0;
  for (int64_t i = 0; i < n; ++i) {
    double s = b[i];
    for (int64_t j = 0; j < n; ++j) s -= a[i + j * lda] * x[j];
    rn += std::fabs(s);
    xn += std::fabs(x[i]);
  }
  double anorm = norm1(n, n, a, lda);
  if (anorm <= 0 || xn <= 0) return rn > 0 ? 1 / kEps : 0.0;
  return ((rn / anorm) / xn) / kEps;
}

double tridiagonal_similarity(int64_t n, const double *a, int64_t lda, const double *d,
                              const double *e, const double *q, int64_t ldq) {
  const int nn = static_cast<int>(n);
  Mat t(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    t[i + i * n] = d[i];
    if (i + 1 < n) t[i + 1 + i * n] = t[i + (i + 1) * n] = e[i];
  }
  Mat qt = product("N", "N", nn, q, static_cast<int>(ldq), t.data(), nn);
  Mat qtq = product("N", "T", nn, qt.data(), nn, q, static_cast<int>(ldq));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) qtq[i + j * n] -= a[i + j * lda];
  double anorm = norm1(n, n, a, lda);
  double rn = norm1(n, n, qtq.data(), n);
  if (anorm <= 0) return rn > 0 ? 1 / kEps : 0.0;
  // dsyt21's form, safe when ||A|| is near overflow or underflow.
  return (std::min(rn, static_cast<double>(n) * anorm) / anorm) / (static_cast<double>(n) * kUlp);
}

double orthogonality(int64_t n, int64_t k, const double *q, int64_t ldq) {
  double worst = 0;
  for (int64_t j = 0; j < k; ++j) {
    double col = 0;
    for (int64_t i = 0; i < k; ++i) {
      double s = 0;
      for (int64_t l = 0; l < n; ++l) s += q[l + i * ldq] * q[l + j * ldq];
      col += std::fabs((i == j ? 1.0 : 0.0) - s);
    }
    worst = worst_of(worst, col);
  }
  return worst / (static_cast<double>(std::max<int64_t>(1, n)) * kUlp);
}

double orthogonality_blas(int64_t n, int64_t k, const double *q, int64_t ldq) {
  if (n == 0 || k == 0) return 0;
  Mat g(size_t(k) * size_t(k));
  const int ni = static_cast<int>(n), ki = static_cast<int>(k), lq = static_cast<int>(ldq);
  const double one = 1, zero = 0;
  dgemm_("T", "N", &ki, &ki, &ni, &one, q, &lq, q, &lq, &zero, g.data(), &ki, 1, 1);
  double worst = 0;
  for (int64_t j = 0; j < k; ++j) {
    double col = 0;
    for (int64_t i = 0; i < k; ++i) col += std::fabs(g[i + j * k] - (i == j ? 1.0 : 0.0));
    worst = worst_of(worst, col);
  }
  return worst / (static_cast<double>(n) * kUlp);
}

double tridiagonal_residual(int64_t n, const double *d, const double *e, int64_t k,
                            const double *w, const double *z, int64_t ldz) {
  double tn = 0, worst = 0;
  for (int64_t i = 0; i < n; ++i)
    tn = std::max(tn, std::fabs(d[i]) + (i > 0 ? std::fabs(e[i - 1]) : 0) + (i + 1 < n ? std::fabs(e[i]) : 0));
  for (int64_t j = 0; j < k; ++j) {
    const double *x = z + j * ldz;
    double col = 0;
    for (int64_t i = 0; i < n; ++i) {
      double t = (d[i] - w[j]) * x[i];
      if (i > 0) t += e[i - 1] * x[i - 1];
      if (i + 1 < n) t += e[i] * x[i + 1];
      col += std::fabs(t);
    }
    worst = worst_of(worst, col);
  }
  if (worst == 0) return 0;
  return worst / (static_cast<double>(std::max<int64_t>(1, n)) * (tn > 0 ? tn : 1) * kUlp);
}

double eigenvalue_distance(const std::vector<double> &x, const std::vector<double> &y, int64_t n,
                           double tnorm) {
  if (x.size() != y.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = worst_of(worst, std::fabs(x[i] - y[i]));
  if (worst == 0) return 0;  // also exact when tnorm is 0
  return worst / (static_cast<double>(std::max<int64_t>(1, n)) * tnorm * kUlp);
}

double gap_point(const std::vector<double> &ref, int k, double tol) {
  const int n = static_cast<int>(ref.size());
  auto usable = [&](int j) { return j == 0 || j == n || ref[j] - ref[j - 1] > 2 * tol; };
  for (int dist = 0; dist <= n; ++dist)
    for (int j : {k - dist, k + dist}) {
      if (j < 0 || j > n || !usable(j)) continue;
      if (j == 0) return ref.front() - 4 * tol;
      if (j == n) return ref.back() + 4 * tol;
      return 0.5 * (ref[j - 1] + ref[j]);
    }
  return ref.front() - 4 * tol;  // not reached: j = 0 is always usable
}

std::vector<double> tridiagonal_eigenvalues(std::vector<double> d, std::vector<double> e) {
  int n = static_cast<int>(d.size()), info = 0;
  e.resize(std::max<size_t>(d.size(), 1));
  dsterf_(&n, d.data(), e.data(), &info);
  return d;
}

double max_abs(const std::vector<double> &v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

}  // namespace ratios
