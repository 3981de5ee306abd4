/* announce.h - which labels are worth saying: a label is announced when it
 * differs from the last one announced, or when that announcement is
 * repeat_after seconds old. Frames with no confident label change nothing,
 * so a label flickering around the threshold is not repeated. */
#ifndef TFPI_CAMERA_ANNOUNCE_H
#define TFPI_CAMERA_ANNOUNCE_H

#include <stdbool.h>

typedef struct announcer {
    double repeat_after; /* seconds; 0 announces every frame */
    char last[128];      /* the last label announced (a copy), or "" */
    double last_time;
} announcer;

void announcer_init(announcer *a, double repeat_after_seconds);

/* Decides for the confident label of a frame seen at `now` (seconds on any
 * steady clock) and remembers (a copy of) it if announced. */
bool announcer_should_announce(announcer *a, const char *label, double now);

#endif
