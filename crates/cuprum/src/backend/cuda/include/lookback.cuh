// Decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016): each tile publishes a value and then a status word; a later tile waits on
// its predecessors' status words and reads their values. The protocol's two halves:
#pragma once

// Stores a tile's value, then (after a fence) its status word, so that a reader that sees the
// status sees the value.
template <typename T, typename S>
__device__ __forceinline__ void lb_publish(T* slot, T value, volatile S* status, S s) {
  *slot = value;
  __threadfence();
  *status = s;
}

// Spins until a status word is nonzero and returns it; the fence orders the reads of the
// predecessor's value after the status.
template <typename S>
__device__ __forceinline__ S lb_wait(const volatile S* status) {
  S s;
  do { s = *status; } while (s == 0);
  __threadfence();
  return s;
}

// As lb_wait, for status words that carry their value (nothing else to read after them).
template <typename S>
__device__ __forceinline__ S lb_spin(const volatile S* status) {
  S s;
  do { s = *status; } while (s == 0);
  return s;
}
