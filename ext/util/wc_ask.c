/*
** wc_ask.c: asking SQLite what a connection has (see wc_ask.h).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "util/wc_ask.h"

int wcAskRow(sqlite3 *db, const char *zSql, const char *zName, int bUnknown){
  sqlite3_stmt *pStmt = 0;
  int bRow = bUnknown;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_STATIC);
    bRow = sqlite3_step(pStmt) == SQLITE_ROW;
  }
  sqlite3_finalize(pStmt);
  return bRow;
}

int wcWidecolLoaded(sqlite3 *db){
  return wcAskRow(db, "SELECT 1 FROM pragma_module_list WHERE name = ?1",
                  "widecol", 1);
}

int wcAskInterrupted(sqlite3_stmt *pProbe){
  int rc;
  if( pProbe == 0 ) return 0;
  rc = sqlite3_step(pProbe);
  sqlite3_reset(pProbe);
  return rc == SQLITE_INTERRUPT;
}
