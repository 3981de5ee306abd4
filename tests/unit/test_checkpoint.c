/* test_checkpoint.c - CRC-32C and its masking as checkpoints store them
 * (the readers themselves are tested end to end by
 * tests/cli/test_checkpoint.sh on real and synthetic files). */
#include <string.h>

#include "check.h"
#include "model/crc32c.h"

static void crc32c_known_values(void)
{
    CHECK_EQ_INT(tp_crc32c("123456789", 9), 0xE3069283u);
    CHECK_EQ_INT(tp_crc32c("", 0), 0);
    /* iSCSI (RFC 3720) test vector: 32 zero bytes. */
    static const unsigned char zeros[32] = {0};
    CHECK_EQ_INT(tp_crc32c(zeros, sizeof zeros), 0x8A9136AAu);
}

static void crc32c_extends_piece_by_piece(void)
{
    const char *text = "the quick brown fox jumps over the lazy dog";
    size_t n = strlen(text);
    for (size_t cut = 0; cut <= n; cut += 7)
        CHECK_EQ_INT(tp_crc32c_extend(tp_crc32c(text, cut), text + cut, n - cut), tp_crc32c(text, n));
}

static void masking(void)
{
    CHECK_EQ_INT(tp_crc32c_mask(0), 0xa282ead8u);
    static const uint32_t values[] = {0, 1, 0x12345678u, 0xE3069283u, 0xffffffffu};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        CHECK_EQ_INT(tp_crc32c_unmask(tp_crc32c_mask(values[i])), values[i]);
        CHECK(tp_crc32c_mask(values[i]) != values[i]);
    }
}

int main(void)
{
    RUN(crc32c_known_values);
    RUN(crc32c_extends_piece_by_piece);
    RUN(masking);
    return check_summary();
}
