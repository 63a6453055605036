/*
** wc_ask.c: wcAskRow() (see wc_ask.h).
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
