// Fast Fourier transforms (see fft.hpp).
#include "fft.hpp"

#include <algorithm>
#include <cmath>

namespace gpueig::fft {
namespace {

// exp(-2 pi i m / period) for an integer m already reduced into [0, period).
Complex root(int64_t m, int64_t period) {
  const double a = 2 * M_PI * double(m) / double(period);
  return {std::cos(a), -std::sin(a)};
}

// a * b without std::complex's operator*, which checks for NaN and Inf results (a library call
// per product: 3x the transform's time here; the inputs are finite).
inline Complex mul(const Complex &a, const Complex &b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

int64_t power_of_two_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

Radix2::Radix2(int64_t size) : size_(size), twiddle_(std::max<int64_t>(size - 1, 1)) {
  // Each stage's twiddles contiguous (stage of half-length h at offset h - 1): the butterflies
  // read them in order instead of with the stride size / 2h.
  for (int64_t half = 1; half < size; half <<= 1)
    for (int64_t k = 0; k < half; ++k) twiddle_[half - 1 + k] = root(k * (size / (2 * half)), size);
}

void Radix2::run(Complex *x, bool inverse) const {
  const int64_t n = size_;
  for (int64_t i = 1, j = 0; i < n; ++i) {  // bit reversal
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t half = len / 2;
    const Complex *tw = twiddle_.data() + half - 1;
    for (int64_t i = 0; i < n; i += len)
      for (int64_t k = 0; k < half; ++k) {
        Complex w = tw[k];
        if (inverse) w = std::conj(w);
        const Complex a = x[i + k], b = mul(x[i + k + half], w);
        x[i + k] = a + b, x[i + k + half] = a - b;
      }
  }
}

Dst1::Dst1(int64_t n)
    : n_(n), length_(2 * (n + 1)), fft_(power_of_two_at_least(2 * (2 * (n + 1)) - 1)), chirp_(length_),
      filter_(fft_.size(), Complex(0, 0)) {
  // chirp_j = exp(-i pi j^2 / L) = root(j^2 mod 2L, 2L): j^2 reduced exactly.
  const int64_t period = 2 * length_;
  for (int64_t j = 0; j < length_; ++j) chirp_[j] = root((j * j) % period, period);
  const int64_t size = fft_.size();
  const double scale = 1.0 / double(size);
  filter_[0] = std::conj(chirp_[0]) * scale;
  for (int64_t j = 1; j < length_; ++j) filter_[j] = filter_[size - j] = std::conj(chirp_[j]) * scale;
  fft_.run(filter_.data(), false);
}

void Dst1::run(const double *x, double *y, std::vector<Complex> &work) const {
  // The odd extension a (a_j = x_j, a_{L-j} = -x_j, a_0 = a_{n+1} = 0): A_k = -2i sum_j x_j
  // sin(jk pi/(n+1)). Bluestein: A_k = chirp_k sum_j (a_j chirp_j) conj(chirp)_{k-j}.
  const int64_t size = fft_.size();
  work.assign(size, Complex(0, 0));
  for (int64_t j = 1; j <= n_; ++j) {
    work[j] = x[j - 1] * chirp_[j];  // (real times complex: no check)
    work[length_ - j] = -x[j - 1] * chirp_[length_ - j];
  }
  fft_.run(work.data(), false);
  for (int64_t k = 0; k < size; ++k) work[k] = mul(work[k], filter_[k]);
  fft_.run(work.data(), true);
  const double scale = std::sqrt(2.0 / double(n_ + 1)) * -0.5;
  for (int64_t k = 1; k <= n_; ++k) y[k - 1] = scale * mul(work[k], chirp_[k]).imag();
}

ToeplitzProduct::ToeplitzProduct(int64_t n, const double *t)
    : n_(n), fft_(power_of_two_at_least(2 * n)), symbol_(fft_.size(), Complex(0, 0)) {
  const int64_t size = fft_.size();
  const double scale = 1.0 / double(size);
  symbol_[0] = t[0] * scale;
  for (int64_t k = 1; k < n; ++k) symbol_[k] = symbol_[size - k] = t[k] * scale;
  fft_.run(symbol_.data(), false);
}

void ToeplitzProduct::run(const double *x, double *y, std::vector<Complex> &work) const {
  work.assign(fft_.size(), Complex(0, 0));
  for (int64_t j = 0; j < n_; ++j) work[j] = x[j];
  fft_.run(work.data(), false);
  for (int64_t k = 0; k < fft_.size(); ++k) work[k] = mul(work[k], symbol_[k]);
  fft_.run(work.data(), true);
  for (int64_t j = 0; j < n_; ++j) y[j] = work[j].real();
}

}  // namespace gpueig::fft
