// Small helpers shared by the argument checks of all routines.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

namespace gpueig {

// LAPACK's LSAME: option characters are case-insensitive.
inline bool lsame(char a, char b) {
  auto up = [](char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; };
  return up(a) == up(b);
}

inline int64_t max1(int64_t n) { return n > 1 ? n : 1; }

inline bool all_finite(const double *x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

// "n=5 nrhs=2" style size strings for the verbose log.
inline std::string sizes(std::initializer_list<std::pair<const char *, int64_t>> kv) {
  std::string s;
  for (auto &p : kv) {
    if (!s.empty()) s += ' ';
    s += p.first;
    s += '=';
    s += std::to_string(p.second);
  }
  return s;
}

}  // namespace gpueig
