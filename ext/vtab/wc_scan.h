/*
** wc_scan.h: the cursor methods (wc_scan.c), for the module's method table
** (wc_vtab.c).  The cursor itself is private to wc_scan.c.
*/
#ifndef WIDECOL_WC_SCAN_H
#define WIDECOL_WC_SCAN_H

#include "vtab/wc_vtab.h"

int wcScanOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur);
int wcScanClose(sqlite3_vtab_cursor *pCur);
int wcScanFilter(sqlite3_vtab_cursor *pCur, int idxNum, const char *idxStr,
                 int argc, sqlite3_value **argv);
int wcScanNext(sqlite3_vtab_cursor *pCur);
int wcScanEof(sqlite3_vtab_cursor *pCur);
int wcScanColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int i);
int wcScanRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid);
/* Frees the closed cursor the table keeps for its next xOpen. */
void wcScanFreeSpare(WcVtab *p);

#endif /* WIDECOL_WC_SCAN_H */
