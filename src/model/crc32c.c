/* crc32c.c - CRC-32C through libext2fs, whose ext2fs_crc32c_le is the raw
 * (not pre- or post-inverted) reflected CRC with polynomial 0x82F63B78. */
#include "model/crc32c.h"

#include <ext2fs/ext2fs.h>

uint32_t tp_crc32c_extend(uint32_t crc, const void *data, size_t size)
{
    if (size == 0)
        return crc;
    return ~ext2fs_crc32c_le(~crc, (const unsigned char *)data, size);
}
