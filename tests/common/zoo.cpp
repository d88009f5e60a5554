#include "zoo.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <stdexcept>

namespace zoo {
namespace {

constexpr double kTiny = 1e-290;   // near underflow, with room for sums of a few terms
constexpr double kSmall = 1e-150;  // squares (e^2 in Sturm counts) still normal: bisection runs
constexpr double kHuge = 1e150;    // squares (e^2 in Sturm counts, norms) stay finite
constexpr double kHugeLU = 1e300;  // dense LU/sytrd only scale, never square

std::mt19937_64 rng(uint64_t seed) { return std::mt19937_64(0x9e3779b97f4a7c15ULL ^ seed); }

Vec scaled(Vec v, double s) {
  for (double &x : v) x *= s;
  return v;
}

Tridiagonal make_dominant(int n, uint64_t seed) {
  Tridiagonal t{"dominant", uniform(n > 1 ? n - 1 : 0, -1, 1, seed), {},
                uniform(n > 1 ? n - 1 : 0, -1, 1, seed + 7), true};
  auto g = rng(seed + 13);
  std::uniform_real_distribution<double> u(2.5, 3.5);
  t.d.resize(n);
  for (int i = 0; i < n; ++i) t.d[i] = (g() & 1) ? u(g) : -u(g);  // |d| > 2 >= off-diagonal sums
  return t;
}

// Q diag(lambda) Q^T, full storage.
Vec with_spectrum(const Vec &lambda, int lda, uint64_t seed) {
  const int n = static_cast<int>(lambda.size());
  Vec q = orthogonal(n, seed), a(static_cast<size_t>(lda) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += q[i + k * n] * lambda[k] * q[j + k * n];
      a[i + static_cast<size_t>(j) * lda] = s;
    }
  return a;
}

}  // namespace

Vec uniform(int64_t count, double lo, double hi, uint64_t seed) {
  auto g = rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Vec v(count);
  for (double &x : v) x = u(g);
  return v;
}

std::vector<int> tridiagonal_sizes() {
  return {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 33, 64, 97, 127, 128, 129, 255, 256, 257, 1000,
          1023, 1024, 1025, 4093, 4096, 4097};
}

std::vector<int> dense_sizes() { return {1, 2, 3, 4, 5, 8, 13, 16, 31, 32, 33, 64, 97, 128}; }

std::vector<std::string> tridiagonal_kinds() {
  return {"dominant", "spd121",   "nondominant", "helmholtz",
          "singular", "nearsingular", "tiny",    "huge"};
}

Tridiagonal tridiagonal(const std::string &kind, int n, uint64_t seed) {
  const int m = n > 1 ? n - 1 : 0;
  if (kind == "dominant") return make_dominant(n, seed);
  if (kind == "spd121") return {kind, Vec(m, -1.0), Vec(n, 2.0), Vec(m, -1.0), false};
  if (kind == "nondominant")
    return {kind, uniform(m, -1, 1, seed), uniform(n, -1, 1, seed + 1), uniform(m, -1, 1, seed + 2),
            false};
  if (kind == "helmholtz") {
    // -u'' - k^2 u with k h = 1.3: an indefinite, non-dominant diagonal 2 - 1.69.
    return {kind, Vec(m, -1.0), Vec(n, 2.0 - 1.69), Vec(m, -1.0), false};
  }
  if (kind == "singular") {
    // A zero row in the middle: exactly singular for DGTSV whatever the pivoting.
    Tridiagonal t = tridiagonal("nondominant", n, seed);
    t.name = kind;
    const int r = n / 2;
    t.d[r] = 0.0;
    if (r > 0) t.dl[r - 1] = 0.0;
    if (r < n - 1) t.du[r] = 0.0;
    return t;
  }
  if (kind == "nearsingular") {
    // The Neumann Laplacian (singular, null vector of ones) perturbed at one corner.
    Tridiagonal t{kind, Vec(m, -1.0), Vec(n, 2.0), Vec(m, -1.0), false};
    t.d[0] = 1.0 + 1e-13;
    t.d[n - 1] = n > 1 ? 1.0 : 1e-13;
    return t;
  }
  if (kind == "tiny" || kind == "huge") {
    Tridiagonal t = make_dominant(n, seed);
    const double s = kind == "tiny" ? kTiny : kHugeLU;
    t.name = kind;
    t.dl = scaled(t.dl, s);
    t.d = scaled(t.d, s);
    t.du = scaled(t.du, s);
    return t;
  }
  throw std::invalid_argument("unknown tridiagonal kind " + kind);
}

std::vector<std::string> symtridiagonal_kinds() {
  return {"random",   "121",    "wilkinson",    "glued_wilkinson", "clustered",
          "repeated", "graded", "zero_offdiag", "tiny",            "underflow", "huge"};
}

SymTridiagonal symtridiagonal(const std::string &kind, int n, uint64_t seed) {
  const int m = n > 1 ? n - 1 : 0;
  SymTridiagonal t{kind, Vec(n, 0.0), Vec(m, 0.0)};
  if (kind == "random" || kind == "tiny" || kind == "underflow" || kind == "huge") {
    t.d = uniform(n, -1, 1, seed);
    t.e = uniform(m, -1, 1, seed + 1);
    if (kind != "random") {
      // "underflow": e^2 underflows, so DSTEBZ splits T into 1 x 1 blocks; "tiny" still bisects.
      const double s = kind == "tiny" ? kSmall : kind == "underflow" ? kTiny : kHuge;
      t.d = scaled(t.d, s);
      t.e = scaled(t.e, s);
    }
  } else if (kind == "121") {
    t.d.assign(n, 2.0);
    t.e.assign(m, 1.0);
  } else if (kind == "wilkinson") {
    for (int i = 0; i < n; ++i) t.d[i] = std::fabs(i - (n - 1) / 2.0);
    t.e.assign(m, 1.0);
  } else if (kind == "glued_wilkinson") {
    // Copies of W21+ glued by a small off-diagonal: clusters of very close pairs.
    for (int i = 0; i < n; ++i) t.d[i] = std::fabs(i % 21 - 10.0);
    for (int i = 0; i < m; ++i) t.e[i] = (i % 21 == 20) ? 1e-8 : 1.0;
  } else if (kind == "clustered") {
    Vec u = uniform(n, -1, 1, seed), v = uniform(m, -1, 1, seed + 1);
    for (int i = 0; i < n; ++i) t.d[i] = 1.0 + 1e-12 * u[i];
    for (int i = 0; i < m; ++i) t.e[i] = 1e-12 * v[i];
  } else if (kind == "repeated") {
    // Identical 4 x 4 blocks with zero coupling: every eigenvalue repeated about n/4 times.
    Vec bd = uniform(4, -1, 1, seed), be = uniform(3, -1, 1, seed + 1);
    for (int i = 0; i < n; ++i) t.d[i] = bd[i % 4];
    for (int i = 0; i < m; ++i) t.e[i] = (i % 4 == 3) ? 0.0 : be[i % 4];
  } else if (kind == "graded") {
    for (int i = 0; i < n; ++i) t.d[i] = std::pow(10.0, -12.0 * i / (n > 1 ? n - 1 : 1));
    for (int i = 0; i < m; ++i) t.e[i] = 0.5 * std::sqrt(t.d[i] * t.d[i + 1]);
  } else if (kind == "zero_offdiag") {
    t.d = uniform(n, -1, 1, seed);
    t.e = uniform(m, -1, 1, seed + 1);
    for (int i = 0; i < m; ++i)
      if (i % 5 == 2 || i % 7 == 0) t.e[i] = 0.0;
  } else {
    throw std::invalid_argument("unknown symmetric tridiagonal kind " + kind);
  }
  return t;
}

std::vector<std::string> general_kinds() {
  return {"random", "dominant", "wilkinson_growth", "zero_column", "rank_deficient", "tiny", "huge"};
}

Vec general(const std::string &kind, int m, int n, int lda, uint64_t seed) {
  Vec a(static_cast<size_t>(lda) * n, 0.0);
  auto at = [&](int i, int j) -> double & { return a[i + static_cast<size_t>(j) * lda]; };
  Vec r = uniform(static_cast<int64_t>(m) * n, -1, 1, seed);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) at(i, j) = r[i + static_cast<size_t>(j) * m];
  if (kind == "random") return a;
  if (kind == "dominant") {
    for (int i = 0; i < m && i < n; ++i) at(i, i) += (at(i, i) < 0 ? -1.0 : 1.0) * n;
    return a;
  }
  if (kind == "wilkinson_growth") {
    // 1 on the diagonal, -1 below, 1 in the last column: partial pivoting grows 2^(n-1).
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) at(i, j) = (i == j || j == n - 1) ? 1.0 : (i > j ? -1.0 : 0.0);
    return a;
  }
  if (kind == "zero_column") {
    const int j = n / 2;
    for (int i = 0; i < m; ++i) at(i, j) = 0.0;
    return a;
  }
  if (kind == "rank_deficient") {
    const int k = std::max(1, std::min(m, n) / 2);
    Vec x = uniform(static_cast<int64_t>(m) * k, -1, 1, seed + 3);
    Vec y = uniform(static_cast<int64_t>(k) * n, -1, 1, seed + 4);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double s = 0;
        for (int l = 0; l < k; ++l) s += x[i + static_cast<size_t>(l) * m] * y[l + static_cast<size_t>(j) * k];
        at(i, j) = s;
      }
    return a;
  }
  if (kind == "tiny" || kind == "huge") {
    const double s = kind == "tiny" ? kTiny : kHugeLU;
    for (double &v : a) v *= s;
    return a;
  }
  throw std::invalid_argument("unknown general kind " + kind);
}

SymTridiagonal ulp_cluster_n18() {
  SymTridiagonal t{"ulp_cluster_n18", {
    -2.208776581554631e-16, -2.1715453888231693e-16, -2.140031628806588e-16,
    -2.0824951009377137e-16, 6.825869837096095e-17, -5.265487162944958e-17, -8.69465777259754e-18,
    1.3757844840537703e-17, -1.1062896981617502e-16, 1.1173098743771205e-16,
    -2.1830569650348002e-16, 8.876495479142587e-17, -1.3199962042409687e-16, 6.486234909458597e-17,
    -1.242429365446623e-16, -2.6255576128584238e-17, 0.9990097365529134, 0.0009902634470866538}, {
    -1.6634894017133704e-18, -2.56908492873322e-18, 9.353821561045591e-18, 1.9690726006334466e-17,
    -1.925682973100958e-16, -1.6795308048402284e-17, 2.2270846768495604e-16,
    -2.459167600759247e-17, 2.1291586609364993e-16, 5.641160639554418e-17, 1.4171319146112226e-16,
    -1.7550887287303595e-16, -5.351357557086297e-17, 1.9766078476783375e-16, 4.19152499810462e-17,
    -7.066310357461325e-15, 0.03145286672772487}};
  return t;
}

std::vector<std::string> symmetric_kinds() {
  return {"random", "graded", "clustered", "repeated", "zero_blocks", "tiny", "huge"};
}

Vec symmetric(const std::string &kind, int n, int lda, uint64_t seed) {
  Vec a(static_cast<size_t>(lda) * n, 0.0);
  auto at = [&](int i, int j) -> double & { return a[i + static_cast<size_t>(j) * lda]; };
  if (kind == "random" || kind == "graded" || kind == "zero_blocks" || kind == "tiny" ||
      kind == "huge") {
    Vec r = uniform(static_cast<int64_t>(n) * n, -1, 1, seed);
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) at(i, j) = at(j, i) = r[i + static_cast<size_t>(j) * n];
    if (kind == "graded") {
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) at(i, j) *= std::pow(10.0, -6.0 * (i + j) / (n > 1 ? n - 1 : 1));
    } else if (kind == "zero_blocks") {
      // Two decoupled diagonal blocks and a zero last row/column.
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          if ((i < n / 2) != (j < n / 2) || i == n - 1 || j == n - 1) at(i, j) = 0.0;
    } else if (kind != "random") {
      const double s = kind == "tiny" ? kTiny : kHugeLU;
      for (double &v : a) v *= s;
    }
    return a;
  }
  if (kind.rfind("kms", 0) == 0) {  // "kms05": 0.5^|i-j| (Kac-Murdock-Szego), "kms01", "kms09"
    const double rho = std::stod(kind.substr(3)) / 10;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) at(i, j) = std::pow(rho, std::abs(i - j));
    return a;
  }
  Vec lambda(n);
  if (kind == "clustered") {
    for (int i = 0; i < n; ++i) lambda[i] = (i % 8 == 7) ? -1.0 - i : 1.0 + 1e-10 * i;
  } else if (kind == "clustered_ulp") {
    // Reference LAPACK's DDRVST type 10: 1, then ulp with random signs (a cluster of n - 1 at
    // the eps scale beside one eigenvalue of order 1).
    const Vec s = uniform(n, -1, 1, seed + 3);
    for (int i = 0; i < n; ++i) lambda[i] = i == 0 ? 1.0 : (s[i] < 0 ? -DBL_EPSILON : DBL_EPSILON);
  } else if (kind == "repeated") {
    for (int i = 0; i < n; ++i) lambda[i] = 1.0 + (i % 3);
  } else {
    throw std::invalid_argument("unknown symmetric kind " + kind);
  }
  return with_spectrum(lambda, lda, seed);
}

std::vector<std::string> toeplitz_kinds() {
  return {"random", "kms", "tridiagonal", "circulant", "clustered", "identity", "prolate", "tiny",
          "huge"};
}

Vec circulant_spectrum(const Vec &t) {
  const int64_t n = static_cast<int64_t>(t.size());
  const double pi = std::acos(-1.0);
  Vec table(n), w(n);
  for (int64_t m = 0; m < n; ++m) table[m] = std::cos(2 * pi * double(m) / double(n));
  for (int64_t j = 0; j < n; ++j) {
    long double sum = 0;
    for (int64_t k = 0; k < n; ++k) sum += t[k] * table[(j * k) % n];
    w[j] = static_cast<double>(sum);
  }
  std::sort(w.begin(), w.end());
  return w;
}

Vec toeplitz(const std::string &kind, int n, uint64_t seed) {
  Vec t(n, 0.0);
  if (kind == "random" || kind == "tiny" || kind == "huge") {
    t = uniform(n, -1, 1, seed);
    if (kind != "random") t = scaled(t, kind == "tiny" ? kTiny : kHugeLU);
  } else if (kind == "kms") {
    for (int k = 0; k < n; ++k) t[k] = std::pow(0.5, k);
  } else if (kind == "tridiagonal") {
    t[0] = 2.0;
    if (n > 1) t[1] = -1.0;
  } else if (kind == "circulant") {
    for (int k = 0; k < n; ++k) t[k] = 1.0 / (1.0 + std::min(k, n - k));
  } else if (kind == "clustered") {
    t = scaled(uniform(n, -1, 1, seed), 1e-10);
    t[0] = 1.0;
  } else if (kind == "identity") {  // one n-fold eigenvalue, shared by both halves
    if (n > 0) t[0] = 1.0;
  } else if (kind == "prolate") {  // bandwidth 1/4: eigenvalues cluster at 0 (down to ~1e-300) and 1
    const double w = 0.25, pi = std::acos(-1.0);
    if (n > 0) t[0] = 2 * w;
    for (int k = 1; k < n; ++k) t[k] = std::sin(2 * pi * w * k) / (pi * k);
  } else {
    throw std::invalid_argument("unknown toeplitz kind " + kind);
  }
  return t;
}

Vec toeplitz_dense(const Vec &t) {
  const int n = static_cast<int>(t.size());
  Vec a(static_cast<size_t>(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a[i + static_cast<size_t>(j) * n] = t[i > j ? i - j : j - i];
  return a;
}

Vec orthogonal(int n, uint64_t seed) {
  // Modified Gram-Schmidt, done twice, on a random matrix.
  Vec q = uniform(static_cast<int64_t>(n) * n, -1, 1, seed);
  for (int j = 0; j < n; ++j) {
    double *qj = q.data() + static_cast<size_t>(j) * n;
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < j; ++k) {
        const double *qk = q.data() + static_cast<size_t>(k) * n;
        double dot = 0;
        for (int i = 0; i < n; ++i) dot += qk[i] * qj[i];
        for (int i = 0; i < n; ++i) qj[i] -= dot * qk[i];
      }
    double nrm = 0;
    for (int i = 0; i < n; ++i) nrm += qj[i] * qj[i];
    nrm = std::sqrt(nrm);
    for (int i = 0; i < n; ++i) qj[i] /= nrm;
  }
  return q;
}

}  // namespace zoo
