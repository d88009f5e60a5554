// The routines' CPU paths (LAPACK through lapack::table()), beside their GPU twins: each takes
// arguments already checked and returns the routine's INFO, or a GPUEIG_ERR_* code for a library
// error (no LAPACK, no memory, an inner failure). Used by the public entry points and by the fake
// device (src/fake_device.cpp).
#pragma once
#include <cstdint>

#include "gpu_backend.hpp"

namespace gpueig::cpu {

// DGTSV on copies of DL, D and DU (they are left unchanged); B is overwritten by X.
int gtsv(int n, int nrhs, const double *dl, const double *d, const double *du, double *b, int ldb);

// DSYTRD, and DORGTR (vect 'V') or Q := Q_in * Q (vect 'U'); A is overwritten.
int sytrd(char vect, char uplo, int n, double *a, int lda, double *d, double *e, double *q,
          int ldq);

// DGETRF.
int getrf(int m, int n, double *a, int lda, int *ipiv);

// DGETRS (trans 'N', 'T' or 'C'); B is overwritten by X.
int getrs(char trans, int n, int nrhs, const double *a, int lda, const int *ipiv, double *b,
          int ldb);

// DGESV.
int gesv(int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb);

// DSYEVD (workspace allocated here); A is overwritten (by the eigenvectors for jobz 'V').
int syevd(char jobz, char uplo, int n, double *a, int lda, double *w);

// DSYEVX (workspace allocated here); A is destroyed.
int syevx(char jobz, char range, char uplo, int n, double *a, int lda, double vl, double vu, int il,
          int iu, double abstol, int *m, double *w, double *z, int ldz, int *ifail);

// C := A * B by the BLAS of the CPU backend (column-major, m x k times k x n): the products of
// the divide-and-conquer phases when they run on the host (stedc_phases::Gemm).
void gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
          int64_t ldb, double *c, int64_t ldc);

// DSTEIN (workspace allocated here).
int stein(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
          const int *isplit, double *z, int ldz, int *ifail);

// DSTEBZ.
int stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
          const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
          int *isplit);

// The tridiagonal forms of the two half blocks of the symmetric Toeplitz matrix t (finite, n
// entries), each formed and reduced by DSYTRD in turn.
int toeplitz_tridiagonals(int n, const double *t, gpu::ToeplitzHalves out[2]);

}  // namespace gpueig::cpu
