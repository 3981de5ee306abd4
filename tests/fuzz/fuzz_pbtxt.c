/* fuzz_pbtxt.c - libFuzzer target for the protobuf text-format parser and
 * printer (tools/common/pbtxt_*.c) on GraphDefs. Besides not crashing, text
 * that parses must print to text that parses back to the same text.
 *
 * Built and run by `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.pb-c.h"
#include "pbtxt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The message as text, malloc'd (size in *len). */
static char *to_text(const ProtobufCMessage *msg, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        abort();
    pbtxt_print(f, msg);
    fclose(f);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const ignored[] = {"library", NULL};
    tfpi_status status;
    ProtobufCMessage *first =
        pbtxt_parse(&tfpi__graph_def__descriptor, (const char *)data, size, "fuzz", ignored, &status);
    if (!first)
        return 0;
    size_t len1, len2;
    char *text1 = to_text(first, &len1);
    ProtobufCMessage *second = pbtxt_parse(&tfpi__graph_def__descriptor, text1, len1, "again", ignored, &status);
    if (!second) {
        fprintf(stderr, "printed text does not parse: %s\n", status.message);
        abort();
    }
    char *text2 = to_text(second, &len2);
    if (len1 != len2 || memcmp(text1, text2, len1) != 0) {
        fprintf(stderr, "text changed on a round trip:\n%s\n---\n%s\n", text1, text2);
        abort();
    }
    free(text1);
    free(text2);
    protobuf_c_message_free_unpacked(first, NULL);
    protobuf_c_message_free_unpacked(second, NULL);
    return 0;
}
