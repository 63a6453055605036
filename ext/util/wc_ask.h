/*
** wc_ask.h: asking SQLite what a connection has (its functions, its
** modules) through its introspection pragmas, instead of reading an
** error's text.  Shared by widecol's files and by its Bigtable store
** (which links this file and wc_buf.c alone of the core).
*/
#ifndef WIDECOL_WC_ASK_H
#define WIDECOL_WC_ASK_H

#include <sqlite3ext.h>

/* True if query zSql, with zName bound to ?1, returns a row; bUnknown if
** it cannot be prepared (a SQLite built without introspection pragmas, an
** authorizer that denies them). */
int wcAskRow(sqlite3 *db, const char *zSql, const char *zName, int bUnknown);

#endif /* WIDECOL_WC_ASK_H */
