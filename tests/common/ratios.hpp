// LAPACK's test ratios (the dgtt02 / dget01 / dsyt21 / dort01 family), threshold 30. A NaN in any
// term makes the ratio NaN, which fails every threshold comparison.
#pragma once
#include <cstdint>
#include <vector>

namespace ratios {

// LAPACK's DLAMCH('Epsilon') = 2^-53, which its linear-system ratios (dgtt02, dget01, dget02)
// divide by, and DLAMCH('Precision') = 2^-52 (ULP), which its eigenvalue ratios (dsyt21, dort01)
// divide by.
constexpr double kEps = 0x1p-53;
constexpr double kUlp = 0x1p-52;
constexpr double kThreshold = 30.0;

// ||A||_1 of an m x n matrix.
double norm1(int64_t m, int64_t n, const double *a, int64_t lda);

// dgtt02: max over columns of ||b - A x||_1 / (||A||_1 ||x||_1 eps).
double gtsv_residual(int64_t n, int64_t nrhs, const double *dl, const double *d, const double *du,
                     const double *b, int64_t ldb, const double *x, int64_t ldx);

// dget01: ||P A - L U||_1 / (n ||A||_1 eps) for the factors (lu, ipiv) of the m x n matrix a.
double getrf_residual(int64_t m, int64_t n, const double *a, int64_t lda, const double *lu,
                      int64_t ldlu, const int *ipiv);

// dget01 probed by one vector: ||P A x - L (U x)||_1 / (n ||A||_1 ||x||_1 eps) for a random x,
// at most dget01's ratio and O(m n) instead of O(m n^2) (for the tall shapes of millions of
// rows; an invalid IPIV gives infinity).
double getrf_probe_residual(int64_t m, int64_t n, const double *a, int64_t lda, const double *lu,
                            int64_t ldlu, const int *ipiv);

// dget02: ||b - A x||_1 / (||A||_1 ||x||_1 eps) for one right-hand side of a square system.
double solve_residual(int64_t n, const double *a, int64_t lda, const double *x, const double *b);

// dsyt21 (first ratio): ||A - Q T Q^T||_1 / (n ||A||_1 ulp), a symmetric in full storage.
double tridiagonal_similarity(int64_t n, const double *a, int64_t lda, const double *d,
                              const double *e, const double *q, int64_t ldq);

// dort01: ||I - Q^T Q||_1 / (n ulp) for the n x k matrix q.
double orthogonality(int64_t n, int64_t k, const double *q, int64_t ldq);

// The same by one BLAS product Q^T Q (for the large sizes where the loop is slow).
double orthogonality_blas(int64_t n, int64_t k, const double *q, int64_t ldq);

// max_j ||T z_j - w_j z_j||_1 / (n ||T||_1 ulp) for k vectors z (ldz) of T = tridiag(e, d, e)
// (dstt21's residual for eigenpairs of a tridiagonal).
double tridiagonal_residual(int64_t n, const double *d, const double *e, int64_t k,
                            const double *w, const double *z, int64_t ldz);

// max |x_i - y_i| / (n ||T|| ulp) over two equally long eigenvalue lists of an order-n matrix
// (infinite when the lengths differ).
double eigenvalue_distance(const std::vector<double> &x, const std::vector<double> &y, int64_t n,
                           double tnorm);

// A point between ref[k-1] and ref[k] of an ascending spectrum (k = 0: below it, k = n: above it),
// moved to the nearest gap wider than 2 tol, so that it is farther than tol from every eigenvalue
// and any correct implementation counts the same eigenvalues below it (for RANGE 'V' tests).
// The eigenvalues of the symmetric tridiagonal (d, e), ascending (DSTERF): for comparing the T of
// two reductions, which differ between methods while their eigenvalues do not.
std::vector<double> tridiagonal_eigenvalues(std::vector<double> d, std::vector<double> e);

// max |v_i| (0 for an empty v).
double max_abs(const std::vector<double> &v);

double gap_point(const std::vector<double> &ref, int k, double tol);

}  // namespace ratios
