// cuprum's prelude: the short integer type names every kernel uses, and a vector of V
// elements for 16-byte loads and stores.
#pragma once

typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

template <typename T, int V> struct __align__(sizeof(T) * V) Pack { T v[V]; };
