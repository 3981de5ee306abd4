/* clock.c - the monotonic clock in microseconds (clock.h). */
#include "core/clock.h"

#include <time.h>

double tp_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}
