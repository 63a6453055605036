/*
** wc_progress.h: progress lines of long work on standard error, as the
** sqlite3 shell's user sees them: loads and copies into widecol tables
** (the writer), widecol_check, widecol_lint, widecol_compact and
** widecol_advise.
**
** A task prints nothing in its first WC_PROGRESS_QUIET_MS, then a line at
** most every WC_PROGRESS_EVERY_MS: what it is doing, the rows done, the
** rate, and with a known total the share done and the time left; and a
** last line when it ends, if it printed any.
**
** On or off for the whole process (standard error is the process's):
** widecol_progress(0 | 1) sets it, widecol_progress() tells it; until
** then the environment's WIDECOL_PROGRESS (0 or 1) does, else it is on
** where standard error is a terminal or the program is the sqlite3 shell.
*/
#ifndef WIDECOL_WC_PROGRESS_H
#define WIDECOL_WC_PROGRESS_H

#include "util/wc_api.h"
#include <stdint.h>

#define WC_PROGRESS_QUIET_MS 2000
#define WC_PROGRESS_EVERY_MS 2000

typedef struct WcProgress WcProgress;
struct WcProgress {
  char zWho[96];        /* "widecol_check(payments)": what prints it */
  const char *zUnit;    /* What is counted: "rows written" */
  int64_t nTotal;       /* Units in all, or -1 if unknown */
  int64_t nDone;
  int64_t nCheckAt;     /* nDone from which the clock is read again */
  int64_t iStartMs;     /* When the task began, */
  int64_t iNextMs;      /* and when the next line is due */
  int nLine;            /* Lines printed */
  int bStarted;         /* Begun, not ended */
  int bActive;          /* and printing */
};

/* True where progress lines are printed. */
int wcProgressOn(void);

/* Begins a task of nTotal units (-1: unknown) named by zWhoFormat. */
void wcProgressBegin(WcProgress *p, const char *zUnit, int64_t nTotal,
                     const char *zWhoFormat, ...);
/* nDone units are done; prints a line if one is due. */
void wcProgressStep(WcProgress *p, int64_t nDone);
/* The task is over: a last line if it printed any.  Harmless on a task
** not begun (a zeroed WcProgress is one). */
void wcProgressEnd(WcProgress *p);

/* widecol_progress([on]): sets whether progress lines are printed (0 or
** 1) and returns the setting, or returns it. */
void wcProgressFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif /* WIDECOL_WC_PROGRESS_H */
