/*
** fuzz_common.h: what the fuzz targets share.  Each target defines
** LLVMFuzzerTestOneInput(); built with clang -fsanitize=fuzzer it is a
** libFuzzer binary (make fuzz), built with standalone.c it replays a
** corpus directory (make test, make asan).
**
** The targets link widecol's static library (libwidecol.a, compiled with
** SQLITE_CORE) and register sqlite3_widecol_init as an auto extension, as
** an application that embeds widecol does (widecol.h), so that the
** database they open once has widecol's functions and module.
*/
#ifndef WIDECOL_FUZZ_COMMON_H
#define WIDECOL_FUZZ_COMMON_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_widecol_init(sqlite3*, char**, const sqlite3_api_routines*);

/* A database with widecol loaded, opened on first use. */
static sqlite3 *fuzzDb(void){
  static sqlite3 *db = 0;
  if( db == 0 ){
    sqlite3_auto_extension((void(*)(void))sqlite3_widecol_init);
    if( sqlite3_open(":memory:", &db) != SQLITE_OK ) abort();
  }
  return db;
}

/* Reads the input a piece at a time. */
typedef struct FuzzInput FuzzInput;
struct FuzzInput {
  const uint8_t *a;
  size_t n;
};

static unsigned fuzzByte(FuzzInput *p){
  if( p->n == 0 ) return 0;
  p->n--;
  return *p->a++;
}

static int64_t fuzzInt(FuzzInput *p){
  uint64_t v = 0;
  int i;
  for(i = 0; i < 8; i++) v = (v << 8) | fuzzByte(p);
  return (int64_t)v;
}

/* Up to nMax bytes, as many as the next byte says. */
static const uint8_t *fuzzBytes(FuzzInput *p, size_t nMax, size_t *pn){
  size_t n = fuzzByte(p) % (nMax + 1);
  const uint8_t *a = p->a;
  if( n > p->n ) n = p->n;
  p->a += n;
  p->n -= n;
  *pn = n;
  return a;
}

/* Binds a value of the type the next byte picks. */
static void fuzzBind(FuzzInput *p, sqlite3_stmt *pStmt, int iParam){
  size_t n;
  const uint8_t *a;
  double r;
  int64_t i;
  switch( fuzzByte(p) % 6 ){
    case 0: sqlite3_bind_null(pStmt, iParam); break;
    case 1: sqlite3_bind_int64(pStmt, iParam, fuzzInt(p)); break;
    case 2: sqlite3_bind_int64(pStmt, iParam, (int8_t)fuzzByte(p)); break;
    case 3:
      i = fuzzInt(p);
      memcpy(&r, &i, sizeof(r));
      sqlite3_bind_double(pStmt, iParam, r);
      break;
    case 4:
      a = fuzzBytes(p, 40, &n);
      sqlite3_bind_text(pStmt, iParam, (const char*)a, (int)n, SQLITE_TRANSIENT);
      break;
    default:
      a = fuzzBytes(p, 40, &n);
      sqlite3_bind_blob(pStmt, iParam, a, (int)n, SQLITE_TRANSIENT);
      break;
  }
}

#endif
