/* string_output.h - the new strings a kernel makes (StringJoin, Substr,
 * StringNGrams...): their bytes gathered in one buffer the kernel's state
 * keeps, each element of the output pointing into it (the runtime copies
 * what must outlive the run, as it does for strings a kernel borrows from
 * its inputs). Every byte is counted against the memory budget before it
 * is allocated: a hostile input gets an error naming the node, never an
 * allocation it cannot afford. */
#ifndef TFPI_STRING_OUTPUT_H
#define TFPI_STRING_OUTPUT_H

#include "kernel/kernel.h"

typedef struct tp_string_out {
    uint8_t *bytes;
    size_t used, cap;
    size_t *ends; /* end offset of each element made so far */
    int64_t count, made;
} tp_string_out;

/* Starts `count` elements (the buffer of a previous run is reused). */
tfpi_code tp_string_out_begin(tp_op_ctx *ctx, tp_string_out *s, int64_t count);
/* Room for n more bytes of the element being made (valid until the next
 * call); the caller writes k <= n of them and adds k to s->used. NULL with
 * the node's error. */
uint8_t *tp_string_out_reserve(tp_op_ctx *ctx, tp_string_out *s, size_t n);
/* Appends n bytes to the element being made. */
tfpi_code tp_string_out_append(tp_op_ctx *ctx, tp_string_out *s, const void *data, size_t n);
/* Ends the element being made. */
void tp_string_out_end_element(tp_string_out *s);
/* Points the elements of string tensor out (already shaped and allocated,
 * `count` elements) at the bytes made. */
void tp_string_out_finish(const tp_string_out *s, tfpi_tensor *out);
void tp_string_out_free(tp_string_out *s);

#endif
