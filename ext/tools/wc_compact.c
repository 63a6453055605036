/*
** wc_compact.c: widecol_compact('<table>'), which removes the versions a
** table's TTL has expired (and any past its VERSIONS), as HBase's major
** compaction does.  The work is the table's (wcTableCompact, wc_table.h);
** this is the SQL function around it.
*/
#include "tools/wc_tools.h"
#include "vtab/wc_table.h"

/* widecol_compact('<table>'): {"rows":R,"versions":V}, what it removed. */
void wcCompactFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  char *zErr = 0, *zJson;
  int64_t nRow = 0, nVersion = 0;
  WcVtab *p;
  int rc;
  (void)argc;
  if( zName == 0 ) return;
  rc = wcTableLookup(sqlite3_context_db_handle(ctx), zName,
                     "widecol_compact(table)", &p, &zErr);
  if( rc == SQLITE_OK ){
    rc = wcTableCompact(p, &nRow, &nVersion);
    if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
      zErr = sqlite3_mprintf("%s", wcTableErrmsg(p));
    }
  }
  if( rc != SQLITE_OK ){
    if( zErr ) sqlite3_result_error(ctx, zErr, -1);
    else sqlite3_result_error_code(ctx, rc);
    sqlite3_free(zErr);
    return;
  }
  zJson = sqlite3_mprintf("{\"rows\":%lld,\"versions\":%lld}",
                          (long long)nRow, (long long)nVersion);
  if( zJson == 0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, zJson, -1, sqlite3_free);
}
