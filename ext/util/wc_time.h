/*
** wc_time.h: the two clocks widecol reads, each read in one place: the
** monotonic clock in milliseconds, for deadlines, backoff and progress
** lines (it never steps back), and the wall clock in microseconds, for
** the times written with cells and compared with a TTL.
*/
#ifndef WIDECOL_WC_TIME_H
#define WIDECOL_WC_TIME_H

#include <stdint.h>

/* Milliseconds on the monotonic clock (CLOCK_MONOTONIC). */
int64_t wcMonotonicMs(void);
/* Microseconds since 1970-01-01 00:00:00 UTC (CLOCK_REALTIME). */
int64_t wcWallMicros(void);

#endif /* WIDECOL_WC_TIME_H */
