/*
** embed.c: widecol compiled into an application, beside the system's
** SQLite.
**
** The application links libwidecol.a (built with SQLITE_CORE, as SQLite's
** own extensions are when compiled in), registers widecol once with
** sqlite3_auto_extension(), and every connection it opens after that has
** the widecol module and functions, with no extension loading at all.
**
**   cc -o embed examples/embed.c $(pkg-config --cflags --libs widecol)
**   ./embed                      (make examples builds it from the tree)
*/
#include <sqlite3.h>
#include <widecol.h>

#include <stdio.h>

static int printRow(void *pArg, int nCol, char **azVal, char **azCol){
  int i;
  (void)pArg;
  (void)azCol;
  for(i = 0; i < nCol; i++){
    printf("%s%s", i ? " | " : "", azVal[i] ? azVal[i] : "NULL");
  }
  printf("\n");
  return 0;
}

static int run(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  int rc = sqlite3_exec(db, zSql, printRow, 0, &zErr);
  if( rc != SQLITE_OK ){
    fprintf(stderr, "embed: %s\n  in: %s\n", zErr ? zErr : sqlite3_errstr(rc),
            zSql);
    sqlite3_free(zErr);
  }
  return rc;
}

int main(void){
  sqlite3 *db = 0;
  int rc = sqlite3_auto_extension((void(*)(void))sqlite3_widecol_init);
  if( rc == SQLITE_OK ) rc = sqlite3_open(":memory:", &db);
  if( rc != SQLITE_OK ){
    fprintf(stderr, "embed: cannot open a database: %s\n", sqlite3_errstr(rc));
    return 1;
  }
  printf("SQLite %s, widecol.h %s\n", sqlite3_libversion(), WIDECOL_VERSION);
  if( run(db, "SELECT 'widecol_version() = ' || widecol_version()")
   || run(db, "CREATE VIRTUAL TABLE payments USING widecol("
              "customer_id INTEGER, paid_at TEXT, payment_id INTEGER, "
              "amount REAL, ROWKEY(customer_id PAD 6, paid_at, "
              "payment_id PAD 9))")
   || run(db, "INSERT INTO payments VALUES "
              "(1, '2017-01-01 09:00', 5001, 10.5), "
              "(1, '2017-01-02 10:30', 5002, 20.0), "
              "(2, '2017-01-01 12:00', 5003, 7.25)")
   || run(db, "SELECT CAST(rowkey AS TEXT), amount FROM payments "
              "WHERE customer_id = 1 AND paid_at >= '2017-01-02'")
   || run(db, "EXPLAIN QUERY PLAN SELECT * FROM payments "
              "WHERE customer_id = 1") ){
    sqlite3_close(db);
    return 1;
  }
  sqlite3_close(db);
  return 0;
}
