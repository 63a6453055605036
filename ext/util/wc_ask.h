/*
** wc_ask.h: asking SQLite what a connection has (its functions, its
** modules) through its introspection pragmas, instead of reading an
** error's text.  Shared by widecol's files and its store libraries.
*/
#ifndef WIDECOL_WC_ASK_H
#define WIDECOL_WC_ASK_H

#include <sqlite3ext.h>

/* True if query zSql, with zName bound to ?1, returns a row; bUnknown if
** it cannot be prepared (a SQLite built without introspection pragmas, an
** authorizer that denies them). */
int wcAskRow(sqlite3 *db, const char *zSql, const char *zName, int bUnknown);

/* False if the connection has no widecol module: a store library is
** reached only through it (where the pragma cannot say, assumed there). */
int wcWidecolLoaded(sqlite3 *db);

/* True if the statement running on pProbe's connection was interrupted:
** stepping pProbe ("SELECT 1", prepared once) fails with SQLITE_INTERRUPT
** while an interrupt is pending (SQLite clears it only when no statement
** runs, and the caller runs inside the one interrupted).  SQLite 3.41's sqlite3_is_interrupted()
** says the same, but widecol builds against older SQLites.  A NULL pProbe
** is never interrupted. */
int wcAskInterrupted(sqlite3_stmt *pProbe);

#endif /* WIDECOL_WC_ASK_H */
