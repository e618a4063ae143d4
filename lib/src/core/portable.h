/*
 * portable.h: what libsluice uses beyond standard C11, each piece with a
 * standard-C fallback chosen at build time, so that the library builds
 * with any C11 compiler, for 32-bit targets, and under -std=c11 -pedantic.
 *
 * The fast paths need GCC or clang (attributes, builtins), x86 SIMD (SSE2,
 * and AVX2 chosen at run time) and a 128-bit integer type. Defining
 * SLUICE_PORTABLE (-DSLUICE_PORTABLE, on the library and its tests) takes
 * every fallback, whatever the compiler: the CTest port_fallback builds
 * that way and holds its output, byte for byte, to the default build's,
 * so the fallbacks are tested on the machines where the fast paths run.
 */
#ifndef SLUICE_PORTABLE_H
#define SLUICE_PORTABLE_H

#include <stdint.h>

#if (defined(__GNUC__) || defined(__clang__)) && !defined(SLUICE_PORTABLE)
#define SLUICEP_GNUC 1
#else
#define SLUICEP_GNUC 0
#endif

/* SSE2 intrinsics: always there on x86-64; on 32-bit x86 with -msse2. */
#if SLUICEP_GNUC && defined(__SSE2__)
#define SLUICEP_HAVE_SSE2 1
#else
#define SLUICEP_HAVE_SSE2 0
#endif

/* Functions compiled for AVX2 (the target attribute) and chosen at run
 * time (__builtin_cpu_supports). */
#if SLUICEP_GNUC && defined(__x86_64__)
#define SLUICEP_HAVE_X86_DISPATCH 1
#else
#define SLUICEP_HAVE_X86_DISPATCH 0
#endif

/* unsigned __int128: GCC and clang have it on 64-bit targets. */
#if SLUICEP_GNUC && defined(__SIZEOF_INT128__)
#define SLUICEP_HAVE_INT128 1
#else
#define SLUICEP_HAVE_INT128 0
#endif

/* Attributes that steer code layout only: without them the code is the
 * same, laid out as the compiler likes. */
#if SLUICEP_GNUC
#define SLUICEP_NOINLINE __attribute__((noinline))
#define SLUICEP_COLD __attribute__((noinline, cold))
#define SLUICEP_ALWAYS_INLINE __attribute__((always_inline))
#define SLUICEP_ALIGN_FN(n) __attribute__((aligned(n)))
#define SLUICEP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define SLUICEP_UNLIKELY(x) __builtin_expect((x), 0)
#else
#define SLUICEP_NOINLINE
#define SLUICEP_COLD
#define SLUICEP_ALWAYS_INLINE
#define SLUICEP_ALIGN_FN(n)
#define SLUICEP_PRINTF(fmt, args)
#define SLUICEP_UNLIKELY(x) (x)
#endif

/* The index of the lowest set bit of x, which is not 0: the standard-C
 * form (tests/test_monitor.c holds it to a plain loop), and the one to
 * use, the builtin where there is one. */
static inline unsigned sluicep_ctz64_c(uint64_t x) {
  /* x & -x keeps the lowest bit; a de Bruijn sequence times it puts a
   * distinct pattern in the top six bits for each position. */
  static const unsigned char pos[64] = {
      0,  1,  48, 2,  57, 49, 28, 3,  61, 58, 50, 42, 38, 29, 17, 4,  62, 55, 59, 36, 53, 51,
      43, 22, 45, 39, 33, 30, 24, 18, 12, 5,  63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21,
      44, 32, 23, 11, 46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9,  13, 8,  7,  6};
  return pos[((x & (0 - x)) * 0x03F79D71B4CB0A89ULL) >> 58];
}

static inline int sluicep_ctz64(uint64_t x) {
#if SLUICEP_GNUC
  return __builtin_ctzll(x);
#else
  return (int)sluicep_ctz64_c(x);
#endif
}

/* a * b, the full 128 bits, in standard C: the high half in *hi, the low
 * half returned. Schoolbook on 32-bit halves: each partial product fits
 * 64 bits, and the middle sum below cannot overflow. */
static inline uint64_t sluicep_mul64x64(uint64_t a, uint64_t b, uint64_t *hi) {
  uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  return (mid << 32) | (p00 & 0xFFFFFFFFu);
}

/* An unsigned 128-bit integer with what the monitor's hash needs: the
 * product of two 64-bit values, sums, a 64-bit value as one, and the two
 * halves. Both forms give the same values (the sums never pass 2^128
 * there). The native operations are macros, so that the compiler sees the
 * expressions the hash was tuned with: as inline functions they changed
 * the instruction schedule of the monitor's hot loops. */
#if SLUICEP_HAVE_INT128
__extension__ typedef unsigned __int128 sluicep_u128; /* __extension__: quiet under -pedantic */
#define sluicep_u128_mul(a, b) ((sluicep_u128)(a) * (b))
#define sluicep_u128_of(x) ((sluicep_u128)(x))
#define sluicep_u128_add(x, y) ((x) + (y))
#define sluicep_u128_add64(x, y) ((x) + (y))
#define sluicep_u128_lo(x) ((uint64_t)(x))
#define sluicep_u128_hi(x) ((uint64_t)((x) >> 64))
#else
typedef struct sluicep_u128 {
  uint64_t lo, hi;
} sluicep_u128;
static inline sluicep_u128 sluicep_u128_of(uint64_t x) {
  sluicep_u128 r = {x, 0};
  return r;
}
static inline sluicep_u128 sluicep_u128_mul(uint64_t a, uint64_t b) {
  sluicep_u128 r;
  r.lo = sluicep_mul64x64(a, b, &r.hi);
  return r;
}
static inline sluicep_u128 sluicep_u128_add(sluicep_u128 x, sluicep_u128 y) {
  sluicep_u128 r;
  r.lo = x.lo + y.lo;
  r.hi = x.hi + y.hi + (r.lo < x.lo); /* the carry out of the low half */
  return r;
}
static inline sluicep_u128 sluicep_u128_add64(sluicep_u128 x, uint64_t y) {
  sluicep_u128 r;
  r.lo = x.lo + y;
  r.hi = x.hi + (r.lo < y);
  return r;
}
static inline uint64_t sluicep_u128_lo(sluicep_u128 x) { return x.lo; }
static inline uint64_t sluicep_u128_hi(sluicep_u128 x) { return x.hi; }
#endif

#endif /* SLUICE_PORTABLE_H */
