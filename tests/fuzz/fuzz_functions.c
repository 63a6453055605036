/*
** fuzz_functions.c: every rk_* function on values of every type, and
** properties that must hold for all of them:
**   rk_reverse(rk_reverse(x)) = x for blobs and valid UTF-8 text (text
**   that is not UTF-8 has no characters to reverse; docs/functions.md);
**   rk_undesc(rk_desc(x)) = x for blobs;
**   rk_desc reverses the byte order of two blobs.
** An error result is fine (a bad argument); a crash, a sanitizer report or
** a property returning 0 is a finding.
*/
#include "fuzz_common.h"
#include "key/rk_bytes.h"

#include <stdio.h>

static const char *const azCall[] = {
  "SELECT rk_pad(?1, ?2)",
  "SELECT rk_pad(?1, ?2, ?3)",
  "SELECT rk_desc(?1)",
  "SELECT rk_desc(?1, ?2)",
  "SELECT rk_undesc(?1)",
  "SELECT rk_salt(?1, ?2)",
  "SELECT rk_unsalt(?1, ?2)",
  "SELECT rk_bucket(?1, ?2)",
  "SELECT rk_md5(?1)",
  "SELECT rk_reverse(?1)",
  "SELECT rk_join(?1, ?2, ?3)",
  "SELECT rk_part(?1, ?2, ?3)",
  "SELECT rk_prefix_end(?1)",
  "SELECT rk_desc(rk_pad(?1, ?2))",
  "SELECT rk_part(rk_join('_', ?1, ?2), '_', ?3)",
};

static const char *const azProperty[] = {
  "SELECT typeof(?1) NOT IN ('text', 'blob') OR NOT rk_is_utf8(?1)"
  " OR rk_reverse(rk_reverse(?1)) IS ?1",
  "SELECT typeof(?1) <> 'blob' OR rk_undesc(rk_desc(?1)) = ?1",
  "SELECT typeof(?1) <> 'blob' OR typeof(?2) <> 'blob' OR ?1 = ?2"
  " OR ((?1 < ?2) = (rk_desc(?1) > rk_desc(?2)))",
};

#define N_CALL (sizeof(azCall) / sizeof(azCall[0]))
#define N_PROPERTY (sizeof(azProperty) / sizeof(azProperty[0]))

static void run(sqlite3 *db, const char *zSql, FuzzInput *pIn, int bProperty){
  sqlite3_stmt *pStmt = 0;
  int i, rc;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK ) abort();
  for(i = 1; i <= sqlite3_bind_parameter_count(pStmt); i++){
    fuzzBind(pIn, pStmt, i);
  }
  rc = sqlite3_step(pStmt);
  if( bProperty && rc == SQLITE_ROW && sqlite3_column_type(pStmt, 0) != SQLITE_NULL
   && sqlite3_column_int(pStmt, 0) == 0 ){
    char *zSql = sqlite3_expanded_sql(pStmt);
    fprintf(stderr, "property failed: %s\n", zSql ? zSql : "?");
    sqlite3_free(zSql);
    abort();
  }
  sqlite3_finalize(pStmt);
}

/* rk_is_utf8(x): whether x is text in valid UTF-8 (blobs are not). */
static void isUtf8Func(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  sqlite3_result_int(ctx, sqlite3_value_type(argv[0]) == SQLITE_TEXT
      && rkIsUtf8(sqlite3_value_blob(argv[0]) ? sqlite3_value_blob(argv[0])
                                               : (const void*)"",
                  sqlite3_value_bytes(argv[0])));
}

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  static int bInit = 0;
  sqlite3 *db = fuzzDb();
  FuzzInput in;
  if( !bInit ){
    sqlite3_create_function(db, "rk_is_utf8", 1, SQLITE_UTF8, 0, isUtf8Func, 0, 0);
    bInit = 1;
  }
  in.a = a;
  in.n = n;
  while( in.n > 0 ){
    unsigned k = fuzzByte(&in);
    if( k & 0x80 ){
      run(db, azProperty[(k & 0x7F) % N_PROPERTY], &in, 1);
    }else{
      run(db, azCall[k % N_CALL], &in, 0);
    }
  }
  return 0;
}
