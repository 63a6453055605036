/*
** slt.c: the sqllogictest runner of widecol's tests.
**
** It reads scripts in the format of SQLite's sqllogictest project and runs
** them on the system SQLite, in a fresh database file per script, with the
** extensions named by --extension loaded (in the order given).  Usage:
**
**   slt [--extension PATH]... [--defensive] [--verbose] SCRIPT...
**
** --defensive opens every database with SQLITE_DBCONFIG_DEFENSIVE, as
** applications that protect shadow tables do.
**
** The format is the original's (records separated by blank lines, '#'
** comments, statement ok|error, query <types> [nosort|rowsort|valuesort]
** [label], hash-threshold, skipif/onlyif <engine>, halt, NULL, (empty),
** %.3f for R, '@' for unprintable characters, MD5 hashes of the values
** each followed by a newline), so a file from that project runs unchanged.
** Additions, none of which changes the meaning of an original file:
**   - `statement error` may end with a `----` line followed by text the
**     error message must contain (as DuckDB does), or be followed on its
**     own line by that text;
**   - query results may be written one row per line, values separated by
**     one space, instead of one value per line;
**   - I columns show the full 64-bit integer (the original truncates to
**     32 bits; values in its own suite all fit);
**   - an error while stepping a query fails it (the original stops reading
**     rows and compares what it got), and a query record must hold one
**     statement;
**   - a `reopen` record closes the database and opens the same file again,
**     loading the extension anew, to test what survives a reopen;
**   - "INDEX #:" in an expected value matches "INDEX <digits>:", so that
**     EXPLAIN QUERY PLAN expectations need not pin a virtual table's
**     idxNum (widecol's are hashes of the plan).
** The engine name for skipif/onlyif is "sqlite".  The last line printed
** is always "N passed, N failed"; the exit code is 1 if any record failed.
*/
#include <ctype.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEFAULT_HASH_THRESHOLD 8
#define ENGINE_NAME "sqlite"
#define MAX_TOKEN 4
#define MAX_LABEL 20          /* the original compares labels this long */
#define MAX_SHOWN_VALUES 60   /* values printed for a mismatch */

/* One line of a script, comments removed. */
typedef struct Line Line;
struct Line {
  char *z;
  int iLine;                  /* 1-based line number in the file */
};

/* A record: the lines of one blank-line-separated block. */
typedef struct Record Record;
struct Record {
  Line *aLine;
  int nLine;
};

/* A query's results rendered as the format shows them. */
typedef struct Results Results;
struct Results {
  char **azValue;
  int nValue;
  int nAlloc;
  int nColumn;
};

/* A label and the MD5 of the first results that carried it. */
typedef struct Label Label;
struct Label {
  char zName[MAX_LABEL + 1];
  char zHash[33];
  Label *pNext;
};

/* The state of the script being run. */
typedef struct Runner Runner;
struct Runner {
  const char *zFile;
  const char *azExtension[4];
  int nExtension;
  const char *zDbPath;
  int bVerbose;
  int bDefensive;
  sqlite3 *db;
  int hashThreshold;
  Label *pLabels;
  int nPass, nFail, nSkip;
};

static void *checkedAlloc(void *p){
  if( p == 0 ){
    fprintf(stderr, "slt: out of memory\n");
    exit(2);
  }
  return p;
}

/* Reports one failed record, in the file:line: form editors jump to. */
static void failf(Runner *p, int iLine, const char *zFormat, ...){
  va_list ap;
  printf("%s:%d: ", p->zFile, iLine);
  va_start(ap, zFormat);
  vprintf(zFormat, ap);
  va_end(ap);
  printf("\n");
  p->nFail++;
}

/*
** Reading a script.
*/

static char *readFile(const char *zPath){
  FILE *in = fopen(zPath, "rb");
  char *z;
  long n;
  if( in == 0 ) return 0;
  fseek(in, 0, SEEK_END);
  n = ftell(in);
  fseek(in, 0, SEEK_SET);
  z = checkedAlloc(malloc((size_t)n + 1));
  n = (long)fread(z, 1, (size_t)n, in);
  fclose(in);
  z[n] = 0;
  return z;
}

static int isBlank(const char *z){
  while( isspace((unsigned char)*z) ) z++;
  return *z == 0;
}

/* Splits zScript into lines in place, dropping comment lines: as in the
** original, a comment is not blank and does not end a record. */
static Line *splitLines(char *zScript, int *pnLine){
  int nAlloc = 256, n = 0, iLine = 0;
  Line *aLine = checkedAlloc(malloc(nAlloc * sizeof(Line)));
  char *z = zScript;
  while( *z ){
    char *zEnd = strchr(z, '\n');
    char *zNext = zEnd ? zEnd + 1 : z + strlen(z);
    if( zEnd ) *zEnd = 0;
    if( zEnd && zEnd > z && zEnd[-1] == '\r' ) zEnd[-1] = 0;
    iLine++;
    if( z[0] != '#' ){
      if( n == nAlloc ){
        nAlloc *= 2;
        aLine = checkedAlloc(realloc(aLine, nAlloc * sizeof(Line)));
      }
      aLine[n].z = isBlank(z) ? "" : z;
      aLine[n].iLine = iLine;
      n++;
    }
    z = zNext;
  }
  *pnLine = n;
  return aLine;
}

/* Splits the first line of a record into up to MAX_TOKEN tokens. */
static int tokenize(char *zLine, char azToken[MAX_TOKEN][200]){
  int n = 0;
  char *z = zLine;
  memset(azToken, 0, MAX_TOKEN * 200);
  while( n < MAX_TOKEN ){
    size_t len = 0;
    while( isspace((unsigned char)*z) ) z++;
    if( *z == 0 ) break;
    while( z[len] && !isspace((unsigned char)z[len]) ) len++;
    if( len > 199 ) len = 199;
    memcpy(azToken[n++], z, len);
    z += len;
    while( *z && !isspace((unsigned char)*z) ) z++;
  }
  return n;
}

/* Joins lines [iFrom, iTo) of a record with newlines into a new string. */
static char *joinLines(Record *pRec, int iFrom, int iTo){
  size_t n = 1;
  int i;
  char *z;
  for(i = iFrom; i < iTo; i++) n += strlen(pRec->aLine[i].z) + 1;
  z = checkedAlloc(malloc(n));
  z[0] = 0;
  for(i = iFrom; i < iTo; i++){
    if( i > iFrom ) strcat(z, "\n");
    strcat(z, pRec->aLine[i].z);
  }
  return z;
}

/* Index of the "----" line of a record at or after iFrom, or nLine. */
static int findSeparator(Record *pRec, int iFrom){
  int i;
  for(i = iFrom; i < pRec->nLine; i++){
    if( strcmp(pRec->aLine[i].z, "----") == 0 ) return i;
  }
  return pRec->nLine;
}

/*
** Results and hashing.
*/

static void appendValue(Results *pRes, const char *z){
  if( pRes->nValue == pRes->nAlloc ){
    pRes->nAlloc = pRes->nAlloc ? pRes->nAlloc * 2 : 64;
    pRes->azValue = checkedAlloc(realloc(pRes->azValue,
                                         pRes->nAlloc * sizeof(char*)));
  }
  pRes->azValue[pRes->nValue++] = checkedAlloc(strdup(z));
}

static void freeResults(Results *pRes){
  int i;
  for(i = 0; i < pRes->nValue; i++) free(pRes->azValue[i]);
  free(pRes->azValue);
  memset(pRes, 0, sizeof(*pRes));
}

/* Renders column iCol of the current row as the original does. */
static void renderValue(sqlite3_stmt *pStmt, int iCol, char cType,
                        Results *pRes){
  char zBuf[64];
  if( sqlite3_column_type(pStmt, iCol) == SQLITE_NULL ){
    appendValue(pRes, "NULL");
  }else if( cType == 'T' ){
    const char *zText = (const char*)sqlite3_column_text(pStmt, iCol);
    unsigned char *z;
    appendValue(pRes, zText && zText[0] ? zText : "(empty)");
    for(z = (unsigned char*)pRes->azValue[pRes->nValue - 1]; *z; z++){
      if( *z < ' ' || *z > '~' ) *z = '@';
    }
  }else if( cType == 'I' ){
    sqlite3_snprintf(sizeof(zBuf), zBuf, "%lld",
                     sqlite3_column_int64(pStmt, iCol));
    appendValue(pRes, zBuf);
  }else{
    sqlite3_snprintf(sizeof(zBuf), zBuf, "%.3f",
                     sqlite3_column_double(pStmt, iCol));
    appendValue(pRes, zBuf);
  }
}

static int gnSortColumn;

static int compareRows(const void *pA, const void *pB){
  char *const *azA = pA;
  char *const *azB = pB;
  int i, c = 0;
  for(i = 0; c == 0 && i < gnSortColumn; i++) c = strcmp(azA[i], azB[i]);
  return c;
}

static void sortResults(Results *pRes, const char *zMode){
  if( strcmp(zMode, "rowsort") == 0 ){
    gnSortColumn = pRes->nColumn;
    qsort(pRes->azValue, pRes->nValue / pRes->nColumn,
          pRes->nColumn * sizeof(char*), compareRows);
  }else if( strcmp(zMode, "valuesort") == 0 ){
    gnSortColumn = 1;
    qsort(pRes->azValue, pRes->nValue, sizeof(char*), compareRows);
  }
}

/* MD5, as lowercase hex, of the strings each followed by a newline. */
static void hashValues(char **az, int n, char zHash[33]){
  static const char aHexDigit[] = "0123456789abcdef";
  EVP_MD_CTX *pCtx = checkedAlloc(EVP_MD_CTX_new());
  unsigned char aDigest[16];
  unsigned int nDigest = 0, i;
  int j;
  EVP_DigestInit_ex(pCtx, EVP_md5(), NULL);
  for(j = 0; j < n; j++){
    EVP_DigestUpdate(pCtx, az[j], strlen(az[j]));
    EVP_DigestUpdate(pCtx, "\n", 1);
  }
  EVP_DigestFinal_ex(pCtx, aDigest, &nDigest);
  EVP_MD_CTX_free(pCtx);
  for(i = 0; i < 16; i++){
    zHash[2 * i] = aHexDigit[aDigest[i] >> 4];
    zHash[2 * i + 1] = aHexDigit[aDigest[i] & 0x0F];
  }
  zHash[32] = 0;
}

/* Records the hash of a label the first time and returns 0, or returns 1
** if the label was seen before with a different hash. */
static int checkLabel(Runner *p, const char *zLabel, const char *zHash){
  Label *pLabel;
  char zName[MAX_LABEL + 1];
  snprintf(zName, sizeof(zName), "%s", zLabel);
  for(pLabel = p->pLabels; pLabel; pLabel = pLabel->pNext){
    if( strcmp(pLabel->zName, zName) == 0 ){
      return strcmp(pLabel->zHash, zHash) != 0;
    }
  }
  pLabel = checkedAlloc(calloc(1, sizeof(*pLabel)));
  memcpy(pLabel->zName, zName, sizeof(zName));
  memcpy(pLabel->zHash, zHash, 33);
  pLabel->pNext = p->pLabels;
  p->pLabels = pLabel;
  return 0;
}

/*
** Records.
*/

static void runStatement(Runner *p, Record *pRec, const char *zMode){
  int iSep = findSeparator(pRec, 1);
  int bExpectError = strcmp(zMode, "error") == 0;
  int iLine = pRec->aLine[0].iLine;
  char *zSql, *zWant = 0, *zErr = 0;
  int rc;
  if( !bExpectError && strcmp(zMode, "ok") != 0 ){
    failf(p, iLine, "statement argument should be 'ok' or 'error', not '%s'",
          zMode);
    return;
  }
  zSql = joinLines(pRec, 1, iSep);
  if( bExpectError && iSep < pRec->nLine ){
    zWant = joinLines(pRec, iSep + 1, pRec->nLine);
  }else if( bExpectError ){
    /* "statement error <text>": the text, if any, must be in the message. */
    const char *z = strstr(pRec->aLine[0].z, "error") + 5;
    while( isspace((unsigned char)*z) ) z++;
    if( *z ) zWant = checkedAlloc(strdup(z));
  }
  rc = sqlite3_exec(p->db, zSql, 0, 0, &zErr);
  if( !bExpectError && rc != SQLITE_OK ){
    failf(p, iLine, "statement failed: %s\n%s", zErr ? zErr : "?", zSql);
  }else if( bExpectError && rc == SQLITE_OK ){
    failf(p, iLine, "statement succeeded but an error was expected\n%s",
          zSql);
  }else if( zWant && strstr(zErr ? zErr : "", zWant) == 0 ){
    failf(p, iLine, "wrong error message\n%s\nexpected it to contain: %s\n"
          "got: %s", zSql, zWant, zErr ? zErr : "");
  }else{
    p->nPass++;
  }
  sqlite3_free(zErr);
  free(zSql);
  free(zWant);
}

/* Runs the query's SQL into pRes.  Returns 0 on success, or reports the
** failure and returns 1. */
static int runQuerySql(Runner *p, int iLine, const char *zSql,
                       const char *zTypes, Results *pRes){
  sqlite3_stmt *pStmt = 0;
  const char *zTail = 0;
  int nCol, i, rc;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, &zTail);
  if( rc != SQLITE_OK ){
    failf(p, iLine, "query failed to prepare: %s\n%s", sqlite3_errmsg(p->db),
          zSql);
    return 1;
  }
  if( pStmt == 0 || !isBlank(zTail) ){
    failf(p, iLine, "a query record must hold exactly one statement\n%s",
          zSql);
    sqlite3_finalize(pStmt);
    return 1;
  }
  nCol = sqlite3_column_count(pStmt);
  if( nCol != (int)strlen(zTypes) ){
    failf(p, iLine, "wrong number of result columns: the type string '%s' "
          "says %d, the query returns %d\n%s", zTypes, (int)strlen(zTypes),
          nCol, zSql);
    sqlite3_finalize(pStmt);
    return 1;
  }
  pRes->nColumn = nCol;
  while( (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    for(i = 0; i < nCol; i++) renderValue(pStmt, i, zTypes[i], pRes);
  }
  if( rc != SQLITE_DONE ){
    failf(p, iLine, "query failed: %s\n%s", sqlite3_errmsg(p->db), zSql);
    sqlite3_finalize(pStmt);
    return 1;
  }
  sqlite3_finalize(pStmt);
  return 0;
}

/* True if the expected lines match the values one per line, or (with more
** than one column) one row per line with values separated by a space. */
/* Matches value zGot against the start of *pzWant and advances *pzWant
** past it.  "INDEX #:" in the expected text matches "INDEX <digits>:", so
** that EXPLAIN QUERY PLAN lines need not pin a virtual table's idxNum. */
static int valueMatches(const char **pzWant, const char *zGot){
  static const char zMark[] = "INDEX #:";
  const char *zWant = *pzWant;
  while( *zGot ){
    if( strncmp(zWant, zMark, sizeof(zMark) - 1) == 0
     && strncmp(zGot, "INDEX ", 6) == 0 && isdigit((unsigned char)zGot[6]) ){
      zWant += sizeof(zMark) - 1;
      zGot += 6;
      while( isdigit((unsigned char)*zGot) ) zGot++;
      if( *zGot++ != ':' ) return 0;
    }else if( *zWant++ != *zGot++ ){
      return 0;
    }
  }
  *pzWant = zWant;
  return 1;
}

static int resultsMatch(Record *pRec, int iFrom, Results *pRes){
  int nWant = pRec->nLine - iFrom;
  int i, j;
  if( nWant == pRes->nValue ){
    for(i = 0; i < nWant; i++){
      const char *zWant = pRec->aLine[iFrom + i].z;
      if( !valueMatches(&zWant, pRes->azValue[i]) || *zWant != 0 ) break;
    }
    if( i == nWant ) return 1;
  }
  if( pRes->nColumn > 1 && nWant * pRes->nColumn == pRes->nValue ){
    for(i = 0; i < nWant; i++){
      const char *zWant = pRec->aLine[iFrom + i].z;
      for(j = 0; j < pRes->nColumn; j++){
        if( j > 0 && *zWant++ != ' ' ) return 0;
        if( !valueMatches(&zWant, pRes->azValue[i * pRes->nColumn + j]) ){
          return 0;
        }
      }
      if( *zWant != 0 ) return 0;
    }
    return 1;
  }
  return 0;
}

static void reportMismatch(Runner *p, Record *pRec, int iFrom,
                           const char *zSql, Results *pRes,
                           const char *zGotHash){
  int i;
  failf(p, pRec->aLine[0].iLine, "wrong result\n%s\n---- expected:", zSql);
  for(i = iFrom; i < pRec->nLine; i++) printf("%s\n", pRec->aLine[i].z);
  printf("---- got:\n");
  if( zGotHash ){
    printf("%s\n", zGotHash);
    return;
  }
  for(i = 0; i < pRes->nValue && i < MAX_SHOWN_VALUES; i++){
    printf("%s\n", pRes->azValue[i]);
  }
  if( pRes->nValue > MAX_SHOWN_VALUES ){
    printf("... %d values in all\n", pRes->nValue);
  }
}

static void runQuery(Runner *p, Record *pRec, char azToken[MAX_TOKEN][200]){
  const char *zTypes = azToken[1];
  const char *zMode = azToken[2][0] ? azToken[2] : "nosort";
  const char *zLabel = azToken[3];
  int iLine = pRec->aLine[0].iLine;
  int iSep = findSeparator(pRec, 1);
  int iWant = iSep < pRec->nLine ? iSep + 1 : pRec->nLine;
  Results res;
  char zHash[33], zHashLine[100];
  char *zSql;
  int bHash;
  if( zTypes[0] == 0 || strspn(zTypes, "TIR") != strlen(zTypes) ){
    failf(p, iLine, "the type string '%s' must be one or more of T, I, R",
          zTypes);
    return;
  }
  if( strcmp(zMode, "nosort") != 0 && strcmp(zMode, "rowsort") != 0
   && strcmp(zMode, "valuesort") != 0 ){
    failf(p, iLine, "unknown sort mode '%s'", zMode);
    return;
  }
  memset(&res, 0, sizeof(res));
  zSql = joinLines(pRec, 1, iSep);
  if( runQuerySql(p, iLine, zSql, zTypes, &res) ){
    freeResults(&res);
    free(zSql);
    return;
  }
  sortResults(&res, zMode);
  bHash = p->hashThreshold > 0 && res.nValue > p->hashThreshold;
  hashValues(res.azValue, res.nValue, zHash);
  snprintf(zHashLine, sizeof(zHashLine), "%d values hashing to %s",
           res.nValue, zHash);
  if( zLabel[0] && checkLabel(p, zLabel, zHash) ){
    failf(p, iLine, "labeled result [%s] does not agree with previous "
          "values\n%s", zLabel, zSql);
  }else if( bHash ? !(pRec->nLine - iWant == 1
                      && strcmp(pRec->aLine[iWant].z, zHashLine) == 0)
                  : !resultsMatch(pRec, iWant, &res) ){
    reportMismatch(p, pRec, iWant, zSql, &res, bHash ? zHashLine : 0);
  }else{
    p->nPass++;
  }
  freeResults(&res);
  free(zSql);
}

/* A skipped query with a label still registers the hash of its expected
** results, so later queries with that label are checked against it. */
static void skipQuery(Runner *p, Record *pRec, const char *zLabel){
  int iSep = findSeparator(pRec, 1);
  int iWant = iSep + 1, n, i;
  char zHash[33];
  char **az;
  if( zLabel[0] == 0 || iWant >= pRec->nLine ) return;
  if( sscanf(pRec->aLine[iWant].z, "%*d values hashing to %32s", zHash)
      != 1 ){
    n = pRec->nLine - iWant;
    az = checkedAlloc(malloc(n * sizeof(char*)));
    for(i = 0; i < n; i++) az[i] = pRec->aLine[iWant + i].z;
    hashValues(az, n, zHash);
    free(az);
  }
  if( checkLabel(p, zLabel, zHash) ){
    failf(p, pRec->aLine[0].iLine, "labeled result [%s] does not agree "
          "with previous values", zLabel);
  }
}

static sqlite3 *openDatabase(Runner *p, const char *zPath);

/* Runs one record.  Returns 1 if it was a halt. */
static int runRecord(Runner *p, Record *pRec){
  char azToken[MAX_TOKEN][200];
  int bSkip = 0;
  /* Conditions are lines of their own at the top of the record. */
  for(;;){
    tokenize(pRec->aLine[0].z, azToken);
    if( strcmp(azToken[0], "skipif") == 0 ){
      if( strcasecmp(azToken[1], ENGINE_NAME) == 0 ) bSkip = 1;
    }else if( strcmp(azToken[0], "onlyif") == 0 ){
      if( strcasecmp(azToken[1], ENGINE_NAME) != 0 ) bSkip = 1;
    }else{
      break;
    }
    pRec->aLine++;
    pRec->nLine--;
    if( pRec->nLine == 0 ) return 0;
  }
  if( bSkip ){
    p->nSkip++;
    if( strcmp(azToken[0], "query") == 0 ) skipQuery(p, pRec, azToken[3]);
    return 0;
  }
  if( p->bVerbose ){
    printf("%s:%d: %s\n", p->zFile, pRec->aLine[0].iLine, pRec->aLine[0].z);
  }
  if( strcmp(azToken[0], "statement") == 0 ){
    runStatement(p, pRec, azToken[1]);
  }else if( strcmp(azToken[0], "query") == 0 ){
    runQuery(p, pRec, azToken);
  }else if( strcmp(azToken[0], "hash-threshold") == 0 ){
    p->hashThreshold = atoi(azToken[1]);
  }else if( strcmp(azToken[0], "halt") == 0 ){
    return 1;
  }else if( strcmp(azToken[0], "reopen") == 0 ){
    if( sqlite3_close(p->db) != SQLITE_OK ){
      failf(p, pRec->aLine[0].iLine, "reopen: the database did not close "
            "(statements left unfinalized?)");
    }
    p->db = openDatabase(p, p->zDbPath);
  }else{
    failf(p, pRec->aLine[0].iLine, "unknown record type '%s'", azToken[0]);
  }
  return 0;
}

/*
** Databases.
*/

static sqlite3 *openDatabase(Runner *p, const char *zPath){
  sqlite3 *db = 0;
  char *zErr = 0;
  int i;
  if( sqlite3_open(zPath, &db) != SQLITE_OK ){
    fprintf(stderr, "slt: cannot open %s: %s\n", zPath, sqlite3_errmsg(db));
    exit(2);
  }
  if( p->bDefensive ){
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int*)0);
  }
  /* The extension before anything reads the schema: SQLite marks a
  ** virtual table's shadow tables read-only as it reads the schema, and
  ** only if the table's module is registered by then. */
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (int*)0);
  for(i = 0; i < p->nExtension; i++){
    if( sqlite3_load_extension(db, p->azExtension[i], 0, &zErr)
        != SQLITE_OK ){
      fprintf(stderr, "slt: cannot load %s: %s\n", p->azExtension[i], zErr);
      exit(2);
    }
  }
  sqlite3_exec(db, "PRAGMA synchronous=OFF", 0, 0, 0);
  return db;
}

/* Deletes the database file and any journal SQLite left beside it. */
static void removeDatabase(const char *zPath){
  static const char *azSuffix[] = { "", "-journal", "-wal", "-shm" };
  char zName[4200];
  size_t i;
  for(i = 0; i < sizeof(azSuffix) / sizeof(azSuffix[0]); i++){
    snprintf(zName, sizeof(zName), "%s%s", zPath, azSuffix[i]);
    unlink(zName);
  }
}

static void runScript(Runner *p, const char *zFile, const char *zDbPath){
  char *zScript = readFile(zFile);
  Line *aLine;
  int nLine, i = 0;
  int nPass0 = p->nPass, nFail0 = p->nFail, nSkip0 = p->nSkip;
  Label *pLabel;
  p->zFile = zFile;
  if( zScript == 0 ){
    printf("%s:0: cannot read the file\n", zFile);
    p->nFail++;
    return;
  }
  removeDatabase(zDbPath);
  p->zDbPath = zDbPath;
  p->db = openDatabase(p, zDbPath);
  p->hashThreshold = DEFAULT_HASH_THRESHOLD;
  aLine = splitLines(zScript, &nLine);
  while( i < nLine ){
    Record rec;
    while( i < nLine && aLine[i].z[0] == 0 ) i++;
    if( i == nLine ) break;
    rec.aLine = &aLine[i];
    while( i < nLine && aLine[i].z[0] != 0 ) i++;
    rec.nLine = (int)(&aLine[i] - rec.aLine);
    if( runRecord(p, &rec) ) break;
  }
  sqlite3_close(p->db);
  removeDatabase(zDbPath);
  while( (pLabel = p->pLabels) != 0 ){
    p->pLabels = pLabel->pNext;
    free(pLabel);
  }
  printf("%s: %d passed, %d failed, %d skipped\n", zFile, p->nPass - nPass0,
         p->nFail - nFail0, p->nSkip - nSkip0);
  free(aLine);
  free(zScript);
}

int main(int argc, char **argv){
  Runner runner;
  char zDir[] = "/tmp/slt-XXXXXX";
  char zDbPath[64];
  int i;
  memset(&runner, 0, sizeof(runner));
  if( mkdtemp(zDir) == 0 ){
    perror("slt: mkdtemp");
    return 2;
  }
  snprintf(zDbPath, sizeof(zDbPath), "%s/test.db", zDir);
  for(i = 1; i < argc; i++){
    if( strcmp(argv[i], "--extension") == 0 && i + 1 < argc
     && runner.nExtension < 4 ){
      runner.azExtension[runner.nExtension++] = argv[++i];
    }else if( strcmp(argv[i], "--defensive") == 0 ){
      runner.bDefensive = 1;
    }else if( strcmp(argv[i], "--verbose") == 0 ){
      runner.bVerbose = 1;
    }else if( argv[i][0] == '-' ){
      fprintf(stderr, "usage: %s [--extension PATH] [--defensive] [--verbose] "
              "SCRIPT...\n",
              argv[0]);
      return 2;
    }else{
      runScript(&runner, argv[i], zDbPath);
    }
  }
  rmdir(zDir);
  printf("%d passed, %d failed\n", runner.nPass, runner.nFail);
  return runner.nFail > 0;
}
