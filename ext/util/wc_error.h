/*
** wc_error.h: a virtual table's error message, set in one call.
**
** At the bottom layer so that every layer that reports on a table (the
** store, the planner, the scanner, the writer) reaches it downwards.
*/
#ifndef WIDECOL_WC_ERROR_H
#define WIDECOL_WC_ERROR_H

#include "util/wc_api.h"

/* Sets pVtab's error message (formatted, as sqlite3_mprintf) and returns
** rc, or SQLITE_NOMEM if the message could not be made. */
int wcVtabError(sqlite3_vtab *pVtab, int rc, const char *zFormat, ...);

#endif /* WIDECOL_WC_ERROR_H */
