/*
** widecol.c: entry point of the widecol SQLite extension.
**
** widecol prototypes wide-column (HBase, Cassandra, Lindorm, MapR-DB)
** row-key designs in plain SQL.  Loading it registers the rk_* row-key
** functions and the widecol virtual table module; `.load ./widecol` in the
** sqlite3 shell finds this entry point by the library's file name.
*/
#include "widecol.h"
#include "wc_vtab.h"

SQLITE_EXTENSION_INIT1

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_widecol_init(sqlite3 *db, char **pzErrMsg,
                         const sqlite3_api_routines *pApi){
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  rc = widecolRegisterFunctions(db);
  if( rc == SQLITE_OK ) rc = widecolRegisterModule(db);
  return rc;
}
