/*
 * rng.h: the one pseudo-random generator of the tools, tests, fuzz drivers
 * and benchmarks: xorshift64*, so a seed gives the same sequence on every
 * platform and every run. Not for anything secret.
 */
#ifndef SLUICE_RNG_H
#define SLUICE_RNG_H

#include <stdint.h>

typedef struct sluice_rng {
  uint64_t s;
} sluice_rng;

static inline sluice_rng sluice_rng_seed(uint64_t seed) {
  /* splitmix64 of the seed, so nearby seeds give unrelated streams and 0
   * is a valid seed (xorshift must not start at 0). */
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  sluice_rng r = {z ? z : 1};
  return r;
}

static inline uint64_t sluice_rng_next(sluice_rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 2685821657736338717ULL;
}

/* Uniform enough in [0, n) for tests (n > 0). */
static inline uint64_t sluice_rng_below(sluice_rng *r, uint64_t n) {
  return (sluice_rng_next(r) >> 11) % n;
}

/* FNV-1a of a string: a stable seed from a name. */
static inline uint64_t sluice_hash_str(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

#endif
