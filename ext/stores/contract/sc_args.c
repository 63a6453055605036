/*
** sc_args.c: a store's CREATE VIRTUAL TABLE arguments read into an
** ScArgs (sc_contract.h says their grammar).  SQLite splits the
** arguments at commas; within one, words are separated by white space,
** and a word is bare, quoted ('...' or "...", the quote doubled inside),
** or a blob literal (x'..', SPLITS' keys).
*/
#include "util/wc_api.h"
#include "stores/contract/sc_contract.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int isSpace(char c){
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next word of *pz, unquoted (a blob literal's bytes in *pBlob, if
** given, and "x" returned), or NULL at the end or on OOM; *pz moves past
** it.  *pbBare (if given) is set for a bare word, the only form an
** option's word takes. */
static char *nextWord(const char **pz, WcBuf *pBlob, int *pbBare){
  const char *z = *pz;
  sqlite3_str *pStr;
  if( pbBare ) *pbBare = 0;
  while( isSpace(*z) ) z++;
  if( *z == 0 ){
    *pz = z;
    return 0;
  }
  pStr = sqlite3_str_new(0);
  if( (*z == 'x' || *z == 'X') && z[1] == '\'' && pBlob ){
    z += 2;
    pBlob->n = 0;
    while( z[0] && z[0] != '\'' && z[1] ){
      int hi = z[0] <= '9' ? z[0] - '0' : (z[0] | 0x20) - 'a' + 10;
      int lo = z[1] <= '9' ? z[1] - '0' : (z[1] | 0x20) - 'a' + 10;
      unsigned char c = (unsigned char)(hi * 16 + lo);
      wcBufAppend(pBlob, &c, 1);
      z += 2;
    }
    if( *z == '\'' ) z++;
    sqlite3_str_appendall(pStr, "x");
  }else if( *z == '"' || *z == '\'' ){
    char q = *z++;
    while( *z ){
      if( *z == q ){
        if( z[1] != q ){
          z++;
          break;
        }
        z++;
      }
      sqlite3_str_appendchar(pStr, 1, *z++);
    }
  }else{
    if( pbBare ) *pbBare = 1;
    while( *z && !isSpace(*z) ) sqlite3_str_appendchar(pStr, 1, *z++);
  }
  *pz = z;
  return sqlite3_str_finish(pStr);
}

/* A whole number from word z, at least 0 and at most iMax, or -1. */
static int64_t wholeNumber(const char *z, int64_t iMax){
  char *zEnd = 0;
  long long v;
  if( z == 0 ) return -1;
  v = strtoll(z, &zEnd, 10);
  return zEnd == z || *zEnd || v < 0 || v > iMax ? -1 : v;
}

/* The reading of one CREATE: its table's name (argv[2]) for messages. */
typedef struct ArgReader ArgReader;
struct ArgReader {
  ScArgs *p;
  const char *zTable;
};

/* SPLITS: one argument holds every key (a SALT's or BUCKET's, or any
** number given); counted, then read.  0 or a message. */
static char *readSplits(ArgReader *pR, const char **pz){
  ScArgs *p = pR->p;
  WcBuf scratch;
  WcBuf *aNew;
  const char *zCount = *pz;
  char *zWord;
  int nMore = 0;
  memset(&scratch, 0, sizeof(scratch));
  while( (zWord = nextWord(&zCount, &scratch, 0)) != 0 ){
    sqlite3_free(zWord);
    nMore++;
  }
  wcBufFree(&scratch);
  aNew = sqlite3_realloc64(p->aSplit, sizeof(WcBuf)
                           * ((sqlite3_uint64)p->nSplit + nMore + 1));
  if( aNew == 0 ) return sqlite3_mprintf("out of memory");
  p->aSplit = aNew;
  memset(&p->aSplit[p->nSplit], 0, sizeof(WcBuf) * ((size_t)nMore + 1));
  while( nMore-- > 0
      && (zWord = nextWord(pz, &p->aSplit[p->nSplit], 0)) != 0 ){
    sqlite3_free(zWord);
    p->nSplit++;
  }
  return 0;
}

/* The text after an option that takes one (KEYS, OWNER, DESIGN, SUFFIX)
** into *pzOut: 0 or a message. */
static char *readText(ArgReader *pR, const char *zOption, const char **pz,
                      char **pzOut){
  sqlite3_free(*pzOut);
  *pzOut = nextWord(pz, 0, 0);
  return *pzOut ? 0 : sqlite3_mprintf("%s: %s takes a name", pR->zTable,
                                      zOption);
}

/* A whole number after an option (STAMPS, VERSIONS, TTL): 0 or a
** message. */
static char *readNumber(ArgReader *pR, const char *zOption, const char **pz,
                        int64_t *piOut){
  char *zWord = nextWord(pz, 0, 0);
  *piOut = wholeNumber(zWord, 2147483647);
  sqlite3_free(zWord);
  return *piOut >= 0 ? 0 : sqlite3_mprintf("%s: %s takes a whole number",
                                           pR->zTable, zOption);
}

/* ENTRIES OF '<row table>' i: 0 or a message. */
static char *readEntries(ArgReader *pR, const char **pz){
  ScArgs *p = pR->p;
  char *zOf = nextWord(pz, 0, 0), *zI;
  int bOf = zOf && sqlite3_stricmp(zOf, "OF") == 0;
  sqlite3_free(zOf);
  sqlite3_free(p->zEntriesOf);
  p->zEntriesOf = bOf ? nextWord(pz, 0, 0) : 0;
  zI = nextWord(pz, 0, 0);
  p->iEntry = (int)wholeNumber(zI, 65535);
  sqlite3_free(zI);
  if( p->zEntriesOf == 0 || p->iEntry < 0 ){
    p->iEntry = -1;
    return sqlite3_mprintf("%s: " WC_ARG_ENTRIES " OF '<row table>' n names "
                           "the row table and which of its indexes this is",
                           pR->zTable);
  }
  return 0;
}

/* Reads option zWord (the rest of its argument at *pz): 1 if it was one,
** 0 if zWord names a column, -1 on a bad value (*pzErr set). */
static int readOption(ArgReader *pR, const char *zWord, const char **pz,
                      char **pzErr){
  static const struct { const char *zWord; size_t iFlag; } aFlag[] = {
    { WC_ARG_EXTERNAL, offsetof(ScArgs, bExternal) },
    { WC_ARG_EXISTING, offsetof(ScArgs, bExisting) },
    { WC_ARG_WRITABLE, offsetof(ScArgs, bWritable) },
    { WC_ARG_ROWTIME,  offsetof(ScArgs, bRowtime) },
    { WC_ARG_OLDER,    offsetof(ScArgs, bOlder) },
  };
  ScArgs *p = pR->p;
  int64_t v = 0;
  size_t i;
  for(i = 0; i < sizeof(aFlag) / sizeof(aFlag[0]); i++){
    if( sqlite3_stricmp(zWord, aFlag[i].zWord) == 0 ){
      *(int*)((char*)p + aFlag[i].iFlag) = 1;
      return 1;
    }
  }
  if( sqlite3_stricmp(zWord, "ASYNC_INSERTS") == 0 ){
    return 1;   /* widecol 1.0's: how inserts wait is the store's now */
  }else if( sqlite3_stricmp(zWord, WC_ARG_SPLITS) == 0 ){
    *pzErr = readSplits(pR, pz);
  }else if( sqlite3_stricmp(zWord, WC_ARG_KEYS) == 0 ){
    *pzErr = readText(pR, WC_ARG_KEYS, pz, &p->zKeys);
  }else if( sqlite3_stricmp(zWord, WC_ARG_OWNER) == 0 ){
    *pzErr = readText(pR, WC_ARG_OWNER, pz, &p->zOwner);
  }else if( sqlite3_stricmp(zWord, WC_ARG_DESIGN) == 0 ){
    *pzErr = readText(pR, WC_ARG_DESIGN, pz, &p->zDesign);
  }else if( sqlite3_stricmp(zWord, WC_ARG_SUFFIX) == 0 ){
    *pzErr = readText(pR, WC_ARG_SUFFIX, pz, &p->zSuffix);
  }else if( sqlite3_stricmp(zWord, WC_ARG_ENTRIES) == 0 ){
    *pzErr = readEntries(pR, pz);
  }else if( sqlite3_stricmp(zWord, WC_ARG_STAMPS) == 0 ){
    *pzErr = readNumber(pR, WC_ARG_STAMPS, pz, &v);
    p->bStamps = 1;
    p->nStamp = (int)v;
  }else if( sqlite3_stricmp(zWord, WC_ARG_VERSIONS) == 0 ){
    *pzErr = readNumber(pR, WC_ARG_VERSIONS, pz, &v);
    p->nVersions = (int)v;
  }else if( sqlite3_stricmp(zWord, WC_ARG_TTL) == 0 ){
    *pzErr = readNumber(pR, WC_ARG_TTL, pz, &p->nTtl);
  }else{
    return 0;
  }
  return *pzErr ? -1 : 1;
}

/* After a column's family: CELL '<qualifier>' and how the cell holds the
** value (an EXISTING table's).  0 or a message. */
static char *readCell(ArgReader *pR, ScColumn *pCol, const char **pz){
  static const char *const azType[] = { "STRING", "LONG", "DOUBLE", "BYTES" };
  const char *zRest = *pz;
  int bBare = 0, k;
  char *zWord = nextWord(&zRest, 0, &bBare);
  if( zWord == 0 || !bBare || sqlite3_stricmp(zWord, WC_ARG_CELL) != 0 ){
    sqlite3_free(zWord);
    return 0;
  }
  sqlite3_free(zWord);
  pCol->zQual = nextWord(&zRest, 0, 0);
  zWord = nextWord(&zRest, 0, &bBare);
  for(k = 0; k < 4 && (zWord == 0 || sqlite3_stricmp(zWord, azType[k])); k++){}
  sqlite3_free(zWord);
  *pz = zRest;
  if( pCol->zQual == 0 || k == 4 ){
    return sqlite3_mprintf("%s: column %s: " WC_ARG_CELL " takes a qualifier "
                           "and STRING, LONG, DOUBLE or BYTES", pR->zTable,
                           pCol->zName);
  }
  pCol->eCell = SC_CELL_STRING + k;
  return 0;
}

/* A column, named zName (taken), its definition's rest at *pz: 0 or a
** message. */
static char *readColumn(ArgReader *pR, char *zName, const char **pz){
  ScArgs *p = pR->p;
  ScColumn *pCol = &p->aCol[p->nCol++];
  memset(pCol, 0, sizeof(*pCol));
  pCol->zName = zName;
  pCol->zFamily = nextWord(pz, 0, 0);
  if( pCol->zFamily && sqlite3_stricmp(pCol->zFamily, WC_ARG_KEY) == 0 ){
    sqlite3_free(pCol->zFamily);
    pCol->zFamily = 0;
    pCol->bKey = 1;
  }
  if( pCol->zFamily == 0 ){
    pCol->zFamily = sqlite3_mprintf("%s", WC_DEFAULT_FAMILY);
    if( pCol->zFamily == 0 ) return sqlite3_mprintf("out of memory");
  }
  return pCol->bKey ? 0 : readCell(pR, pCol, pz);
}

char *scArgsRead(ScArgs *p, const WcKind *pKind, int argc,
                 const char *const *argv){
  ArgReader r;
  const char *z;
  char *zErr = 0;
  int i;
  memset(p, 0, sizeof(*p));
  p->nVersions = 1;
  p->iEntry = -1;
  r.p = p;
  r.zTable = argv[2];
  if( argc < 5 ){
    return sqlite3_mprintf("%s %s: arguments are the %s table and the key "
                           "column, then the columns", pKind->zModule,
                           r.zTable, pKind->zEngine);
  }
  z = argv[3];
  p->zResource = nextWord(&z, 0, 0);
  if( p->zResource == 0 || !wcKindValidName(pKind->eStore, p->zResource) ){
    return sqlite3_mprintf("%s: %s is not a%s %s table name; write %s",
                           r.zTable, argv[3],
                           pKind->zEngine[0] == 'H' ? "n" : "",
                           pKind->zEngine, pKind->zForm);
  }
  z = argv[4];
  p->zKeyColumn = nextWord(&z, 0, 0);
  p->aCol = sqlite3_malloc64(sizeof(ScColumn) * (sqlite3_uint64)argc);
  if( p->zKeyColumn == 0 || p->aCol == 0 ){
    return sqlite3_mprintf("out of memory");
  }
  for(i = 5; i < argc && zErr == 0; i++){
    int bBare, r2;
    char *zWord;
    z = argv[i];
    zWord = nextWord(&z, 0, &bBare);
    if( zWord == 0 ) continue;
    r2 = bBare ? readOption(&r, zWord, &z, &zErr) : 0;
    if( r2 != 0 ){
      sqlite3_free(zWord);
    }else{
      zErr = readColumn(&r, zWord, &z);
    }
  }
  if( zErr == 0 && p->bOlder && !p->bRowtime ){
    zErr = sqlite3_mprintf("%s: " WC_ARG_OLDER " shows versions, which need "
                           WC_ARG_ROWTIME, r.zTable);
  }
  wcAssert( zErr || (p->nCol <= argc - 5 && p->zResource && p->zKeyColumn) );
  return zErr;
}

void scArgsClear(ScArgs *p){
  int i;
  for(i = 0; i < p->nCol; i++){
    sqlite3_free(p->aCol[i].zName);
    sqlite3_free(p->aCol[i].zFamily);
    sqlite3_free(p->aCol[i].zQual);
  }
  for(i = 0; i < p->nSplit; i++) wcBufFree(&p->aSplit[i]);
  sqlite3_free(p->aCol);
  sqlite3_free(p->aSplit);
  sqlite3_free(p->zResource);
  sqlite3_free(p->zKeyColumn);
  sqlite3_free(p->zKeys);
  sqlite3_free(p->zOwner);
  sqlite3_free(p->zDesign);
  sqlite3_free(p->zSuffix);
  sqlite3_free(p->zEntriesOf);
  memset(p, 0, sizeof(*p));
}

char *scTableName(const char *zName, const char *zSuffix){
  size_t n = strlen(zName), nSuffix = zSuffix ? strlen(zSuffix) : 0;
  if( nSuffix == 0 || nSuffix >= n
   || sqlite3_stricmp(zName + n - nSuffix, zSuffix) != 0 ){
    nSuffix = 0;
  }
  return sqlite3_mprintf("%.*s", (int)(n - nSuffix), zName);
}
