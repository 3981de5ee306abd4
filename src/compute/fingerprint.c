/* fingerprint.c - FarmHash Fingerprint64 (fingerprint.h), written from
 * the published definition of farmhashna::Hash64: strings of up to 16, 32
 * and 64 bytes are mixed whole; longer ones 64 bytes at a time through a
 * 56-byte state, then the last 64 bytes. Rotations are to the right; all
 * arithmetic is modulo 2^64. */
#include "compute/fingerprint.h"

/* Primes between 2^63 and 2^64. */
static const uint64_t K0 = 0xc3a5c85c97cb3127ULL;
static const uint64_t K1 = 0xb492b66fbe98f273ULL;
static const uint64_t K2 = 0x9ae16a3b2f90404fULL;

static uint64_t load64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t load32(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t rotr(uint64_t v, int shift) { return shift == 0 ? v : v >> shift | v << (64 - shift); }

static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

/* Murmur-style mix of two words. */
static uint64_t mix16(uint64_t u, uint64_t v, uint64_t mul)
{
    uint64_t a = (u ^ v) * mul;
    a ^= a >> 47;
    uint64_t b = (v ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

static uint64_t hash_0_to_16(const uint8_t *s, size_t len)
{
    if (len >= 8) {
        uint64_t mul = K2 + len * 2, a = load64(s) + K2, b = load64(s + len - 8);
        uint64_t c = rotr(b, 37) * mul + a, d = (rotr(a, 25) + b) * mul;
        return mix16(c, d, mul);
    }
    if (len >= 4) {
        uint64_t mul = K2 + len * 2;
        return mix16(len + (load32(s) << 3), load32(s + len - 4), mul);
    }
    if (len > 0) {
        uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
        uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
        return shift_mix((uint64_t)y * K2 ^ (uint64_t)z * K0) * K2;
    }
    return K2;
}

static uint64_t hash_17_to_32(const uint8_t *s, size_t len)
{
    uint64_t mul = K2 + len * 2, a = load64(s) * K1, b = load64(s + 8);
    uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * K2;
    return mix16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + K2, 18) + c, mul);
}

static uint64_t hash_33_to_64(const uint8_t *s, size_t len)
{
    uint64_t mul = K2 + len * 2, a = load64(s) * K2, b = load64(s + 8);
    uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * K2;
    uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
    uint64_t z = mix16(y, a + rotr(b + K2, 18) + c, mul);
    uint64_t e = load64(s + 16) * mul, f = load64(s + 24);
    uint64_t g = (y + load64(s + len - 32)) * mul, h = (z + load64(s + len - 24)) * mul;
    return mix16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

typedef struct pair64 {
    uint64_t first, second;
} pair64;

/* 16 bytes of hash from the 32 bytes at s and two seeds. */
static pair64 weak_hash_32(const uint8_t *s, uint64_t a, uint64_t b)
{
    uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24);
    a += w;
    b = rotr(b + a + z, 21);
    uint64_t c = a;
    a += x + y;
    b += rotr(a, 44);
    return (pair64){a + z, b + c};
}

uint64_t tp_fingerprint64(const uint8_t *s, size_t len)
{
    if (len <= 16)
        return hash_0_to_16(s, len);
    if (len <= 32)
        return hash_17_to_32(s, len);
    if (len <= 64)
        return hash_33_to_64(s, len);
    const uint64_t seed = 81;
    uint64_t x = seed, y = seed * K1 + 113, z = shift_mix(y * K2 + 113) * K2, t;
    pair64 v = {0, 0}, w = {0, 0};
    x = x * K2 + load64(s);
    const uint8_t *end = s + ((len - 1) / 64) * 64, *last64 = s + len - 64;
    do {
        x = rotr(x + y + v.first + load64(s + 8), 37) * K1;
        y = rotr(y + v.second + load64(s + 48), 42) * K1;
        x ^= w.second;
        y += v.first + load64(s + 40);
        z = rotr(z + w.first, 33) * K1;
        v = weak_hash_32(s, v.second * K1, x + w.first);
        w = weak_hash_32(s + 32, z + w.second, y + load64(s + 16));
        t = z, z = x, x = t;
        s += 64;
    } while (s != end);
    uint64_t mul = K1 + ((z & 0xff) << 1);
    s = last64;
    w.first += (len - 1) & 63;
    v.first += w.first;
    w.first += v.first;
    x = rotr(x + y + v.first + load64(s + 8), 37) * mul;
    y = rotr(y + v.second + load64(s + 48), 42) * mul;
    x ^= w.second * 9;
    y += v.first * 9 + load64(s + 40);
    z = rotr(z + w.first, 33) * mul;
    v = weak_hash_32(s, v.second * mul, x + w.first);
    w = weak_hash_32(s + 32, z + w.second, y + load64(s + 16));
    t = z, z = x, x = t;
    return mix16(mix16(v.first, w.first, mul) + shift_mix(y) * K0 + z, mix16(v.second, w.second, mul) + x, mul);
}
