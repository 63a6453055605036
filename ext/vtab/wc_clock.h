/*
** wc_clock.h: the time of versioned widecol tables (VERSIONS, TTL).
**
** Each connection has one clock (WcClock): the system's, in microseconds
** since the Unix epoch, unless widecol_clock(<micros>) froze it for tests
** and demos.  A write stamps versions with it and a read hides the
** versions a TTL has expired by it.  The clock belongs to the widecol
** module's registration and widecol_clock()'s (both hold a reference), and
** a later load of the extension on the same connection finds the clock
** the earlier one made, so tables connected before keep seeing the clock
** the function sets.
*/
#ifndef WIDECOL_WC_CLOCK_H
#define WIDECOL_WC_CLOCK_H

#include "util/wc_api.h"
#include <stdint.h>

/* The latest timestamp a version may have: 9999-12-31 23:59:59.999999
** UTC, in microseconds; the earliest is 0, the epoch. */
#define WC_MAX_ROWTIME INT64_C(253402300799999999)

typedef struct WcClock WcClock;

/* The connection's clock: the one an earlier load made, or a new one, with
** no reference taken yet; NULL if out of memory. */
WcClock *wcClockAttach(sqlite3 *db);
/* References: each registration that hands the clock to SQLite takes one
** first, and SQLite drops it (wcClockUnref is the destructor). */
void wcClockRef(WcClock *pClock);
void wcClockUnref(void *pClock);

/* Now, in microseconds since the epoch: frozen, or the system's. */
int64_t wcClockNow(const WcClock *pClock);
/* The earliest rowtime a TTL of nTtl seconds (0: none) leaves visible
** now. */
int64_t wcClockCutoff(const WcClock *pClock, int64_t nTtl);

/* "widecol <table>: versions is a parameter of the read, usable only as
** versions = n ... (what it reads)" (or asof's), for the messages of a
** misuse, which add how it was used; from sqlite3_mprintf(). */
char *wcVersionParamMisuse(const char *zTable, int bVersions,
                           const char *zHow);

/* widecol_clock(micros | NULL) and widecol_clock(): freeze, release or
** read the connection's clock.  User data: the WcClock. */
void wcClockFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
/* widecol_now(): the clock in seconds since the epoch, a REAL: what a
** statement of a workload compares times with ("the last 5 minutes"). */
void wcNowFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* The clock's state, kept to be put back: a tool pins the clock at the
** data's latest time while it runs a workload, so that widecol_now() is
** that time, and then restores what the user had. */
typedef struct WcClockState WcClockState;
struct WcClockState {
  int bFrozen;
  int64_t iFrozen;
};
void wcClockPin(WcClock *pClock, int64_t iMicros, WcClockState *pSaved);
void wcClockRestore(WcClock *pClock, const WcClockState *pSaved);

#endif /* WIDECOL_WC_CLOCK_H */
