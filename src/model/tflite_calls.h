/* tflite_calls.h - which subgraphs an operator runs (WHILE, IF, CALL_ONCE,
 * CALL), and the load-time check that they exist and never reach
 * themselves. */
#ifndef TFPI_TFLITE_CALLS_H
#define TFPI_TFLITE_CALLS_H

#include "model/tflite_schema.h"

/* The subgraph indices op runs into called[] (-1 for an absent or
 * out-of-range value), with the options field naming each; returns how
 * many (0 for operators that run none). */
int tp_tfl_called_subgraphs(const tp_tfl_model *m, const tp_tfl_operator *op, int32_t called[2],
                            const char *fields[2]);

/* Every called index names a subgraph and the calls have no cycle; one
 * error line otherwise. */
tfpi_code tp_tfl_check_calls(const tp_tfl_model *m, const char *source, tfpi_status *status);

#endif
