/* crc32c.h - CRC-32C (Castagnoli), as TensorFlow's checkpoints store it:
 * over one buffer, extended over several pieces, and "masked" (the form
 * every stored checksum takes). The table-driven CRC itself comes from
 * e2fsprogs' libext2fs (Debian libext2fs-dev). */
#ifndef TFPI_CRC32C_H
#define TFPI_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of (the bytes whose CRC is crc) followed by data[0..size).
 * tp_crc32c_extend(0, ...) starts a new one. */
uint32_t tp_crc32c_extend(uint32_t crc, const void *data, size_t size);

static inline uint32_t tp_crc32c(const void *data, size_t size) { return tp_crc32c_extend(0, data, size); }

#define TP_CRC32C_MASK_DELTA 0xa282ead8u

/* TensorFlow and LevelDB store ((c >> 15) | (c << 17)) + delta. */
static inline uint32_t tp_crc32c_mask(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + TP_CRC32C_MASK_DELTA;
}

static inline uint32_t tp_crc32c_unmask(uint32_t masked)
{
    uint32_t r = masked - TP_CRC32C_MASK_DELTA;
    return (r >> 17) | (r << 15);
}

#endif
