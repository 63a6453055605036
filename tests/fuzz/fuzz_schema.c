/*
** fuzz_schema.c: the CREATE VIRTUAL TABLE argument parser.  The input is
** split at newlines into module arguments; whatever it is, parsing must
** end in a schema or an error message, never a crash, a leak or undefined
** behaviour, and a schema must give a CREATE TABLE declaration.
*/
#include "fuzz_common.h"
#include "key/wc_schema.h"

#include <string.h>

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  sqlite3 *db = fuzzDb();
  char *zText = malloc(n + 1), *azArg[MAX_ARGS], *zErr = 0;
  int nArg = 0;
  size_t i, iStart = 0;
  WcSchema *pS;
  if( zText == 0 ) return 0;
  memcpy(zText, a, n);
  zText[n] = 0;
  for(i = 0; i <= n && nArg < MAX_ARGS; i++){
    if( i == n || zText[i] == '\n' || zText[i] == 0 ){
      zText[i] = 0;
      azArg[nArg++] = &zText[iStart];
      iStart = i + 1;
    }
  }
  pS = wcSchemaParse("t", nArg, (const char *const*)azArg, 1, &zErr);
  if( pS ){
    char *zDecl = wcSchemaDeclaration(pS, pS->eStore != WC_STORE_LOCAL);
    sqlite3_stmt *pStmt = 0;
    /* The declaration parses unless a declared type does not (a type
    ** is passed on as written; SQLite then reports the syntax error). */
    if( zDecl == 0 || strncmp(zDecl, "CREATE TABLE x(", 15) != 0 ) abort();
    sqlite3_prepare_v2(db, zDecl, -1, &pStmt, 0);
    sqlite3_finalize(pStmt);
    sqlite3_free(zDecl);
    wcSchemaFree(pS);
  }else if( zErr == 0 ){
    abort();    /* every failure explains itself */
  }
  sqlite3_free(zErr);
  free(zText);
  return 0;
}
