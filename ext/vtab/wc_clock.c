/*
** wc_clock.c: the clock of versioned tables, widecol_clock(), and the
** message for a misused versions or asof.
**
** A versioned table (VERSIONS n, TTL seconds) keeps its latest version in
** <name>_rows and older ones in <name>_versions (wc_store.c); writes add
** and drop versions (wc_write.c), reads pick them (wc_plan.c, wc_scan.c).
** What they all need from here is the time: see wc_clock.h.
*/
#include "vtab/wc_clock.h"
#include "util/wc_time.h"

#include <string.h>

struct WcClock {
  int nRef;
  int bFrozen;
  int64_t iFrozen;      /* Now, while bFrozen */
};

/* The pointer type widecol_clock() answers with its clock, so that a
** later load finds it (wcClockAttach); SQL cannot make such a value. */
#define WC_CLOCK_POINTER "widecol_clock"

WcClock *wcClockAttach(sqlite3 *db){
  WcClock *pClock = 0;
  sqlite3_stmt *pStmt = 0;
  if( sqlite3_prepare_v2(db, "SELECT widecol_clock(?1)", -1, &pStmt, 0)
      == SQLITE_OK ){
    sqlite3_bind_pointer(pStmt, 1, (void*)&pClock, WC_CLOCK_POINTER, 0);
    sqlite3_step(pStmt);
  }else{
    /* No earlier load.  The failed prepare is the connection's last error
    ** now, and sqlite3_open() fails when an automatic extension leaves
    ** one: a prepare that succeeds clears it. */
    sqlite3_finalize(pStmt);
    pStmt = 0;
    sqlite3_prepare_v2(db, "SELECT 1", -1, &pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  if( pClock == 0 ){
    pClock = sqlite3_malloc(sizeof(*pClock));
    if( pClock ) memset(pClock, 0, sizeof(*pClock));
  }
  return pClock;
}

void wcClockRef(WcClock *pClock){
  wcAssert( pClock->nRef >= 0 );
  pClock->nRef++;
}

void wcClockUnref(void *pArg){
  WcClock *pClock = (WcClock*)pArg;
  wcAssert( pClock == 0 || pClock->nRef > 0 );
  if( pClock && --pClock->nRef <= 0 ) sqlite3_free(pClock);
}

int64_t wcClockNow(const WcClock *pClock){
  if( pClock && pClock->bFrozen ) return pClock->iFrozen;
  return wcWallMicros();
}

int64_t wcClockCutoff(const WcClock *pClock, int64_t nTtl){
  if( nTtl <= 0 ) return INT64_MIN;
  return wcClockNow(pClock) - nTtl * 1000000;
}

void wcClockFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  WcClock *pClock = (WcClock*)sqlite3_user_data(ctx);
  WcClock **ppOut;
  int64_t iNow;
  if( argc == 0 ){
    sqlite3_result_int64(ctx, wcClockNow(pClock));
    return;
  }
  ppOut = (WcClock**)sqlite3_value_pointer(argv[0], WC_CLOCK_POINTER);
  if( ppOut ){
    *ppOut = pClock;
    return;
  }
  if( sqlite3_value_type(argv[0]) == SQLITE_NULL ){
    pClock->bFrozen = 0;
    return;
  }
  iNow = sqlite3_value_int64(argv[0]);
  if( sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER
   || iNow < 0 || iNow > WC_MAX_ROWTIME ){
    char *zErr = sqlite3_mprintf("widecol_clock(micros): micros must be an "
        "integer, microseconds since 1970-01-01 00:00:00 UTC, from 0 to "
        "%lld (9999-12-31), or NULL to let the clock run again; not %Q",
        (long long)WC_MAX_ROWTIME, sqlite3_value_text(argv[0]));
    sqlite3_result_error(ctx, zErr ? zErr : "out of memory", -1);
    sqlite3_free(zErr);
    return;
  }
  pClock->bFrozen = 1;
  pClock->iFrozen = iNow;
  sqlite3_result_int64(ctx, iNow);
}

char *wcVersionParamMisuse(const char *zTable, int bVersions,
                           const char *zHow){
  return sqlite3_mprintf("widecol %s: %s is a parameter of the read, usable "
      "only as %s in the WHERE clause, ANDed with the rest (%s); %s", zTable,
      bVersions ? "versions" : "asof", bVersions ? "versions = n" : "asof = t",
      bVersions ? "the n newest versions of each row, newest first"
                : "each row as it was at time t, microseconds since the epoch",
      zHow);
}

void wcNowFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  (void)argv;
  sqlite3_result_double(ctx, (double)wcClockNow(
      (const WcClock*)sqlite3_user_data(ctx)) / 1e6);
}

void wcClockPin(WcClock *pClock, int64_t iMicros, WcClockState *pSaved){
  wcAssert( iMicros >= 0 && iMicros <= WC_MAX_ROWTIME );
  pSaved->bFrozen = pClock->bFrozen;
  pSaved->iFrozen = pClock->iFrozen;
  pClock->bFrozen = 1;
  pClock->iFrozen = iMicros;
}

void wcClockRestore(WcClock *pClock, const WcClockState *pSaved){
  pClock->bFrozen = pSaved->bFrozen;
  pClock->iFrozen = pSaved->iFrozen;
}
