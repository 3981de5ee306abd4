/* fingerprint.h - FarmHash's Fingerprint64 (farmhashna::Hash64), the
 * 64-bit string fingerprint TensorFlow's StringToHashBucketFast takes
 * modulo the bucket count, BigQuery's FARM_FINGERPRINT and Guava's
 * farmHashFingerprint64: fixed for all time, the same on every platform
 * (bytes read little-endian whatever the host). */
#ifndef TFPI_FINGERPRINT_H
#define TFPI_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

uint64_t tp_fingerprint64(const uint8_t *s, size_t len);

#endif
