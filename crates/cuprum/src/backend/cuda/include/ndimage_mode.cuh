// scipy.ndimage's boundary modes for filters (scipy/ndimage/mod.rs, Mode): where index i of an
// axis of length n reads from. Codes are SciPy's (_ni_support._extend_mode_to_code):
// 0 nearest, 1 wrap, 2 reflect, 3 mirror, 4 constant. -1: the constant cval.
// Pass the mode as a compile-time constant (a -D or a #define of the prelude) and the switch
// folds away.
#pragma once

#define ND_NEAREST 0
#define ND_WRAP 1
#define ND_REFLECT 2
#define ND_MIRROR 3
#define ND_CONSTANT 4

__device__ __forceinline__ long long nd_resolve(int mode, long long i, long long n) {
  if (i >= 0 && i < n) return i;
  if (mode == ND_CONSTANT) return -1;
  if (n <= 1) return 0;
  switch (mode) {
    case ND_NEAREST:
      return i < 0 ? 0 : n - 1;
    case ND_WRAP: {
      long long m = i % n;
      return m < 0 ? m + n : m;
    }
    case ND_REFLECT: {  // d c b a | a b c d | d c b a
      long long m = i % (2 * n);
      if (m < 0) m += 2 * n;
      return m < n ? m : 2 * n - 1 - m;
    }
    default: {  // ND_MIRROR: d c b | a b c d | c b a
      const long long p = 2 * n - 2;
      long long m = i % p;
      if (m < 0) m += p;
      return m < n ? m : p - m;
    }
  }
}
