/* simd.h - the one thin SIMD layer of the fast kernels: a float vector type
 * tp_vec of TP_VEC_WIDTH lanes and the few operations they use, chosen at
 * compile time from the target's flags: AVX-512F (16 lanes), AVX2 + FMA (8),
 * NEON on armv7 or aarch64 (4), or plain scalar floats (1) everywhere else.
 * Loads and stores are unaligned. The _partial forms touch only the first n
 * lanes (0 < n < TP_VEC_WIDTH) and read the others as zero; the _lanes forms
 * take any n > 0. */
#ifndef TFPI_SIMD_H
#define TFPI_SIMD_H

#include <stdint.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#define TP_VEC_WIDTH 16
#define TP_SIMD_NAME "avx512"
typedef __m512 tp_vec;
static inline tp_vec tp_vec_zero(void) { return _mm512_setzero_ps(); }
static inline tp_vec tp_vec_set1(float x) { return _mm512_set1_ps(x); }
static inline tp_vec tp_vec_broadcast(const float *p) { return _mm512_set1_ps(*p); }
static inline tp_vec tp_vec_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void tp_vec_store(float *p, tp_vec v) { _mm512_storeu_ps(p, v); }
static inline tp_vec tp_vec_add(tp_vec a, tp_vec b) { return _mm512_add_ps(a, b); }
static inline tp_vec tp_vec_sub(tp_vec a, tp_vec b) { return _mm512_sub_ps(a, b); }
static inline tp_vec tp_vec_mul(tp_vec a, tp_vec b) { return _mm512_mul_ps(a, b); }
static inline tp_vec tp_vec_fma(tp_vec acc, tp_vec a, tp_vec b) { return _mm512_fmadd_ps(a, b, acc); }
static inline tp_vec tp_vec_max(tp_vec a, tp_vec b) { return _mm512_max_ps(a, b); }
static inline tp_vec tp_vec_min(tp_vec a, tp_vec b) { return _mm512_min_ps(a, b); }
static inline __mmask16 tp_vec_lanes(int n) { return (__mmask16)((1u << n) - 1u); }
static inline tp_vec tp_vec_load_partial(const float *p, int n)
{
    return _mm512_maskz_loadu_ps(tp_vec_lanes(n), p);
}
static inline void tp_vec_store_partial(float *p, tp_vec v, int n)
{
    _mm512_mask_storeu_ps(p, tp_vec_lanes(n), v);
}

#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define TP_VEC_WIDTH 8
#define TP_SIMD_NAME "avx2"
typedef __m256 tp_vec;
static inline tp_vec tp_vec_zero(void) { return _mm256_setzero_ps(); }
static inline tp_vec tp_vec_set1(float x) { return _mm256_set1_ps(x); }
static inline tp_vec tp_vec_broadcast(const float *p) { return _mm256_broadcast_ss(p); }
static inline tp_vec tp_vec_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void tp_vec_store(float *p, tp_vec v) { _mm256_storeu_ps(p, v); }
static inline tp_vec tp_vec_add(tp_vec a, tp_vec b) { return _mm256_add_ps(a, b); }
static inline tp_vec tp_vec_sub(tp_vec a, tp_vec b) { return _mm256_sub_ps(a, b); }
static inline tp_vec tp_vec_mul(tp_vec a, tp_vec b) { return _mm256_mul_ps(a, b); }
static inline tp_vec tp_vec_fma(tp_vec acc, tp_vec a, tp_vec b) { return _mm256_fmadd_ps(a, b, acc); }
static inline tp_vec tp_vec_max(tp_vec a, tp_vec b) { return _mm256_max_ps(a, b); }
static inline tp_vec tp_vec_min(tp_vec a, tp_vec b) { return _mm256_min_ps(a, b); }
static inline __m256i tp_vec_lanes(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline tp_vec tp_vec_load_partial(const float *p, int n) { return _mm256_maskload_ps(p, tp_vec_lanes(n)); }
static inline void tp_vec_store_partial(float *p, tp_vec v, int n) { _mm256_maskstore_ps(p, tp_vec_lanes(n), v); }

#elif defined(__ARM_NEON)
#include <arm_neon.h>
#define TP_VEC_WIDTH 4
#define TP_SIMD_NAME "neon"
typedef float32x4_t tp_vec;
static inline tp_vec tp_vec_zero(void) { return vdupq_n_f32(0.0f); }
static inline tp_vec tp_vec_set1(float x) { return vdupq_n_f32(x); }
static inline tp_vec tp_vec_broadcast(const float *p) { return vld1q_dup_f32(p); }
static inline tp_vec tp_vec_load(const float *p) { return vld1q_f32(p); }
static inline void tp_vec_store(float *p, tp_vec v) { vst1q_f32(p, v); }
static inline tp_vec tp_vec_add(tp_vec a, tp_vec b) { return vaddq_f32(a, b); }
static inline tp_vec tp_vec_sub(tp_vec a, tp_vec b) { return vsubq_f32(a, b); }
static inline tp_vec tp_vec_mul(tp_vec a, tp_vec b) { return vmulq_f32(a, b); }
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
static inline tp_vec tp_vec_fma(tp_vec acc, tp_vec a, tp_vec b) { return vfmaq_f32(acc, a, b); }
#else
static inline tp_vec tp_vec_fma(tp_vec acc, tp_vec a, tp_vec b) { return vmlaq_f32(acc, a, b); }
#endif
static inline tp_vec tp_vec_max(tp_vec a, tp_vec b) { return vmaxq_f32(a, b); }
static inline tp_vec tp_vec_min(tp_vec a, tp_vec b) { return vminq_f32(a, b); }
#define TP_VEC_PARTIAL_BY_COPY 1

#else
#define TP_VEC_WIDTH 1
#define TP_SIMD_NAME "scalar"
typedef float tp_vec;
static inline tp_vec tp_vec_zero(void) { return 0.0f; }
static inline tp_vec tp_vec_set1(float x) { return x; }
static inline tp_vec tp_vec_broadcast(const float *p) { return *p; }
static inline tp_vec tp_vec_load(const float *p) { return *p; }
static inline void tp_vec_store(float *p, tp_vec v) { *p = v; }
static inline tp_vec tp_vec_add(tp_vec a, tp_vec b) { return a + b; }
static inline tp_vec tp_vec_sub(tp_vec a, tp_vec b) { return a - b; }
static inline tp_vec tp_vec_mul(tp_vec a, tp_vec b) { return a * b; }
static inline tp_vec tp_vec_fma(tp_vec acc, tp_vec a, tp_vec b) { return acc + a * b; }
static inline tp_vec tp_vec_max(tp_vec a, tp_vec b) { return a > b ? a : b; }
static inline tp_vec tp_vec_min(tp_vec a, tp_vec b) { return a < b ? a : b; }
#define TP_VEC_PARTIAL_BY_COPY 1
#endif

#ifdef TP_VEC_PARTIAL_BY_COPY
/* No masked loads on this ISA: go through a full vector on the stack. */
static inline tp_vec tp_vec_load_partial(const float *p, int n)
{
    float lanes[TP_VEC_WIDTH] = {0};
    for (int i = 0; i < n; i++)
        lanes[i] = p[i];
    return tp_vec_load(lanes);
}
static inline void tp_vec_store_partial(float *p, tp_vec v, int n)
{
    float lanes[TP_VEC_WIDTH];
    tp_vec_store(lanes, v);
    for (int i = 0; i < n; i++)
        p[i] = lanes[i];
}
#endif

/* The first `lanes` lanes (lanes > 0; a full vector when lanes >= width). */
static inline tp_vec tp_vec_load_lanes(const float *p, int lanes)
{
    return lanes >= TP_VEC_WIDTH ? tp_vec_load(p) : tp_vec_load_partial(p, lanes);
}

static inline void tp_vec_store_lanes(float *p, tp_vec v, int lanes)
{
    if (lanes >= TP_VEC_WIDTH)
        tp_vec_store(p, v);
    else
        tp_vec_store_partial(p, v, lanes);
}

#endif
