// The matrix zoo of DESIGN.md, shared by every test: deterministic generators (fixed seeds) for
// tridiagonal systems, symmetric tridiagonal matrices, dense general and symmetric matrices and
// symmetric Toeplitz matrices, plus the size lists the tests sweep.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace zoo {

using Vec = std::vector<double>;

// Sizes: 1, 2, 3, small odd/even, primes, powers of two and their neighbours.
std::vector<int> tridiagonal_sizes();  // up to a few thousand
std::vector<int> dense_sizes();        // up to ~130 (dense O(n^3) references)

// General tridiagonal system A = tridiag(dl, d, du).
struct Tridiagonal {
  std::string name;
  Vec dl, d, du;
  bool dominant;  // strictly diagonally dominant by rows and columns
};
// kinds: "dominant", "spd121", "nondominant", "helmholtz", "singular", "nearsingular", "tiny",
// "huge"
std::vector<std::string> tridiagonal_kinds();
Tridiagonal tridiagonal(const std::string &kind, int n, uint64_t seed = 1);

// Symmetric tridiagonal T = (d, e) for eigenvalue tests.
struct SymTridiagonal {
  std::string name;
  Vec d, e;
};
// kinds: "random", "121", "wilkinson", "glued_wilkinson", "clustered", "repeated", "graded",
// "zero_offdiag", "tiny" (1e-150), "underflow" (1e-290), "huge"
std::vector<std::string> symtridiagonal_kinds();
SymTridiagonal symtridiagonal(const std::string &kind, int n, uint64_t seed = 1);

// A tridiagonal where DSTEIN's Gram-Schmidt does not converge: "clustered_ulp" at n = 18 (seed 23,
// DSYTRD 'U' by OpenBLAS 0.3.21), 17 eigenvalues within 5e-16 of 0 filling the block beside one
// near 1 (the vectors then come from the block's divide and conquer: stein_phases::whole_block).
SymTridiagonal ulp_cluster_n18();

// Dense m x n general matrix (column-major, leading dimension lda >= m).
// kinds: "random", "dominant", "wilkinson_growth", "zero_column", "rank_deficient", "tiny", "huge"
std::vector<std::string> general_kinds();
Vec general(const std::string &kind, int m, int n, int lda, uint64_t seed = 1);

// Dense n x n symmetric matrix, full storage (both triangles set), leading dimension lda.
// kinds: "random", "graded", "clustered", "repeated", "zero_blocks", "tiny", "huge"; also (not in
// the list) "kms05", "kms01", "kms09": Kac-Murdock-Szego rho^|i-j| with rho = 0.5, 0.1, 0.9, and
// "clustered_ulp": 1, then +-ulp (Reference LAPACK's DDRVST type 10, where LAPACK's own DSTEIN
// returns vectors up to 1580 n ulp from orthogonal at some orders: used where the library's
// own method runs)
std::vector<std::string> symmetric_kinds();
Vec symmetric(const std::string &kind, int n, int lda, uint64_t seed = 1);

// First column t of a symmetric Toeplitz matrix.
// kinds: "random", "kms", "tridiagonal", "circulant" (symmetric; eigenvalues repeated across the
// two halves), "clustered", "identity", "prolate" (clusters at 0 and 1), "tiny", "huge"
std::vector<std::string> toeplitz_kinds();
Vec toeplitz(const std::string &kind, int n, uint64_t seed = 1);
Vec toeplitz_dense(const Vec &t);  // the n x n matrix, leading dimension n
// The eigenvalues of a symmetric circulant t (t(k) = t(n-k)), sum_k t(k) cos(2 pi j k / n) for
// j = 0 .. n-1, ascending (the angles reduced exactly: a table of cos(2 pi m / n)).
Vec circulant_spectrum(const Vec &t);

// A random orthogonal n x n matrix (leading dimension n).
Vec orthogonal(int n, uint64_t seed);
Vec uniform(int64_t count, double lo, double hi, uint64_t seed);

}  // namespace zoo
