// Fast Fourier transforms for the structured Toeplitz eigenvectors (src/toeplitz_structured.hpp):
// the DST-I that takes a half block's vector to T's basis, and T x by circulant embedding, both
// O(n log n) in O(n) memory. Power-of-two transforms (iterative radix 2), any other length by
// Bluestein's chirp; every angle reduced exactly in integers before its sine and cosine, so a
// transform's error stays a few ulps times log2 of its length.
#pragma once
#include <complex>
#include <cstdint>
#include <vector>

namespace gpueig::fft {

using Complex = std::complex<double>;

// A power-of-two transform of `size` points (its twiddles made once).
class Radix2 {
 public:
  explicit Radix2(int64_t size);
  int64_t size() const { return size_; }
  // In place: X_k = sum_j x_j exp(-2 pi i jk / size), or with +i where `inverse` (unscaled).
  void run(Complex *x, bool inverse) const;

 private:
  int64_t size_;
  std::vector<Complex> twiddle_;  // per stage (see the constructor)
};

// The DST-I of order n: y_k = sqrt(2/(n+1)) sum_{j=1..n} sin(jk pi/(n+1)) x_j (k = 1..n; S = S' =
// inv(S)), as the odd extension's transform of length 2(n+1) by Bluestein's chirp.
class Dst1 {
 public:
  explicit Dst1(int64_t n);
  // x, y: n entries each (may alias). `work`: reused between calls (one per thread).
  void run(const double *x, double *y, std::vector<Complex> &work) const;

 private:
  int64_t n_, length_;         // length_ = 2(n+1)
  Radix2 fft_;                 // Bluestein's convolution length, a power of two >= 2 length_ - 1
  std::vector<Complex> chirp_;     // exp(-i pi j^2 / length), j < length
  std::vector<Complex> filter_;    // the transformed conjugate chirp, scaled by 1 / fft size
};

// y = T x for the symmetric Toeplitz T(i,j) = t(|i-j|) of order n, through a circulant of a
// power-of-two order >= 2n that holds T as its leading block.
class ToeplitzProduct {
 public:
  ToeplitzProduct(int64_t n, const double *t);
  void run(const double *x, double *y, std::vector<Complex> &work) const;

 private:
  int64_t n_;
  Radix2 fft_;
  std::vector<Complex> symbol_;  // the circulant's eigenvalues, scaled by 1 / its order
};

}  // namespace gpueig::fft
