// scipy.special's functions for the GPU's ufunc loops, in double (the float32 loops round the
// double's answer, as SciPy's and the CPU's do; the CPU's are backend/cpu/special.rs).
#pragma once

// SciPy's ndtr: 0.5 + 0.5 erf(x/sqrt 2) near 0, 0.5 erfc(|x|/sqrt 2) (or one less it) in the
// tails, where erf would lose the small side's digits.
__device__ __noinline__ double cuprum_ndtr(double a) {
  if (isnan(a)) return a;
  const double r2 = 0.70710678118654752440;
  double x = a * r2;
  double z = fabs(x);
  if (z < r2) return 0.5 + 0.5 * erf(x);
  double y = 0.5 * erfc(z);
  return x > 0 ? 1.0 - y : y;
}

// The inverse: CUDA's normcdfinv (-inf at 0, inf at 1, NaN outside [0, 1], as SciPy's ndtri).
__device__ __forceinline__ double cuprum_ndtri(double p) { return normcdfinv(p); }
