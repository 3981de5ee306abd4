/* clock.h - the monotonic clock the per-node profiles are timed with. */
#ifndef TFPI_CLOCK_H
#define TFPI_CLOCK_H

/* Monotonic clock in microseconds. */
double tp_now_us(void);

#endif
