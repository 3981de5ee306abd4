/* qgemm_kernel.c - packing and the micro-kernels of the fast 8-bit GEMM
 * (see qgemm_kernel.h). Each micro-kernel computes, for MR rows of A and
 * one NR-column panel, raw[r][j] = sum over k of a[r][k] * panel code,
 * modulo 2^32; tp_qgemm_packed_rows adds the zero-point terms. */
#include "compute/qgemm_kernel.h"

#include <stdlib.h>
#include <string.h>

#if defined(__AVX512VNNI__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#define TP_QGEMM_DOTPROD 1
#endif

enum { MAX_MR = 6, MAX_NR = 32 };

/* The micro-kernels' fixed loops must be unrolled so the accumulators stay
 * in registers (-O2 alone keeps them in memory). */
#define UNROLL _Pragma("GCC unroll 16")

typedef void (*micro_kernel)(const uint8_t *const *a, const uint8_t *panel, int64_t quads, uint32_t *raw);

struct tp_qgemm_isa {
    const char *name;
    int mr, nr;
    bool signed_b; /* panel holds w - 128 as int8 */
    micro_kernel micro;
    bool (*available)(void);
};

static bool always(void) { return true; }

#if defined(__AVX512VNNI__) || defined(__ARM_NEON)
/* The 4 codes at p as one 32-bit lane, to broadcast. */
static uint32_t quad(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
#endif

/* ---- plain C, 4 x 16 ---- */
static void micro_c(const uint8_t *const *a, const uint8_t *panel, int64_t quads, uint32_t *raw)
{
    uint32_t acc[4][16] = {{0}};
    for (int64_t q = 0; q < quads; q++, panel += 64)
        for (int r = 0; r < 4; r++) {
            const uint8_t *x = a[r] + 4 * q;
            for (int j = 0; j < 16; j++)
                acc[r][j] += (uint32_t)x[0] * panel[4 * j] + (uint32_t)x[1] * panel[4 * j + 1] +
                             (uint32_t)x[2] * panel[4 * j + 2] + (uint32_t)x[3] * panel[4 * j + 3];
        }
    memcpy(raw, acc, sizeof acc);
}

#if defined(__AVX512VNNI__)
/* ---- AVX-512 VNNI, 6 x 32: vpdpbusd sums 4 u8 x s8 products per lane ---- */
static void micro_vnni(const uint8_t *const *a, const uint8_t *panel, int64_t quads, uint32_t *raw)
{
    __m512i acc[6][2];
    UNROLL for (int r = 0; r < 6; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_si512();
    for (int64_t q = 0; q < quads; q++, panel += 128) {
        __m512i b0 = _mm512_loadu_si512(panel), b1 = _mm512_loadu_si512(panel + 64);
        UNROLL for (int r = 0; r < 6; r++) {
            __m512i x = _mm512_set1_epi32((int32_t)quad(a[r] + 4 * q));
            acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], x, b0);
            acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], x, b1);
        }
    }
    UNROLL for (int r = 0; r < 6; r++) {
        _mm512_storeu_si512(raw + 32 * r, acc[r][0]);
        _mm512_storeu_si512(raw + 32 * r + 16, acc[r][1]);
    }
}
#endif

#if defined(__AVX2__)
/* ---- AVX2, 4 x 16: codes widened to int16, vpmaddwd adds product pairs
 * exactly (vpmaddubsw would saturate) ---- */
static void micro_avx2(const uint8_t *const *a, const uint8_t *panel, int64_t quads, uint32_t *raw)
{
    __m256i acc[4][4];
    UNROLL for (int r = 0; r < 4; r++)
        UNROLL for (int i = 0; i < 4; i++)
            acc[r][i] = _mm256_setzero_si256();
    for (int64_t q = 0; q < quads; q++, panel += 64) {
        __m256i b[4];
        UNROLL for (int i = 0; i < 4; i++) /* columns 4i..4i+3, 4 k each */
            b[i] = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(panel + 16 * i)));
        UNROLL for (int r = 0; r < 4; r++) {
            const uint8_t *x = a[r] + 4 * q;
            __m256i xv = _mm256_set1_epi64x((int64_t)((uint64_t)x[0] | (uint64_t)x[1] << 16 |
                                                      (uint64_t)x[2] << 32 | (uint64_t)x[3] << 48));
            UNROLL for (int i = 0; i < 4; i++)
                acc[r][i] = _mm256_add_epi32(acc[r][i], _mm256_madd_epi16(xv, b[i]));
        }
    }
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 4; i++) { /* lanes: column pairs (k0+k1, k2+k3) */
            uint32_t pairs[8];
            _mm256_storeu_si256((__m256i *)pairs, acc[r][i]);
            for (int j = 0; j < 4; j++)
                raw[16 * r + 4 * i + j] = pairs[2 * j] + pairs[2 * j + 1];
        }
}
#endif

#if defined(__ARM_NEON)
/* ---- NEON (armv7 and aarch64), 2 x 16: vmull.u8 then vpadal.u16 ---- */
static void micro_neon(const uint8_t *const *a, const uint8_t *panel, int64_t quads, uint32_t *raw)
{
    uint32x4_t acc[2][8];
    UNROLL for (int r = 0; r < 2; r++)
        UNROLL for (int i = 0; i < 8; i++)
            acc[r][i] = vdupq_n_u32(0);
    for (int64_t q = 0; q < quads; q++, panel += 64) {
        uint8x16_t b[4];
        UNROLL for (int i = 0; i < 4; i++)
            b[i] = vld1q_u8(panel + 16 * i);
        UNROLL for (int r = 0; r < 2; r++) {
            uint8x16_t x = vreinterpretq_u8_u32(vdupq_n_u32(quad(a[r] + 4 * q)));
            UNROLL for (int i = 0; i < 4; i++) {
                acc[r][2 * i] = vpadalq_u16(acc[r][2 * i], vmull_u8(vget_low_u8(b[i]), vget_low_u8(x)));
                acc[r][2 * i + 1] = vpadalq_u16(acc[r][2 * i + 1], vmull_u8(vget_high_u8(b[i]), vget_high_u8(x)));
            }
        }
    }
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 8; i++) { /* lanes: (column 2i: k0+k1, k2+k3; column 2i+1: ...) */
            uint32_t pairs[4];
            vst1q_u32(pairs, acc[r][i]);
            raw[16 * r + 2 * i] = pairs[0] + pairs[1];
            raw[16 * r + 2 * i + 1] = pairs[2] + pairs[3];
        }
}
#endif

#if defined(TP_QGEMM_DOTPROD)
/* ---- aarch64 udot (Armv8.2 dot product), 4 x 16, compiled for it and used
 * only when the CPU reports it ---- */
__attribute__((target("arch=armv8.2-a+dotprod"))) static void micro_dotprod(const uint8_t *const *a,
                                                                              const uint8_t *panel, int64_t quads,
                                                                              uint32_t *raw)
{
    uint32x4_t acc[4][4];
    UNROLL for (int r = 0; r < 4; r++)
        UNROLL for (int i = 0; i < 4; i++)
            acc[r][i] = vdupq_n_u32(0);
    for (int64_t q = 0; q < quads; q++, panel += 64) {
        uint8x16_t b[4];
        UNROLL for (int i = 0; i < 4; i++)
            b[i] = vld1q_u8(panel + 16 * i);
        UNROLL for (int r = 0; r < 4; r++) {
            uint8x16_t x = vreinterpretq_u8_u32(vdupq_n_u32(quad(a[r] + 4 * q)));
            UNROLL for (int i = 0; i < 4; i++)
                acc[r][i] = vdotq_u32(acc[r][i], b[i], x);
        }
    }
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 4; i++)
            vst1q_u32(raw + 16 * r + 4 * i, acc[r][i]);
}

static bool has_dotprod(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0; }
#endif

static const tp_qgemm_isa isas[] = {
#if defined(__AVX512VNNI__)
    {"avx512vnni", 6, 32, true, micro_vnni, always},
#endif
#if defined(__AVX2__)
    {"avx2", 4, 16, false, micro_avx2, always},
#endif
#if defined(TP_QGEMM_DOTPROD)
    {"dotprod", 4, 16, false, micro_dotprod, has_dotprod},
#endif
#if defined(__ARM_NEON)
    {"neon", 2, 16, false, micro_neon, always},
#endif
    {"c", 4, 16, false, micro_c, always},
};

enum { NUM_ISAS = sizeof isas / sizeof *isas };

const tp_qgemm_isa *const *tp_qgemm_isas(int *count)
{
    static const tp_qgemm_isa *list[NUM_ISAS];
    for (int i = 0; i < NUM_ISAS; i++)
        list[i] = &isas[i];
    *count = NUM_ISAS;
    return list;
}

const char *tp_qgemm_isa_name(const tp_qgemm_isa *isa) { return isa->name; }
bool tp_qgemm_isa_available(const tp_qgemm_isa *isa) { return isa->available(); }

const tp_qgemm_isa *tp_qgemm_best_isa(void)
{
    for (int i = 0; i < NUM_ISAS; i++)
        if (isas[i].available())
            return &isas[i];
    return &isas[NUM_ISAS - 1];
}

bool tp_qgemm_pack(const tp_qgemm_isa *isa, const uint8_t *b, int64_t k, int64_t n, tp_qgemm_packed *out)
{
    const int nr = isa->nr;
    const int64_t quads = (k + 3) / 4, panels = (n + nr - 1) / nr;
    *out = (tp_qgemm_packed){.isa = isa, .k = k, .n = n, .quads = quads};
    out->panels = calloc((size_t)(panels * quads * nr * 4 + 1), 1);
    out->col_sums = calloc((size_t)(n + 1), sizeof *out->col_sums);
    if (!out->panels || !out->col_sums) {
        tp_qgemm_packed_free(out);
        return false;
    }
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < n; j++) {
            uint8_t code = b[i * n + j];
            out->col_sums[j] += code;
            uint8_t *slot = out->panels + ((j / nr * quads + i / 4) * nr + j % nr) * 4 + i % 4;
            *slot = isa->signed_b ? (uint8_t)(code ^ 0x80) : code;
        }
    return true;
}

void tp_qgemm_packed_free(tp_qgemm_packed *p)
{
    free(p->panels);
    free(p->col_sums);
    p->panels = NULL;
    p->col_sums = NULL;
}

/* The sum of k codes, in lanes over fixed blocks so that -O2 vectorizes it
 * (a scalar loop here costs as much as the product for narrow outputs). */
static uint32_t sum_codes(const uint8_t *row, int64_t k)
{
    enum { LANES = 32 };
    uint32_t lanes[LANES] = {0}, sum = 0;
    int64_t i = 0;
    for (; i + LANES <= k; i += LANES)
        for (int j = 0; j < LANES; j++)
            lanes[j] += row[i + j];
    for (; i < k; i++)
        sum += row[i];
    for (int j = 0; j < LANES; j++)
        sum += lanes[j];
    return sum;
}

/* Sixteen outputs of a tile with their zero-point terms: a fixed trip count
 * and distinct arrays, so -O2 vectorizes it. */
static inline void correct16(int32_t *restrict out, const uint32_t *restrict tile, const uint32_t *restrict sums,
                             uint32_t term, uint32_t za)
{
    for (int v = 0; v < 16; v++)
        out[v] = (int32_t)(tile[v] + term - za * sums[v]);
}

void tp_qgemm_packed_rows(const tp_qgemm_packed *p, const uint8_t *a, int64_t lda, int64_t rows, int32_t a_zero,
                          int32_t b_zero, int32_t *c, int64_t ldc)
{
    enum { BLOCK_ROWS = 48 }; /* a multiple of every MR: each panel is read once per block */
    const tp_qgemm_isa *isa = p->isa;
    const uint32_t za = (uint32_t)a_zero, zb = (uint32_t)b_zero, both = (uint32_t)p->k * za * zb;
    uint32_t raw[MAX_MR * MAX_NR], row_term[BLOCK_ROWS];
    for (int64_t b0 = 0; b0 < rows; b0 += BLOCK_ROWS) {
        const int64_t block = rows - b0 < BLOCK_ROWS ? rows - b0 : BLOCK_ROWS;
        for (int64_t r = 0; r < block; r++) {
            const uint32_t sum = sum_codes(a + (b0 + r) * lda, p->k);
            /* raw sums of the signed panels miss 128 * sum(a) */
            row_term[r] = both - zb * sum + (isa->signed_b ? 128u * sum : 0u);
        }
        for (int64_t j0 = 0; j0 < p->n; j0 += isa->nr) {
            const uint8_t *panel = p->panels + j0 * p->quads * 4;
            const int width = p->n - j0 < isa->nr ? (int)(p->n - j0) : isa->nr;
            for (int64_t r0 = 0; r0 < block; r0 += isa->mr) {
                const int height = block - r0 < isa->mr ? (int)(block - r0) : isa->mr;
                const uint8_t *row[MAX_MR];
                for (int r = 0; r < isa->mr; r++) /* rows past the end repeat the first */
                    row[r] = a + (b0 + r0 + (r < height ? r : 0)) * lda;
                isa->micro(row, panel, p->quads, raw);
                for (int r = 0; r < height; r++) {
                    int32_t *out = c + (b0 + r0 + r) * ldc + j0;
                    const uint32_t *tile = raw + r * isa->nr, *sums = p->col_sums + j0, term = row_term[r0 + r];
                    int j = 0;
                    for (; j + 16 <= width; j += 16)
                        correct16(out + j, tile + j, sums + j, term, za);
                    for (; j < width; j++)
                        out[j] = (int32_t)(tile[j] + term - za * sums[j]);
                }
            }
        }
    }
}
