/*
** wc_progress.c: progress lines on standard error (see wc_progress.h).
*/
#ifndef _GNU_SOURCE
# define _GNU_SOURCE     /* program_invocation_short_name */
#endif
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "util/wc_progress.h"
#include "util/wc_time.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* -1 until decided (the environment, the terminal), then 0 or 1.  One
** setting for the process, as standard error is; an int read and written
** whole, so a race between connections can only pick either setting. */
static volatile int progressSetting = -1;

int wcProgressOn(void){
  int b = progressSetting;
  if( b < 0 ){
    const char *zEnv = getenv("WIDECOL_PROGRESS");
    if( zEnv && (strcmp(zEnv, "0") == 0 || strcmp(zEnv, "1") == 0) ){
      b = zEnv[0] == '1';
    }else{
      b = isatty(2);
#ifdef __GLIBC__
      b |= strncmp(program_invocation_short_name, "sqlite3", 7) == 0;
#endif
    }
    progressSetting = b;
  }
  return b;
}

void wcProgressBegin(WcProgress *p, const char *zUnit, int64_t nTotal,
                     const char *zWhoFormat, ...){
  va_list ap;
  memset(p, 0, sizeof(*p));
  va_start(ap, zWhoFormat);
  sqlite3_vsnprintf((int)sizeof(p->zWho), p->zWho, zWhoFormat, ap);
  va_end(ap);
  p->zUnit = zUnit;
  p->nTotal = nTotal;
  p->iStartMs = wcMonotonicMs();
  p->iNextMs = p->iStartMs + WC_PROGRESS_QUIET_MS;
  p->bStarted = 1;
  p->bActive = wcProgressOn();
}

/* One line: "<who>: [12s] 120000 rows written, 30000 a second[, 40%,
** about 18 s left]". */
static void progressLine(WcProgress *p, int64_t iNow, const char *zEnd){
  int64_t nMs = iNow - p->iStartMs;
  double rRate = nMs > 0 ? (double)p->nDone * 1000.0 / (double)nMs : 0.0;
  char zTail[96];
  zTail[0] = 0;
  if( p->nTotal > 0 && zEnd == 0 ){
    int64_t nPct = p->nDone * 100 / p->nTotal;
    if( nPct > 99 ) nPct = 99;
    sqlite3_snprintf((int)sizeof(zTail), zTail, ", %lld%%", (long long)nPct);
    if( rRate > 0.0 && p->nDone < p->nTotal ){
      int n = (int)strlen(zTail);
      double rLeft = (double)(p->nTotal - p->nDone) / rRate;
      if( rLeft < 1.0 ){
        sqlite3_snprintf((int)sizeof(zTail) - n, zTail + n,
                         ", under a second left");
      }else{
        sqlite3_snprintf((int)sizeof(zTail) - n, zTail + n,
                         ", about %.0f s left", rLeft);
      }
    }
  }
  fprintf(stderr, "%s: [%.1fs] %lld %s, %.0f a second%s%s\n", p->zWho,
          (double)nMs / 1000.0, (long long)p->nDone, p->zUnit, rRate, zTail,
          zEnd ? zEnd : "");
  fflush(stderr);
  p->nLine++;
}

void wcProgressStep(WcProgress *p, int64_t nDone){
  int64_t iNow;
  p->nDone = nDone;
  /* A step may be every row: the clock is read every 1/64 of the units
  ** done so far (every step while they are few). */
  if( !p->bActive || nDone < p->nCheckAt ) return;
  p->nCheckAt = nDone + 1 + nDone / 64;
  iNow = wcMonotonicMs();
  if( iNow < p->iNextMs ) return;
  progressLine(p, iNow, 0);
  p->iNextMs = iNow + WC_PROGRESS_EVERY_MS;
}

void wcProgressEnd(WcProgress *p){
  if( p->bActive && p->nLine > 0 ) progressLine(p, wcMonotonicMs(), ", done");
  p->bActive = p->bStarted = 0;
}

void wcProgressFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  if( argc == 1 ){
    if( sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER
     || (sqlite3_value_int64(argv[0]) != 0
         && sqlite3_value_int64(argv[0]) != 1) ){
      char *zErr = sqlite3_mprintf("widecol_progress(on): on is 1 (print "
          "progress lines of long statements on standard error) or 0 (do "
          "not), not %Q", sqlite3_value_text(argv[0]));
      sqlite3_result_error(ctx, zErr ? zErr : "out of memory", -1);
      sqlite3_free(zErr);
      return;
    }
    progressSetting = sqlite3_value_int(argv[0]);
  }
  sqlite3_result_int(ctx, wcProgressOn());
}
