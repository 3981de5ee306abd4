/* announce.c - the de-duplication rule of announce.h. */
#include "announce.h"

#include <stdio.h>
#include <string.h>

void announcer_init(announcer *a, double repeat_after_seconds)
{
    *a = (announcer){.repeat_after = repeat_after_seconds};
}

bool announcer_should_announce(announcer *a, const char *label, double now)
{
    bool same = a->last[0] && !strncmp(a->last, label, sizeof a->last - 1);
    if (same && now - a->last_time < a->repeat_after)
        return false;
    snprintf(a->last, sizeof a->last, "%s", label);
    a->last_time = now;
    return true;
}
