/*
** wc_schema.c: parsing and checking the arguments of CREATE VIRTUAL TABLE
** ... USING widecol(...) into a WcSchema (see wc_schema.h).
**
** The arguments are column definitions, one ROWKEY(...), INDEX and FAMILY
** definitions and the options (WC_OPTIONS below).  Every mistake is reported
** with what was found and what is allowed, because a row key cannot be
** changed once data is written under it.
*/
#include "util/wc_api.h"
#include "key/wc_schema.h"
#include "key/rk_bytes.h"
#include "key/rk_hash.h"

#include <stdarg.h>
#include <string.h>

/* The options, as messages list them. */
#define WC_OPTIONS "DELIMITER '<text>', ENCODING TEXT|BINARY, VERSIONS n, " \
                   "TTL seconds, STORAGE BIGTABLE|HBASE|CASSANDRA '<table>', " \
                   "SPLITS ('<key>', ...) and CELLS(column " \
                   "'family:qualifier' STRING|LONG|DOUBLE|BYTES, ...)"

/*
** A lexer for one argument.
*/
#define TK_END     0
#define TK_ID      1   /* identifier, bare or quoted */
#define TK_STRING  2   /* 'string' */
#define TK_INTEGER 3   /* optionally signed decimal integer */
#define TK_LP      4
#define TK_RP      5
#define TK_COMMA   6
#define TK_OTHER   7

typedef struct Token Token;
struct Token {
  int eType;
  const char *z;        /* Start in the argument text */
  int n;                /* Bytes in the argument text */
};

typedef struct Lexer Lexer;
struct Lexer {
  const char *z;        /* The argument */
  int i;                /* Next byte */
  Token tk;             /* Current token */
};

static int isIdStart(unsigned char c){
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
      || c >= 0x80;
}

static int isIdChar(unsigned char c){
  return isIdStart(c) || (c >= '0' && c <= '9') || c == '$';
}

static int isDigit(unsigned char c){
  return c >= '0' && c <= '9';
}

static int isSpace(unsigned char c){
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Advances to the next token.  A quoted token with no closing quote
** becomes TK_OTHER, which every caller reports as unexpected. */
static void lexNext(Lexer *p){
  const unsigned char *z = (const unsigned char*)p->z;
  int i = p->i;
  while( isSpace(z[i]) ) i++;
  p->tk.z = &p->z[i];
  if( z[i] == 0 ){
    p->tk.eType = TK_END;
  }else if( isIdStart(z[i]) ){
    while( isIdChar(z[i]) ) i++;
    p->tk.eType = TK_ID;
  }else if( z[i] == '"' || z[i] == '`' || z[i] == '[' || z[i] == '\'' ){
    unsigned char cEnd = z[i] == '[' ? ']' : z[i];
    p->tk.eType = z[i] == '\'' ? TK_STRING : TK_ID;
    for(i++; z[i]; i++){
      if( z[i] == cEnd ){
        if( cEnd != ']' && z[i + 1] == cEnd ){
          i++;
        }else{
          break;
        }
      }
    }
    if( z[i] == 0 ){
      p->tk.eType = TK_OTHER;
    }else{
      i++;
    }
  }else if( isDigit(z[i])
         || ((z[i] == '-' || z[i] == '+') && isDigit(z[i + 1])) ){
    i++;
    while( isDigit(z[i]) ) i++;
    p->tk.eType = TK_INTEGER;
  }else{
    p->tk.eType = z[i] == '(' ? TK_LP : z[i] == ')' ? TK_RP
                : z[i] == ',' ? TK_COMMA : TK_OTHER;
    i++;
  }
  p->tk.n = (int)(&p->z[i] - p->tk.z);
  p->i = i;
}

static void lexInit(Lexer *p, const char *z){
  p->z = z;
  p->i = 0;
  lexNext(p);
}

static int tokenIs(const Token *pTk, const char *zWord){
  return pTk->eType == TK_ID && (int)strlen(zWord) == pTk->n
      && sqlite3_strnicmp(pTk->z, zWord, pTk->n) == 0;
}

/* The text of a TK_ID or TK_STRING token with its quotes removed. */
static char *tokenText(const Token *pTk){
  char *zOut = sqlite3_malloc(pTk->n + 1);
  int i, j = 0;
  char cQuote = pTk->z[0];
  if( zOut == 0 ) return 0;
  if( cQuote == '"' || cQuote == '`' || cQuote == '\'' || cQuote == '[' ){
    char cEnd = cQuote == '[' ? ']' : cQuote;
    for(i = 1; i < pTk->n - 1; i++){
      zOut[j++] = pTk->z[i];
      if( pTk->z[i] == cEnd && cEnd != ']' ) i++;
    }
  }else{
    memcpy(zOut, pTk->z, pTk->n);
    j = pTk->n;
  }
  zOut[j] = 0;
  return zOut;
}

/* Reads an integer token into *piOut.  Returns 0 on success, 1 if it does
** not fit a signed 64-bit integer. */
static int tokenInt(const Token *pTk, int64_t *piOut){
  int i = 0, bNeg = 0;
  uint64_t v = 0;
  if( pTk->z[0] == '-' || pTk->z[0] == '+' ){
    bNeg = pTk->z[0] == '-';
    i = 1;
  }
  for(; i < pTk->n; i++){
    unsigned d = (unsigned)(pTk->z[i] - '0');
    if( v > (UINT64_MAX - d) / 10 ) return 1;
    v = v * 10 + d;
  }
  if( v > (uint64_t)INT64_MAX + (uint64_t)bNeg ) return 1;
  *piOut = bNeg ? (int64_t)(0 - v) : (int64_t)v;
  return 0;
}

/*
** Errors.  The parser stops at the first one.
*/
typedef struct Parse Parse;
struct Parse {
  WcSchema *pSchema;    /* The table, or the key of one of its indexes */
  const char *zKey;     /* "ROWKEY" or "INDEX <name>", for messages */
  int bPrimaryKey;      /* The row key came as PRIMARY KEY (...) */
  int bCreate;          /* CREATE, not the connection of an existing table */
  char *zErr;
};

static void parseError(Parse *p, const char *zFormat, ...){
  va_list ap;
  if( p->zErr ) return;
  va_start(ap, zFormat);
  p->zErr = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  if( p->zErr == 0 ) p->zErr = sqlite3_mprintf("out of memory");
}

static void unexpected(Parse *p, const Token *pTk, const char *zWhere,
                       const char *zExpected){
  if( pTk->eType == TK_END ){
    parseError(p, "widecol %s: %s ends early; expected %s",
               p->pSchema->zTable, zWhere, zExpected);
  }else{
    parseError(p, "widecol %s: unexpected \"%.*s\" in %s; expected %s",
               p->pSchema->zTable, pTk->n, pTk->z, zWhere, zExpected);
  }
}

/*
** Affinity from a declared type, by SQLite's rules: INT anywhere gives
** INTEGER; else CHAR, CLOB or TEXT gives TEXT; else BLOB or no type gives
** BLOB; else REAL, FLOA or DOUB gives REAL; anything else is NUMERIC.
*/
static char typeAffinity(const char *zType){
  uint32_t h = 0;
  char cAff = WC_AFF_NUMERIC;
  if( zType[0] == 0 ) return WC_AFF_BLOB;
  for(; *zType; zType++){
    unsigned char c = (unsigned char)*zType;
    if( c >= 'A' && c <= 'Z' ) c += 'a' - 'A';
    h = (h << 8) + c;
    if( h == (('c' << 24) + ('h' << 16) + ('a' << 8) + 'r')
     || h == (('c' << 24) + ('l' << 16) + ('o' << 8) + 'b')
     || h == (('t' << 24) + ('e' << 16) + ('x' << 8) + 't') ){
      cAff = WC_AFF_TEXT;
    }else if( h == (('b' << 24) + ('l' << 16) + ('o' << 8) + 'b')
           && (cAff == WC_AFF_NUMERIC || cAff == WC_AFF_REAL) ){
      cAff = WC_AFF_BLOB;
    }else if( (h == (('r' << 24) + ('e' << 16) + ('a' << 8) + 'l')
            || h == (('f' << 24) + ('l' << 16) + ('o' << 8) + 'a')
            || h == (('d' << 24) + ('o' << 16) + ('u' << 8) + 'b'))
           && cAff == WC_AFF_NUMERIC ){
      cAff = WC_AFF_REAL;
    }else if( (h & 0x00FFFFFF) == (('i' << 16) + ('n' << 8) + 't') ){
      return WC_AFF_INTEGER;
    }
  }
  return cAff;
}

static const char *affinityName(char cAff){
  switch( cAff ){
    case WC_AFF_INTEGER: return "INTEGER";
    case WC_AFF_REAL:    return "REAL";
    case WC_AFF_NUMERIC: return "NUMERIC";
    case WC_AFF_TEXT:    return "TEXT";
    default:             return "BLOB";
  }
}

/*
** Column definitions: name [type] [COLLATE name].
*/
static const char *const azConstraintWord[] = {
  "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT",
  "REFERENCES", "GENERATED", "AS", "HIDDEN",
};

static int isConstraintWord(const Token *pTk){
  size_t i;
  for(i = 0; i < sizeof(azConstraintWord) / sizeof(azConstraintWord[0]);
      i++){
    if( tokenIs(pTk, azConstraintWord[i]) ) return 1;
  }
  return 0;
}

static void parseColumn(Parse *p, const char *zArg){
  WcSchema *pS = p->pSchema;
  WcColumn *pCol;
  Lexer lex;
  const char *zTypeStart = 0, *zTypeEnd = 0;
  char *zName;
  lexInit(&lex, zArg);
  zName = tokenText(&lex.tk);
  if( zName == 0 ){
    parseError(p, "out of memory");
    return;
  }
  if( sqlite3_stricmp(zName, "rowkey") == 0 ){
    parseError(p, "widecol %s: a column cannot be named \"%s\": rowkey is "
               "the hidden column that holds the encoded row key",
               pS->zTable, zName);
    sqlite3_free(zName);
    return;
  }
  if( wcSchemaColumn(pS, zName) >= 0 ){
    parseError(p, "widecol %s: column \"%s\" is declared twice",
               pS->zTable, zName);
    sqlite3_free(zName);
    return;
  }
  pCol = &pS->aCol[pS->nCol++];
  memset(pCol, 0, sizeof(*pCol));
  pCol->zName = zName;
  pCol->iElem = -1;
  pCol->iFamily = -1;
  pCol->iIndexField = -1;
  lexNext(&lex);
  /* The type: names, optionally followed by (n) or (n, m). */
  while( lex.tk.eType == TK_ID && !tokenIs(&lex.tk, "COLLATE")
      && !isConstraintWord(&lex.tk) ){
    if( zTypeStart == 0 ) zTypeStart = lex.tk.z;
    zTypeEnd = lex.tk.z + lex.tk.n;
    lexNext(&lex);
  }
  if( zTypeStart && lex.tk.eType == TK_LP ){
    int nNum = 0;
    lexNext(&lex);
    while( lex.tk.eType == TK_INTEGER && nNum < 2 ){
      nNum++;
      lexNext(&lex);
      if( lex.tk.eType != TK_COMMA ) break;
      lexNext(&lex);
    }
    if( lex.tk.eType != TK_RP || nNum == 0 ){
      unexpected(p, &lex.tk, "a column type", "(n) or (n, m) after the "
                 "type name");
      return;
    }
    zTypeEnd = lex.tk.z + 1;
    lexNext(&lex);
  }
  pCol->zType = sqlite3_mprintf("%.*s", zTypeStart ? (int)(zTypeEnd
                                - zTypeStart) : 0, zTypeStart ? zTypeStart : "");
  if( pCol->zType == 0 ){
    parseError(p, "out of memory");
    return;
  }
  pCol->cAff = typeAffinity(pCol->zType);
  if( tokenIs(&lex.tk, "COLLATE") ){
    lexNext(&lex);
    if( lex.tk.eType != TK_ID ){
      unexpected(p, &lex.tk, "COLLATE", "a collation name");
      return;
    }
    pCol->zColl = tokenText(&lex.tk);
    if( pCol->zColl == 0 ){
      parseError(p, "out of memory");
      return;
    }
    if( sqlite3_stricmp(pCol->zColl, "BINARY") == 0 ){
      sqlite3_free(pCol->zColl);
      pCol->zColl = 0;
    }
    lexNext(&lex);
  }
  if( lex.tk.eType != TK_END ){
    if( isConstraintWord(&lex.tk) ){
      parseError(p, "widecol %s: column \"%s\": constraints such as \"%.*s\" "
                 "are not supported; row key fields are always NOT NULL and "
                 "unique together, other columns take any value",
                 pS->zTable, zName, lex.tk.n, lex.tk.z);
    }else{
      unexpected(p, &lex.tk, "a column definition",
                 "name [type] [COLLATE collation]");
    }
  }
}

/*
** ROWKEY(element, ...).
*/

/* Reads a column name token used in zWhere; returns its index or -1. */
static int keyColumn(Parse *p, Lexer *pLex, const char *zWhere){
  char *zName;
  int iCol;
  if( pLex->tk.eType != TK_ID ){
    unexpected(p, &pLex->tk, zWhere, "a column name");
    return -1;
  }
  zName = tokenText(&pLex->tk);
  if( zName == 0 ){
    parseError(p, "out of memory");
    return -1;
  }
  iCol = wcSchemaColumn(p->pSchema, zName);
  if( iCol < 0 ){
    int i;
    sqlite3_str *pList = sqlite3_str_new(0);
    for(i = 0; i < p->pSchema->nCol; i++){
      sqlite3_str_appendf(pList, "%s%s", i ? ", " : "",
                          p->pSchema->aCol[i].zName);
    }
    parseError(p, "widecol %s: %s names column \"%s\", which is not declared; "
               "the columns are: %z", p->pSchema->zTable, zWhere, zName,
               sqlite3_str_finish(pList));
  }
  sqlite3_free(zName);
  lexNext(pLex);
  return iCol;
}

static int expectToken(Parse *p, Lexer *pLex, int eType, const char *zWhere,
                       const char *zExpected){
  if( pLex->tk.eType != eType ){
    unexpected(p, &pLex->tk, zWhere, zExpected);
    return 1;
  }
  lexNext(pLex);
  return 0;
}

/* An integer token in [iMin, iMax] for zWhat. */
static int boundedInt(Parse *p, Lexer *pLex, const char *zWhat,
                      int64_t iMin, int64_t iMax, int64_t *piOut){
  if( pLex->tk.eType != TK_INTEGER || tokenInt(&pLex->tk, piOut)
   || *piOut < iMin || *piOut > iMax ){
    if( pLex->tk.eType == TK_END || pLex->tk.eType == TK_RP
     || pLex->tk.eType == TK_COMMA ){
      parseError(p, "widecol %s: %s is missing; it must be an integer from "
                 "%lld to %lld", p->pSchema->zTable, zWhat, iMin, iMax);
    }else{
      parseError(p, "widecol %s: %s must be an integer from %lld to %lld, "
                 "not %.*s", p->pSchema->zTable, zWhat, iMin, iMax,
                 pLex->tk.n, pLex->tk.z);
    }
    return 1;
  }
  lexNext(pLex);
  return 0;
}

/* The columns a SALT or TOKEN (zKind) is computed from, "a, b, ...)",
** from the current token on. */
static void parseSourceColumns(Parse *p, Lexer *pLex, WcElement *pElem,
                               const char *zKind){
  pElem->aiSaltCol = sqlite3_malloc64(sizeof(int)
                                      * (sqlite3_uint64)p->pSchema->nCol);
  if( pElem->aiSaltCol == 0 ){
    parseError(p, "out of memory");
    return;
  }
  for(;;){
    int iCol, i;
    iCol = keyColumn(p, pLex, zKind);
    if( iCol < 0 ) return;
    if( pElem->nSaltCol == WC_MAX_SALT_COL ){
      parseError(p, "widecol %s: %s hashes at most %d columns",
                 p->pSchema->zTable, zKind, WC_MAX_SALT_COL);
      return;
    }
    for(i = 0; i < pElem->nSaltCol; i++){
      if( pElem->aiSaltCol[i] == iCol ){
        parseError(p, "widecol %s: %s names column \"%s\" twice",
                   p->pSchema->zTable, zKind, p->pSchema->aCol[iCol].zName);
        return;
      }
    }
    pElem->aiSaltCol[pElem->nSaltCol++] = iCol;
    if( pLex->tk.eType != TK_COMMA ) break;
    lexNext(pLex);
  }
  expectToken(p, pLex, TK_RP, zKind, "\")\" or another column");
}

static void parseSalt(Parse *p, Lexer *pLex, WcElement *pElem){
  int64_t n;
  lexNext(pLex);
  if( expectToken(p, pLex, TK_LP, "SALT", "(n, column, ...)")
   || boundedInt(p, pLex, "SALT's digit count n", -RK_MD5_HEX, RK_MD5_HEX,
                 &n) ){
    return;
  }
  if( n == 0 ){
    parseError(p, "widecol %s: SALT's digit count n must be 1 to 32 (first "
               "hex digits of md5) or -1 to -32 (last digits), not 0",
               p->pSchema->zTable);
    return;
  }
  pElem->eKind = WC_ELEM_SALT;
  pElem->nSaltDigit = (int)n;
  if( pLex->tk.eType != TK_COMMA ){
    unexpected(p, &pLex->tk, "SALT", "\", column\" after the digit count");
    return;
  }
  lexNext(pLex);
  parseSourceColumns(p, pLex, pElem, "SALT");
}

/* TOKEN(column, ...): Cassandra's token of a partition key, a SALT whose
** hash is Murmur3Partitioner's (wc_schema.h). */
static void parseToken(Parse *p, Lexer *pLex, WcElement *pElem){
  lexNext(pLex);
  if( expectToken(p, pLex, TK_LP, "TOKEN", "(column, ...)") ) return;
  pElem->eKind = WC_ELEM_SALT;
  pElem->bToken = 1;
  pElem->nSaltDigit = 16;
  parseSourceColumns(p, pLex, pElem, "TOKEN");
}

static void parseBucket(Parse *p, Lexer *pLex, WcElement *pElem){
  lexNext(pLex);
  if( expectToken(p, pLex, TK_LP, "BUCKET", "(n, column)")
   || boundedInt(p, pLex, "BUCKET's bucket count n", 1, RK_MAX_BUCKETS,
                 &pElem->nBucket)
   || expectToken(p, pLex, TK_COMMA, "BUCKET", "\", column\"") ){
    return;
  }
  pElem->eKind = WC_ELEM_BUCKET;
  pElem->iCol = keyColumn(p, pLex, "BUCKET");
  if( pElem->iCol >= 0 ){
    expectToken(p, pLex, TK_RP, "BUCKET", "\")\"");
  }
}

static void parseTransforms(Parse *p, Lexer *pLex, WcElement *pElem){
  const char *zCol = p->pSchema->aCol[pElem->iCol].zName;
  while( !p->zErr && pLex->tk.eType == TK_ID ){
    WcTransform *pX = &pElem->aXform[pElem->nXform];
    int i;
    if( tokenIs(&pLex->tk, "PAD") ){
      pX->eOp = WC_XFORM_PAD;
    }else if( tokenIs(&pLex->tk, "DESC") ){
      pX->eOp = WC_XFORM_DESC;
    }else if( tokenIs(&pLex->tk, "REVERSE") ){
      pX->eOp = WC_XFORM_REVERSE;
    }else{
      parseError(p, "widecol %s: unknown transform \"%.*s\" on %s "
                 "column \"%s\"; the transforms are PAD n, DESC [max] and "
                 "REVERSE", p->pSchema->zTable, pLex->tk.n, pLex->tk.z,
                 p->zKey, zCol);
      return;
    }
    for(i = 0; i < pElem->nXform; i++){
      if( pElem->aXform[i].eOp == pX->eOp ){
        parseError(p, "widecol %s: %s column \"%s\" has %.*s twice",
                   p->pSchema->zTable, p->zKey, zCol, pLex->tk.n, pLex->tk.z);
        return;
      }
    }
    pElem->nXform++;
    lexNext(pLex);
    if( pX->eOp == WC_XFORM_PAD ){
      char *zMsg = sqlite3_mprintf("PAD width of \"%s\"", zCol);
      int rc = boundedInt(p, pLex, zMsg ? zMsg : "PAD width", 1,
                          RK_PAD_MAX_WIDTH, &pX->iArg);
      sqlite3_free(zMsg);
      if( rc ) return;
      pX->zFill[0] = ' ';
      if( pLex->tk.eType == TK_STRING ){
        char *zFill = tokenText(&pLex->tk);
        if( zFill == 0 || strlen(zFill) >= sizeof(pX->zFill)
         || rkCharCount((const unsigned char*)zFill,
                        (int64_t)strlen(zFill)) != 1 ){
          parseError(p, "widecol %s: the PAD fill of \"%s\" must be exactly "
                     "one character, not %.*s", p->pSchema->zTable, zCol,
                     pLex->tk.n, pLex->tk.z);
        }else{
          memcpy(pX->zFill, zFill, strlen(zFill) + 1);
        }
        sqlite3_free(zFill);
        lexNext(pLex);
      }
    }else if( pX->eOp == WC_XFORM_DESC && pLex->tk.eType == TK_INTEGER ){
      char *zMsg = sqlite3_mprintf("the DESC max of \"%s\"", zCol);
      boundedInt(p, pLex, zMsg ? zMsg : "DESC max", 0, INT64_MAX, &pX->iArg);
      sqlite3_free(zMsg);
      pX->bArg = 1;
    }
  }
}

/* True if the token after the current one is "(". */
static int nextIsParen(const Lexer *pLex){
  Lexer peek = *pLex;
  lexNext(&peek);
  return peek.tk.eType == TK_LP;
}

/* RANDOM(n), the last element of a row key (WcSchema.nRandom). */
static void parseRandom(Parse *p, Lexer *pLex){
  WcSchema *pS = p->pSchema;
  if( pS->bBorrowed ){
    parseError(p, "widecol %s: %s has RANDOM(n), which only a ROWKEY may "
               "end in; an INDEX key is told apart from the others by the "
               "row key that follows it", pS->zTable, p->zKey);
    return;
  }
  if( pS->nElem == 0 ){
    parseError(p, "widecol %s: ROWKEY needs a column before RANDOM(n): the "
               "random number tells apart rows that share the fields "
               "before it, as in [userId][orderid][random(100)]",
               pS->zTable);
    return;
  }
  lexNext(pLex);
  if( expectToken(p, pLex, TK_LP, "RANDOM", "(n)")
   || boundedInt(p, pLex, "RANDOM's count n", 2, WC_MAX_RANDOM,
                 &pS->nRandom)
   || expectToken(p, pLex, TK_RP, "RANDOM", "\")\"") ){
    return;
  }
  pS->nRandomDigit = rkDigitCount((uint64_t)(pS->nRandom - 1));
  pS->bSuffix = 1;
}

static int wordDistance(const char *a, int nA, const char *z);

/* Refuses name(...) in a key where name is no element: a typo of SALT,
** BUCKET or TOKEN, or a function, which a key cannot call. */
static void unknownElement(Parse *p, Lexer *pLex){
  static const char *const azElement[] = { "SALT", "BUCKET", "TOKEN" };
  const Token *pTk = &pLex->tk;
  const char *zNear = 0;
  size_t k;
  for(k = 0; k < sizeof(azElement) / sizeof(azElement[0]); k++){
    if( wordDistance(pTk->z, pTk->n, azElement[k]) <= 2 ){
      zNear = azElement[k];
      break;
    }
  }
  parseError(p, "widecol %s: %s has no element %.*s(...)%s%s%s; its "
             "elements are columns (with PAD, DESC, REVERSE, ...), SALT(n, "
             "column, ...), BUCKET(n, column) and TOKEN(column, ...)",
             p->pSchema->zTable, p->zKey, pTk->n, pTk->z,
             zNear ? " (did you mean " : "", zNear ? zNear : "",
             zNear ? "?)" : "");
}

static void parseElement(Parse *p, Lexer *pLex){
  WcSchema *pS = p->pSchema;
  WcElement *pElem = &pS->aElem[pS->nElem++];
  memset(pElem, 0, sizeof(*pElem));
  pElem->iCol = -1;
  if( tokenIs(&pLex->tk, "SALT") && nextIsParen(pLex) ){
    parseSalt(p, pLex, pElem);
  }else if( tokenIs(&pLex->tk, "TOKEN") && nextIsParen(pLex) ){
    parseToken(p, pLex, pElem);
  }else if( tokenIs(&pLex->tk, "BUCKET") && nextIsParen(pLex) ){
    parseBucket(p, pLex, pElem);
  }else if( pLex->tk.eType == TK_ID && nextIsParen(pLex) ){
    unknownElement(p, pLex);
  }else{
    pElem->eKind = WC_ELEM_COLUMN;
    pElem->iCol = keyColumn(p, pLex, p->zKey);
    if( pElem->iCol < 0 ) return;
    if( pS->aCol[pElem->iCol].iElem >= 0 ){
      parseError(p, "widecol %s: column \"%s\" appears twice in %s",
                 pS->zTable, pS->aCol[pElem->iCol].zName, p->zKey);
      return;
    }
    pS->aCol[pElem->iCol].iElem = pS->nElem - 1;
    parseTransforms(p, pLex, pElem);
  }
}

/* Reads "(element, ...)" from the current token into p->pSchema->aElem;
** nMax bounds the elements there can be. */
static void parseElements(Parse *p, Lexer *pLex, int nMax){
  WcSchema *pS = p->pSchema;
  pS->aElem = sqlite3_malloc64(sizeof(WcElement) * (sqlite3_uint64)nMax);
  if( pS->aElem == 0 ){
    parseError(p, "out of memory");
    return;
  }
  if( expectToken(p, pLex, TK_LP, p->zKey, "\"(\"") ) return;
  if( pLex->tk.eType == TK_RP ){
    parseError(p, "widecol %s: %s() is empty; name at least one column",
               pS->zTable, p->zKey);
    return;
  }
  for(;;){
    if( tokenIs(&pLex->tk, "RANDOM") && nextIsParen(pLex) ){
      parseRandom(p, pLex);
      if( p->zErr ) return;
      if( pLex->tk.eType != TK_RP ){
        parseError(p, "widecol %s: RANDOM(%lld) must be the last element of "
                   "ROWKEY, as in the guides' [userId][orderid][random(100)]: "
                   "reads range over the fields before it; to spread writes "
                   "by a leading part, use SALT or BUCKET, which a reader "
                   "can compute", pS->zTable, (long long)pS->nRandom);
        return;
      }
      break;
    }
    parseElement(p, pLex);
    if( p->zErr ) return;
    if( pLex->tk.eType == TK_RP ) break;
    if( expectToken(p, pLex, TK_COMMA, p->zKey, "\",\" or \")\"") ) return;
  }
  lexNext(pLex);
}

/* At most one element per comma of the argument, plus one. */
static int maxElements(const char *zArg){
  int nMax = 1;
  for(; *zArg; zArg++) nMax += *zArg == ',';
  return nMax;
}

static void parseRowkey(Parse *p, const char *zArg){
  WcSchema *pS = p->pSchema;
  Lexer lex;
  if( pS->aElem && p->bPrimaryKey ){
    parseError(p, "widecol %s: give ROWKEY(...) or PRIMARY KEY (...), once "
               "and not both: they both say what the row key is", pS->zTable);
    return;
  }
  if( pS->aElem ){
    parseError(p, "widecol %s: ROWKEY(...) is given twice; a table has one "
               "row key", pS->zTable);
    return;
  }
  lexInit(&lex, zArg);
  lexNext(&lex);     /* ROWKEY */
  parseElements(p, &lex, maxElements(zArg));
  if( !p->zErr && lex.tk.eType != TK_END ){
    unexpected(p, &lex.tk, "ROWKEY(...)", "nothing after the closing \")\"");
  }
}

/* A column element of the key, for the PRIMARY KEY form. */
static WcElement *addColumnElement(Parse *p, int iCol){
  WcSchema *pS = p->pSchema;
  WcElement *pElem = &pS->aElem[pS->nElem++];
  memset(pElem, 0, sizeof(*pElem));
  pElem->eKind = WC_ELEM_COLUMN;
  pElem->iCol = iCol;
  if( pS->aCol[iCol].iElem >= 0 ){
    parseError(p, "widecol %s: column \"%s\" appears twice in PRIMARY KEY",
               pS->zTable, pS->aCol[iCol].zName);
  }else{
    pS->aCol[iCol].iElem = pS->nElem - 1;
  }
  return pElem;
}

/* CLUSTERING ORDER BY named column iCol twice (bTwice) or where the
** element iNext's column comes: Cassandra takes the clustering columns in
** their PRIMARY KEY order, the first of them or all. */
static void clusteringOutOfOrder(Parse *p, int iCol, int bTwice, int iNext){
  WcSchema *pS = p->pSchema;
  sqlite3_str *pList = sqlite3_str_new(0);
  int i;
  for(i = pS->aElem[0].nSaltCol + 1; i < pS->nElem; i++){
    sqlite3_str_appendf(pList, "%s%s", sqlite3_str_length(pList) ? ", " : "",
                        pS->aCol[pS->aElem[i].iCol].zName);
  }
  if( bTwice ){
    parseError(p, "widecol %s: CLUSTERING ORDER BY names \"%s\" twice; it "
               "gives each clustering column's order once, in PRIMARY KEY "
               "order (%z)", pS->zTable, pS->aCol[iCol].zName,
               sqlite3_str_finish(pList));
  }else{
    parseError(p, "widecol %s: CLUSTERING ORDER BY names \"%s\" where "
               "\"%s\" comes: it lists the clustering columns in PRIMARY KEY "
               "order (%z), all or the first few, as Cassandra requires",
               pS->zTable, pS->aCol[iCol].zName,
               pS->aCol[pS->aElem[iNext].iCol].zName,
               sqlite3_str_finish(pList));
  }
}

/* WITH CLUSTERING ORDER BY (c1 ASC|DESC, ...), as CQL writes the order
** of clustering columns (widecol_ddl()'s 'cql' does): each DESC or ASC
** sets the column's order in the key. */
static void parseClusteringOrder(Parse *p, Lexer *pLex){
  WcSchema *pS = p->pSchema;
  static const char *const azWord[] = { "WITH", "CLUSTERING", "ORDER", "BY" };
  size_t k;
  int iNext;
  for(k = 0; k < sizeof(azWord) / sizeof(azWord[0]); k++){
    if( !tokenIs(&pLex->tk, azWord[k]) ){
      unexpected(p, &pLex->tk, "PRIMARY KEY (...) WITH", "CLUSTERING ORDER "
                 "BY (column ASC|DESC, ...)");
      return;
    }
    lexNext(pLex);
  }
  if( expectToken(p, pLex, TK_LP, "CLUSTERING ORDER BY", "\"(\"") ) return;
  iNext = pS->aElem[0].bToken ? pS->aElem[0].nSaltCol + 1 : pS->nElem;
  for(;;){
    WcElement *pElem;
    int iCol = keyColumn(p, pLex, "CLUSTERING ORDER BY"), iElem, bDesc;
    if( iCol < 0 ) return;
    iElem = pS->aCol[iCol].iElem;
    pElem = iElem >= 0 ? &pS->aElem[iElem] : 0;
    if( pElem == 0 || !pS->aElem[0].bToken
     || iElem <= pS->aElem[0].nSaltCol ){
      parseError(p, "widecol %s: CLUSTERING ORDER BY names \"%s\", which is "
                 "not a clustering column of PRIMARY KEY", pS->zTable,
                 pS->aCol[iCol].zName);
      return;
    }
    if( iElem != iNext ){
      clusteringOutOfOrder(p, iCol, iElem < iNext, iNext);
      return;
    }
    iNext++;
    bDesc = tokenIs(&pLex->tk, "DESC");
    if( !bDesc && !tokenIs(&pLex->tk, "ASC") ){
      unexpected(p, &pLex->tk, "CLUSTERING ORDER BY", "ASC or DESC");
      return;
    }
    if( pElem->nXform > 0 && !bDesc ){
      /* PRIMARY KEY ((a), b DESC) WITH CLUSTERING ORDER BY (b ASC). */
      parseError(p, "widecol %s: PRIMARY KEY orders \"%s\" DESC and "
                 "CLUSTERING ORDER BY orders it ASC; give its order once, in "
                 "CLUSTERING ORDER BY as CQL does", pS->zTable,
                 pS->aCol[iCol].zName);
      return;
    }
    lexNext(pLex);
    pElem->nXform = 0;
    if( bDesc ) pElem->aXform[pElem->nXform++].eOp = WC_XFORM_DESC;
    if( pLex->tk.eType != TK_COMMA ) break;
    lexNext(pLex);
  }
  expectToken(p, pLex, TK_RP, "CLUSTERING ORDER BY", "\",\" or \")\"");
}

/* PRIMARY KEY ((p1, p2, ...), c1 [ASC|DESC], ...), CQL's form, or
** PRIMARY KEY (p1, c1, ...) with one partition column: the row key
** ROWKEY(TOKEN(p1, p2, ...), p1, p2, ..., c1 [DESC], ...), in ENCODING
** BINARY (set by wcSchemaParse).  Rows sit by their partition's token,
** as Cassandra places them, and in clustering order within it. */
static void parsePrimaryKey(Parse *p, const char *zArg){
  WcSchema *pS = p->pSchema;
  WcElement *pToken;
  Lexer lex;
  int bParen;
  if( pS->aElem ){
    parseError(p, "widecol %s: give ROWKEY(...) or PRIMARY KEY (...), once "
               "and not both: they both say what the row key is", pS->zTable);
    return;
  }
  pS->aElem = sqlite3_malloc64(sizeof(WcElement)
                               * (sqlite3_uint64)(maxElements(zArg) + 1));
  if( pS->aElem == 0 ){
    parseError(p, "out of memory");
    return;
  }
  p->bPrimaryKey = 1;
  lexInit(&lex, zArg);
  lexNext(&lex);     /* PRIMARY */
  lexNext(&lex);     /* KEY */
  if( expectToken(p, &lex, TK_LP, "PRIMARY KEY", "\"((partition columns), "
                  "clustering columns)\"") ){
    return;
  }
  /* The token first; its columns are known once the partition is read. */
  pToken = &pS->aElem[pS->nElem++];
  memset(pToken, 0, sizeof(*pToken));
  pToken->iCol = -1;
  pToken->eKind = WC_ELEM_SALT;
  pToken->bToken = 1;
  pToken->nSaltDigit = 16;
  pToken->aiSaltCol = sqlite3_malloc64(sizeof(int) * (size_t)pS->nCol);
  if( pToken->aiSaltCol == 0 ){
    parseError(p, "out of memory");
    return;
  }
  bParen = lex.tk.eType == TK_LP;
  if( bParen ) lexNext(&lex);
  if( lex.tk.eType == TK_RP ){
    parseError(p, "widecol %s: PRIMARY KEY has no partition key; name its "
               "columns first, as in PRIMARY KEY ((user_id), liked_at)",
               pS->zTable);
    return;
  }
  for(;;){
    int iCol = keyColumn(p, &lex, "PRIMARY KEY");
    if( iCol < 0 ) return;
    if( pToken->nSaltCol == WC_MAX_SALT_COL ){
      parseError(p, "widecol %s: a partition key has at most %d columns "
                 "here", pS->zTable, WC_MAX_SALT_COL);
      return;
    }
    pToken->aiSaltCol[pToken->nSaltCol++] = iCol;
    addColumnElement(p, iCol);
    if( p->zErr || !bParen || lex.tk.eType != TK_COMMA ) break;
    lexNext(&lex);
  }
  if( bParen && expectToken(p, &lex, TK_RP, "PRIMARY KEY's partition key",
                            "\",\" or \")\"") ){
    return;
  }
  while( lex.tk.eType == TK_COMMA ){
    WcElement *pElem;
    int iCol;
    lexNext(&lex);
    iCol = keyColumn(p, &lex, "PRIMARY KEY");
    if( iCol < 0 ) return;
    pElem = addColumnElement(p, iCol);
    if( p->zErr ) return;
    if( tokenIs(&lex.tk, "DESC") ){
      pElem->aXform[pElem->nXform++].eOp = WC_XFORM_DESC;
      lexNext(&lex);
    }else if( tokenIs(&lex.tk, "ASC") ){
      lexNext(&lex);
    }
  }
  if( expectToken(p, &lex, TK_RP, "PRIMARY KEY", "\",\", ASC, DESC or "
                  "\")\"") ){
    return;
  }
  if( tokenIs(&lex.tk, "WITH") ) parseClusteringOrder(p, &lex);
  if( !p->zErr && lex.tk.eType != TK_END ){
    unexpected(p, &lex.tk, "PRIMARY KEY (...)", "nothing after the closing "
               "\")\" but WITH CLUSTERING ORDER BY (...)");
  }
}

/*
** Options: DELIMITER '<text>', ENCODING TEXT|BINARY, VERSIONS n (1 to
** 1,000: HBase's VERSIONS, Bigtable's max-versions GC rule) and TTL seconds
** (HBase's TTL, Bigtable's max-age rule).
*/
typedef struct Given Given;
struct Given {
  int bDelim, bEncoding, bVersions, bTtl;
};

static void parseVersionOption(Parse *p, Lexer *pLex, int bVersions,
                               Given *pGiven){
  WcSchema *pS = p->pSchema;
  const char *zNum = pLex->tk.z;
  int64_t v;
  if( bVersions ? pGiven->bVersions : pGiven->bTtl ){
    parseError(p, "widecol %s: %s is given twice", pS->zTable,
               bVersions ? "VERSIONS" : "TTL");
    return;
  }
  if( pLex->tk.eType == TK_ID ){
    /* "versions INTEGER": a column meant, read as the option. */
    const char *zWord = bVersions ? "versions" : "ttl";
    parseError(p, "widecol %s: %s %.*s reads as the option %s n (%s); to "
               "declare a column named %s, quote it: \"%s\" %.*s%s",
               pS->zTable, zWord, pLex->tk.n, pLex->tk.z,
               bVersions ? "VERSIONS" : "TTL",
               bVersions ? "versions kept per row key"
                         : "seconds a version stays visible",
               zWord, zWord, pLex->tk.n, pLex->tk.z,
               bVersions ? " (on a table without VERSIONS or TTL: with them "
                           "rowtime, versions and asof are hidden columns, so "
                           "give the column another name)" : "");
    return;
  }
  if( bVersions ){
    pGiven->bVersions = 1;
    if( boundedInt(p, pLex, "VERSIONS (versions kept per row key)", 1,
                   WC_MAX_VERSIONS, &v) ){
      return;
    }
    pS->nVersions = (int)v;
  }else{
    pGiven->bTtl = 1;
    if( boundedInt(p, pLex, "TTL (seconds a version stays visible)", 1,
                   WC_MAX_TTL, &v) ){
      return;
    }
    pS->nTtl = v;
  }
  pS->bVersioned = 1;
  if( pLex->tk.eType == TK_OTHER && pLex->tk.z[0] == '.' ){
    parseError(p, "widecol %s: %s must be a whole number, not %.*s",
               pS->zTable, bVersions ? "VERSIONS" : "TTL",
               (int)strcspn(zNum, " \t\n,)"), zNum);
    return;
  }
  if( pLex->tk.eType != TK_END ){
    unexpected(p, &pLex->tk, "an option", "nothing more");
  }
}

static void parseOption(Parse *p, const char *zArg, Given *pGiven){
  WcSchema *pS = p->pSchema;
  Lexer lex;
  int bDelimiter;
  lexInit(&lex, zArg);
  bDelimiter = tokenIs(&lex.tk, "DELIMITER");
  if( tokenIs(&lex.tk, "VERSIONS") || tokenIs(&lex.tk, "TTL") ){
    int bVersions = tokenIs(&lex.tk, "VERSIONS");
    lexNext(&lex);
    if( lex.tk.eType == TK_OTHER && lex.tk.z[0] == '=' ) lexNext(&lex);
    parseVersionOption(p, &lex, bVersions, pGiven);
    return;
  }
  lexNext(&lex);
  if( lex.tk.eType == TK_OTHER && lex.tk.z[0] == '=' ) lexNext(&lex);
  if( bDelimiter ){
    if( pGiven->bDelim ){
      parseError(p, "widecol %s: DELIMITER is given twice", pS->zTable);
      return;
    }
    if( lex.tk.eType != TK_STRING ){
      unexpected(p, &lex.tk, "DELIMITER", "a quoted string such as '_' "
                 "or ''");
      return;
    }
    pGiven->bDelim = 1;
    sqlite3_free(pS->zDelim);
    pS->zDelim = tokenText(&lex.tk);
    if( pS->zDelim == 0 ){
      parseError(p, "out of memory");
      return;
    }
    pS->nDelim = (int)strlen(pS->zDelim);
    if( pS->nDelim > 16 ){
      parseError(p, "widecol %s: DELIMITER is %d bytes long; keep it to at "
                 "most 16 (one character is usual)", pS->zTable, pS->nDelim);
      return;
    }
  }else{
    if( pGiven->bEncoding ){
      parseError(p, "widecol %s: ENCODING is given twice", pS->zTable);
      return;
    }
    pGiven->bEncoding = 1;
    if( tokenIs(&lex.tk, "TEXT") ){
      pS->eEncoding = WC_ENCODING_TEXT;
    }else if( tokenIs(&lex.tk, "BINARY") ){
      pS->eEncoding = WC_ENCODING_BINARY;
    }else{
      unexpected(p, &lex.tk, "ENCODING", "TEXT or BINARY");
      return;
    }
  }
  lexNext(&lex);
  if( lex.tk.eType != TK_END ){
    unexpected(p, &lex.tk, "an option", "nothing more");
  }
}

/*
** STORAGE BIGTABLE '<projects/p/instances/i/tables/t>', STORAGE HBASE
** '[namespace:]table', and SPLITS ('k', x'..', ...).  The table name is
** checked here as its engine would check it, so that a typo is an error
** before anything is made.
*/

/* True if z[0..n) is a column family's name or an index table's suffix
** both engines take: [_a-zA-Z0-9][-_.a-zA-Z0-9]*. */
static int isTableId(const char *z, int n){
  int i;
  if( n < 1 || z[0] == '-' || z[0] == '.' ) return 0;
  for(i = 0; i < n; i++){
    unsigned char c = (unsigned char)z[i];
    if( !(isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
          || c == '_' || c == '-' || c == '.') ){
      return 0;
    }
  }
  return 1;
}

static void checkCassandra(Parse *p);

/* What else the engine of STORAGE kind eStore asks of a design, or 0. */
static void (*kindCheck(int eStore))(Parse*){
  return eStore == WC_STORE_CASSANDRA ? checkCassandra : 0;
}

/* "a" or "an", before an engine's name. */
static const char *article(const WcKind *pKind){
  return pKind->zEngine[0] == 'H' ? "an" : "a";
}

static void parseStorage(Parse *p, const char *zArg){
  WcSchema *pS = p->pSchema;
  const WcKind *pKind = 0;
  char zWhat[32];
  Lexer lex;
  lexInit(&lex, zArg);
  lexNext(&lex);
  if( pS->zStorage ){
    parseError(p, "widecol %s: STORAGE is given twice", pS->zTable);
    return;
  }
  if( lex.tk.eType == TK_ID ) pKind = wcKindByWord(lex.tk.z, lex.tk.n);
  if( pKind == 0 ){
    sqlite3_str *pKinds = sqlite3_str_new(0);
    char *zKinds;
    wcKindAppendStorage(pKinds, "", ", ", " or ", 0);
    zKinds = sqlite3_str_finish(pKinds);
    unexpected(p, &lex.tk, "STORAGE", zKinds ? zKinds : "a kind of store");
    sqlite3_free(zKinds);
    return;
  }
  sqlite3_snprintf(sizeof(zWhat), zWhat, "STORAGE %s", pKind->zWord);
  lexNext(&lex);
  if( lex.tk.eType != TK_STRING ){
    char *zHow = sqlite3_mprintf("the %s table's name as a string: %s",
                                 pKind->zEngine, pKind->zForm);
    unexpected(p, &lex.tk, zWhat, zHow ? zHow : "a string");
    sqlite3_free(zHow);
    return;
  }
  pS->zStorage = tokenText(&lex.tk);
  if( pS->zStorage == 0 ){
    parseError(p, "out of memory");
    return;
  }
  if( !wcKindValidName(pKind->eStore, pS->zStorage) ){
    parseError(p, "widecol %s: %s '%s' is not %s %s table name; write %s",
               pS->zTable, zWhat, pS->zStorage, article(pKind),
               pKind->zEngine, pKind->zForm);
    return;
  }
  if( wcKindReserved(pKind, pS->zStorage) ){
    parseError(p, "widecol %s: %s '%s' is in %s's own %s %s, where %s keeps "
               "its catalog; name a table in a %s of yours", pS->zTable,
               zWhat, pS->zStorage, pKind->zEngine,
               pKind->eStore == WC_STORE_HBASE ? "namespace" : "keyspace",
               wcKindReserved(pKind, pS->zStorage), pKind->zEngine,
               pKind->eStore == WC_STORE_HBASE ? "namespace" : "keyspace");
    return;
  }
  pS->eStore = pKind->eStore;
  pS->zStorageTable = wcKindTableId(pKind, pS->zStorage);
  lexNext(&lex);
  if( tokenIs(&lex.tk, "EXTERNAL") ){
    pS->bExternal = 1;
    lexNext(&lex);
  }else if( tokenIs(&lex.tk, "EXISTING") ){
    pS->bExisting = 1;
    lexNext(&lex);
    if( tokenIs(&lex.tk, "WRITABLE") ){
      pS->bWritable = 1;
      lexNext(&lex);
    }
  }
  if( lex.tk.eType != TK_END ){
    char *zHow = sqlite3_mprintf("EXTERNAL (DROP TABLE keeps the %s "
        "tables), EXISTING [WRITABLE] (a table made by another application, "
        "with CELLS(...)) or nothing more", pKind->zEngine);
    char zAfter[48];
    sqlite3_snprintf(sizeof(zAfter), zAfter, "%s '<table>'", zWhat);
    unexpected(p, &lex.tk, zAfter, zHow ? zHow : "nothing more");
    sqlite3_free(zHow);
  }
}

/* CELLS(column 'family:qualifier' STRING|LONG|DOUBLE|BYTES, ...): where
** an EXISTING table keeps each column that is not a key field. */
static void parseCells(Parse *p, const char *zArg){
  static const char *const azType[] = { "STRING", "LONG", "DOUBLE", "BYTES" };
  WcSchema *pS = p->pSchema;
  Lexer lex;
  lexInit(&lex, zArg);
  lexNext(&lex);     /* CELLS */
  if( lex.tk.eType != TK_LP ){
    unexpected(p, &lex.tk, "CELLS", "\"(\" and the cells: CELLS(column "
               "'family:qualifier' STRING|LONG|DOUBLE|BYTES, ...)");
    return;
  }
  lexNext(&lex);
  while( !p->zErr ){
    WcColumn *pCol;
    char *zName, *zCell, *zColon;
    int iCol, k;
    zName = lex.tk.eType == TK_ID ? tokenText(&lex.tk) : 0;
    iCol = zName ? wcSchemaColumn(pS, zName) : -1;
    if( iCol < 0 ){
      if( zName ){
        parseError(p, "widecol %s: CELLS names %s, which is not a column",
                   pS->zTable, zName);
      }else{
        unexpected(p, &lex.tk, "CELLS(", "a column's name");
      }
      sqlite3_free(zName);
      return;
    }
    sqlite3_free(zName);
    pCol = &pS->aCol[iCol];
    if( pCol->eCell ){
      parseError(p, "widecol %s: CELLS names column %s twice", pS->zTable,
                 pCol->zName);
      return;
    }
    lexNext(&lex);
    zCell = lex.tk.eType == TK_STRING ? tokenText(&lex.tk) : 0;
    zColon = zCell ? strchr(zCell, ':') : 0;
    if( zColon == 0 || zColon == zCell || zColon[1] == 0 ){
      if( lex.tk.eType != TK_STRING ){
        unexpected(p, &lex.tk, "CELLS(column", "its cell as a string, "
                   "'family:qualifier'");
      }else{
        parseError(p, "widecol %s: CELLS gives column %s the cell '%s'; "
                   "write it 'family:qualifier', both parts given",
                   pS->zTable, pCol->zName, zCell ? zCell : "");
      }
      sqlite3_free(zCell);
      return;
    }
    pCol->zCellFamily = sqlite3_mprintf("%.*s", (int)(zColon - zCell), zCell);
    pCol->zCellQualifier = sqlite3_mprintf("%s", zColon + 1);
    sqlite3_free(zCell);
    if( pCol->zCellFamily == 0 || pCol->zCellQualifier == 0 ){
      parseError(p, "out of memory");
      return;
    }
    if( !isTableId(pCol->zCellFamily, (int)strlen(pCol->zCellFamily))
     || strlen(pCol->zCellFamily) > 64 ){
      parseError(p, "widecol %s: CELLS gives column %s the family \"%s\", "
                 "which cannot be a column family (letters, digits, "
                 "_ - ., at most 64 characters)", pS->zTable, pCol->zName,
                 pCol->zCellFamily);
      return;
    }
    lexNext(&lex);
    for(k = 0; k < 4 && !tokenIs(&lex.tk, azType[k]); k++){}
    if( k == 4 ){
      unexpected(p, &lex.tk, "CELLS(column 'family:qualifier'", "how the "
                 "cell holds the value: STRING (UTF-8 text), LONG or DOUBLE "
                 "(8 bytes big-endian, as HBase's Bytes.toBytes writes "
                 "them) or BYTES");
      return;
    }
    pCol->eCell = WC_CELL_STRING + k;
    lexNext(&lex);
    if( lex.tk.eType == TK_RP ) break;
    if( lex.tk.eType != TK_COMMA ){
      unexpected(p, &lex.tk, "CELLS(...)", "\",\" or \")\"");
      return;
    }
    lexNext(&lex);
  }
  lexNext(&lex);
  if( !p->zErr && lex.tk.eType != TK_END ){
    unexpected(p, &lex.tk, "CELLS(...)", "nothing after the closing \")\"");
  }
}

/* An EXISTING table: keys the design can read back, a cell for every
** column that is not a key field, nothing widecol would keep beside the
** rows; CELLS only with EXISTING. */
static void checkExisting(Parse *p, int bCells){
  WcSchema *pS = p->pSchema;
  int i;
  if( !pS->bExisting ){
    if( bCells ){
      parseError(p, "widecol %s: CELLS maps the columns of a table widecol "
                 "did not make; add EXISTING after STORAGE BIGTABLE|HBASE "
                 "'<table>'", pS->zTable);
    }
    return;
  }
  if( pS->nIndex > 0 || pS->nFamily > 0 || pS->bVersioned ){
    parseError(p, "widecol %s: an EXISTING table is read as it is: %s is "
               "widecol's own layout; drop it, or copy the rows into a "
               "table of your design (INSERT INTO new SELECT * FROM %s)",
               pS->zTable, pS->nIndex ? "INDEX" : pS->nFamily ? "FAMILY"
               : "VERSIONS or TTL", pS->zTable);
    return;
  }
  if( pS->nSplit > 0 ){
    parseError(p, "widecol %s: an EXISTING table keeps the splits it has; "
               "drop SPLITS (widecol_regions('%s') shows them)", pS->zTable,
               pS->zTable);
    return;
  }
  /* A SALT's or BUCKET's source must be a field too, to be read back. */
  for(i = 0; i < pS->nElem; i++){
    const WcElement *pElem = &pS->aElem[i];
    int nSrc = pElem->eKind == WC_ELEM_SALT ? pElem->nSaltCol
             : pElem->eKind == WC_ELEM_BUCKET ? 1 : 0, j;
    for(j = 0; j < nSrc; j++){
      int iCol = pElem->eKind == WC_ELEM_SALT ? pElem->aiSaltCol[j]
                                               : pElem->iCol;
      if( pS->aCol[iCol].iElem < 0 ){
        parseError(p, "widecol %s: an EXISTING table's key fields are read "
                   "from its keys, but column %s is only hashed into the key "
                   "(%s); make it a field of the key too", pS->zTable,
                   pS->aCol[iCol].zName,
                   pElem->eKind == WC_ELEM_BUCKET ? "BUCKET"
                   : pElem->bToken ? "TOKEN" : "SALT");
        return;
      }
    }
  }
  if( pS->bWritable && !bCells ){
    parseError(p, "widecol %s: EXISTING WRITABLE needs CELLS: a row of a "
               "table opened EXISTING is its cells, and %s keeps no row "
               "without one; name a column's cell in CELLS(column "
               "'family:qualifier' STRING, ...), or drop WRITABLE", pS->zTable,
               wcKind(pS->eStore)->zEngine);
    return;
  }
  for(i = 0; i < pS->nCol; i++){
    const WcColumn *pCol = &pS->aCol[i];
    if( pCol->iElem >= 0 && pCol->eCell ){
      parseError(p, "widecol %s: column %s is a field of the key, read from "
                 "the key; CELLS names the other columns", pS->zTable,
                 pCol->zName);
      return;
    }
    if( pCol->iElem < 0 && !pCol->eCell ){
      parseError(p, "widecol %s: column %s is no field of the key and has no "
                 "cell; name it in CELLS(%s 'family:qualifier' STRING, ...)",
                 pS->zTable, pCol->zName, pCol->zName);
      return;
    }
  }
}

/* On a remote store each FAMILY is a column family, next to "_" (the
** other columns), and each INDEX a table of its own, <table>_idx_<index>:
** their names must be the engine's. */
/* A key kept as a CQL table's primary key (the row key, or an INDEX's):
** Cassandra's form, each field a column in value order.  zKey names it in
** messages ("the key", "INDEX by_item"). */
static void checkCqlKey(Parse *p, const WcSchema *pKey, const char *zKey){
  WcSchema *pS = p->pSchema;
  const WcElement *pTok = &pKey->aElem[0];
  const char *zT = pS->zTable;
  int i, j;
  if( !pTok->bToken && pKey == pS ){
    parseError(p, "widecol %s: STORAGE CASSANDRA keeps rows as the CQL table "
               "the design means, so the key must be in Cassandra's form: "
               "PRIMARY KEY ((partition columns), clustering columns), or "
               "ROWKEY(TOKEN(p, ...), p, ..., c, ...)", zT);
    return;
  }
  if( !pTok->bToken ){
    parseError(p, "widecol %s: STORAGE CASSANDRA keeps %s as a CQL table of "
               "its own, so its key must be in Cassandra's form, led by the "
               "token of its partition columns: %s(TOKEN(p, ...), p, ..., "
               "c, ...)", zT, zKey, zKey);
    return;
  }
  for(i = 0; i < pTok->nSaltCol; i++){
    const WcElement *pE = i + 1 < pKey->nElem ? &pKey->aElem[i + 1] : 0;
    if( pE == 0 || pE->eKind != WC_ELEM_COLUMN
     || pE->iCol != pTok->aiSaltCol[i] ){
      parseError(p, "widecol %s: STORAGE CASSANDRA needs %s's partition "
                 "columns as the fields right after TOKEN(...), in its "
                 "order, as PRIMARY KEY ((%s, ...), ...) writes them: a row "
                 "is deleted by its key, which must hold the column %s", zT,
                 zKey, pS->aCol[pTok->aiSaltCol[0]].zName,
                 pS->aCol[pTok->aiSaltCol[i]].zName);
      return;
    }
  }
  for(i = 1; i < pKey->nElem; i++){
    const WcElement *pE = &pKey->aElem[i];
    if( pE->eKind != WC_ELEM_COLUMN ){
      parseError(p, "widecol %s: STORAGE CASSANDRA has no SALT or BUCKET "
                 "after the partition key: Cassandra's token spreads the "
                 "partitions already; a bucket belongs in the partition "
                 "key, as a column the application fills: PRIMARY KEY "
                 "((sensor, bucket), ts)", zT);
      return;
    }
    for(j = 0; j < pE->nXform; j++){
      if( pE->aXform[j].eOp == WC_XFORM_REVERSE ){
        parseError(p, "widecol %s: STORAGE CASSANDRA has no REVERSE (on %s): "
                   "a CQL column keeps its value; to spread writes, put the "
                   "column in the partition key, whose token spreads them",
                   zT, pS->aCol[pE->iCol].zName);
        return;
      }
    }
    /* The token orders partitions; a clustering column, its rows. */
    if( i > pTok->nSaltCol && pE->eOrder != WC_ORDER_ASC
     && pE->eOrder != WC_ORDER_DESC ){
      parseError(p, "widecol %s: STORAGE CASSANDRA needs each clustering "
                 "column's bytes in its values' order, as CQL sorts the "
                 "rows of a partition, but %s's are not (%s); write the key "
                 "as PRIMARY KEY (...) does (ENCODING BINARY)", zT,
                 pS->aCol[pE->iCol].zName, pE->zUnordered ? pE->zUnordered
                 : "text sorts by its bytes only up to the delimiter");
      return;
    }
  }
}

/* STORAGE CASSANDRA keeps each row as the CQL table its design means
** (partition key, clustering columns in order, the other columns), and
** each INDEX as a CQL table of its own keyed by the index (eBay's
** User_By_Item beside Item_By_User), so the design must be one CQL can
** hold.  Each refusal says what to write instead. */
static void checkCassandra(Parse *p){
  WcSchema *pS = p->pSchema;
  const char *zT = pS->zTable;
  int i;
  if( pS->bExisting ){
    parseError(p, "widecol %s: STORAGE CASSANDRA has no EXISTING: a CQL "
               "table's columns are typed, not cells; copy the rows into a "
               "widecol table instead (INSERT INTO ... SELECT ...)", zT);
    return;
  }
  checkCqlKey(p, pS, "the key");
  for(i = 0; i < pS->nIndex && !p->zErr; i++){
    char *zKey = sqlite3_mprintf("INDEX %s", pS->aIndex[i].zName);
    if( zKey == 0 ){
      parseError(p, "out of memory");
      return;
    }
    checkCqlKey(p, pS->aIndex[i].pKey, zKey);
    sqlite3_free(zKey);
  }
  if( p->zErr ) return;
  if( pS->nRandom ){
    parseError(p, "widecol %s: STORAGE CASSANDRA has no RANDOM(n): its number "
               "is no CQL column; add a clustering column the application "
               "fills (widecol_ddl(t, 'cql') writes one)", zT);
  }else if( pS->nFamily > 0 ){
    parseError(p, "widecol %s: STORAGE CASSANDRA has no FAMILY: a CQL table's "
               "columns are all the row's; drop FAMILY %s", zT,
               pS->aFamily[0].zName);
  }else if( pS->nVersions > 1 ){
    parseError(p, "widecol %s: STORAGE CASSANDRA keeps one value per cell, "
               "not VERSIONS %d; keep history as a clustering column (a "
               "timestamp: PRIMARY KEY ((id), at DESC))", zT, pS->nVersions);
  }else if( pS->nTtl > 630720000 ){
    parseError(p, "widecol %s: TTL %lld is past Cassandra's largest "
               "default_time_to_live, 630720000 seconds (20 years); give a "
               "smaller TTL, or none", zT, (long long)pS->nTtl);
  }else if( pS->nSplit > 0 ){
    parseError(p, "widecol %s: STORAGE CASSANDRA has no SPLITS: Cassandra "
               "places partitions on its ring by token; drop SPLITS", zT);
  }
}

static void checkRemote(Parse *p){
  WcSchema *pS = p->pSchema;
  const char *zId = pS->zStorageTable;
  const WcKind *pKind = wcKind(pS->eStore);
  void (*xCheck)(Parse*) = kindCheck(pS->eStore);
  int i;
  if( xCheck ){
    xCheck(p);
    if( p->zErr ) return;
  }
  for(i = 0; i < pS->nFamily; i++){
    const char *z = pS->aFamily[i].zName;
    if( !isTableId(z, (int)strlen(z)) || strlen(z) > 64 ){
      parseError(p, "widecol %s: FAMILY %s cannot be %s %s column family "
                 "(letters, digits, _ - ., at most 64 characters)",
                 pS->zTable, z, article(pKind), pKind->zEngine);
      return;
    }
  }
  for(i = 0; i < pS->nIndex; i++){
    const char *z = pS->aIndex[i].zName;
    if( !isTableId(z, (int)strlen(z))
     || strlen(zId) + 5 + strlen(z) > (size_t)pKind->nMaxId ){
      parseError(p, "widecol %s: INDEX %s would be the %s table "
                 "%s_idx_%s, which is not a valid table id (letters, digits, "
                 "_ - ., at most %d characters); shorten or rename it",
                 pS->zTable, z, pKind->zEngine, zId, z, pKind->nMaxId);
      return;
    }
  }
}

static int hexValue(unsigned char c){
  return isDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* A split key: 'text' or x'hex'. */
static int splitKey(Parse *p, Lexer *pLex, WcSplit *pOut){
  int bHex = pLex->tk.eType == TK_ID && pLex->tk.n == 1
          && (pLex->tk.z[0] | 0x20) == 'x';
  char *zText;
  if( bHex ) lexNext(pLex);
  if( pLex->tk.eType != TK_STRING ){
    unexpected(p, &pLex->tk, "SPLITS", "split keys as strings, 'k1' or "
               "x'6b31', in parentheses");
    return 1;
  }
  zText = tokenText(&pLex->tk);
  if( zText == 0 ){
    parseError(p, "out of memory");
    return 1;
  }
  pOut->a = (unsigned char*)zText;
  pOut->n = (int)strlen(zText);
  if( bHex ){
    /* SQLite's tokenizer let only an even number of hex digits through. */
    int i;
    for(i = 0; i + 1 < pOut->n; i += 2){
      pOut->a[i / 2] = (unsigned char)(hexValue((unsigned char)zText[i]) * 16
                                       + hexValue((unsigned char)zText[i + 1]));
    }
    pOut->n /= 2;
  }
  lexNext(pLex);
  return 0;
}

static int compareSplits(const WcSplit *pA, const WcSplit *pB){
  int n = pA->n < pB->n ? pA->n : pB->n;
  int c = memcmp(pA->a, pB->a, (size_t)n);
  return c ? c : pA->n - pB->n;
}

static void parseSplits(Parse *p, const char *zArg){
  WcSchema *pS = p->pSchema;
  Lexer lex;
  int nAlloc = 0;
  lexInit(&lex, zArg);
  lexNext(&lex);
  if( pS->aSplit ){
    parseError(p, "widecol %s: SPLITS is given twice", pS->zTable);
    return;
  }
  if( lex.tk.eType != TK_LP ){
    unexpected(p, &lex.tk, "SPLITS", "a list of split keys, ('k1', 'k2')");
    return;
  }
  lexNext(&lex);
  for(;;){
    WcSplit *pNew;
    if( pS->nSplit == nAlloc ){
      nAlloc = nAlloc ? nAlloc * 2 : 8;
      pNew = sqlite3_realloc64(pS->aSplit, sizeof(WcSplit) * (size_t)nAlloc);
      if( pNew == 0 ){
        parseError(p, "out of memory");
        return;
      }
      pS->aSplit = pNew;
    }
    memset(&pS->aSplit[pS->nSplit], 0, sizeof(WcSplit));
    if( splitKey(p, &lex, &pS->aSplit[pS->nSplit]) ){
      sqlite3_free(pS->aSplit[pS->nSplit].a);
      return;
    }
    pS->nSplit++;
    if( pS->aSplit[pS->nSplit - 1].n == 0 ){
      parseError(p, "widecol %s: SPLITS holds an empty key; a split point "
                 "must be a key where a region starts", pS->zTable);
      return;
    }
    if( pS->nSplit > 1 && compareSplits(&pS->aSplit[pS->nSplit - 2],
                                        &pS->aSplit[pS->nSplit - 1]) >= 0 ){
      parseError(p, "widecol %s: SPLITS must be in increasing byte order, "
                 "without repeats (split %d is not after split %d)",
                 pS->zTable, pS->nSplit, pS->nSplit - 1);
      return;
    }
    if( lex.tk.eType == TK_COMMA ){
      lexNext(&lex);
      continue;
    }
    if( lex.tk.eType != TK_RP ){
      unexpected(p, &lex.tk, "SPLITS", "\",\" or \")\"");
      return;
    }
    break;
  }
  lexNext(&lex);
  if( lex.tk.eType != TK_END ){
    unexpected(p, &lex.tk, "SPLITS (...)", "nothing more");
  }
}

/*
** Checks of the finished schema, and what each element's bytes look like.
*/

/* What a column element's value becomes, transform by transform. */
#define KIND_INT        1   /* an integer, written in decimal */
#define KIND_TEXT       2   /* text of any length */
#define KIND_BLOB       3   /* bytes of any length */
#define KIND_DIGITS     4   /* zero-padded digits, ascending */
#define KIND_FILLED     5   /* text right-padded with a fill character */
#define KIND_DESCDIGITS 6   /* max - value, zero-padded: descending */
#define KIND_DESCBYTES  7   /* rk_desc bytes: self-delimiting, descending */
#define KIND_REVERSED   8   /* reversed characters or bytes */

/* Either order of DESC and REVERSE on text or bytes is refused, with the
** same words. */
static const char zTextDescReverse[] =
  "DESC and REVERSE do not combine on TEXT or BLOB values, in either "
  "order: DESC writes bytes that end in a marker REVERSE would move, and "
  "reversed text has no order for DESC to invert; use DESC alone for "
  "newest-first order, or REVERSE alone to spread writes";

static void checkTextElement(Parse *p, int iElem){
  WcSchema *pS = p->pSchema;
  WcElement *pElem = &pS->aElem[iElem];
  WcColumn *pCol = &pS->aCol[pElem->iCol];
  int eKind, bFixed = 0, i;
  switch( pCol->cAff ){
    case WC_AFF_INTEGER: eKind = KIND_INT; break;
    case WC_AFF_TEXT:    eKind = KIND_TEXT; break;
    case WC_AFF_BLOB:    eKind = KIND_BLOB; break;
    default:
      parseError(p, "widecol %s: %s column \"%s\" is %s, and TEXT "
                 "encoding has no order-preserving text form for %s values; "
                 "declare it INTEGER or TEXT, or use ENCODING BINARY",
                 pS->zTable, p->zKey, pCol->zName, affinityName(pCol->cAff),
                 affinityName(pCol->cAff));
      return;
  }
  for(i = 0; i < pElem->nXform && !p->zErr; i++){
    WcTransform *pX = &pElem->aXform[i];
    const char *zBad = 0;
    switch( pX->eOp ){
      case WC_XFORM_PAD:
        if( eKind == KIND_INT ){
          eKind = KIND_DIGITS;
        }else if( eKind == KIND_TEXT ){
          eKind = KIND_FILLED;
        }else{
          zBad = eKind == KIND_BLOB ? "PAD does not apply to BLOB values"
               : "PAD must come before DESC and REVERSE";
        }
        bFixed = 1;
        break;
      case WC_XFORM_DESC:
        if( pX->bArg && eKind != KIND_INT ){
          zBad = "DESC max applies to INTEGER values; DESC on text or bytes "
                 "takes no max";
        }else if( eKind == KIND_INT ){
          if( !pX->bArg ) pX->iArg = INT64_MAX;
          eKind = KIND_DESCDIGITS;
        }else if( eKind == KIND_TEXT || eKind == KIND_BLOB
               || eKind == KIND_DIGITS ){
          eKind = KIND_DESCBYTES;
        }else{
          zBad = eKind == KIND_FILLED
            ? "DESC after PAD on text cannot keep an exact order; text DESC "
              "needs no PAD, it marks its own end"
            : pCol->cAff != WC_AFF_INTEGER ? zTextDescReverse
            : "DESC must come before REVERSE";
        }
        bFixed = 1;
        break;
      default:
        if( eKind == KIND_DESCBYTES ){
          zBad = pCol->cAff == WC_AFF_INTEGER
            ? "REVERSE after PAD and DESC would move the bytes that mark "
              "where the field ends; for reversed descending digits write "
              "DESC <max> REVERSE"
            : zTextDescReverse;
        }
        eKind = KIND_REVERSED;
        break;
    }
    if( zBad ){
      parseError(p, "widecol %s: %s column \"%s\": %s", pS->zTable,
                 p->zKey, pCol->zName, zBad);
    }
  }
  pElem->bFixed = bFixed;
  pElem->eSpan = WC_SPAN_DELIM;
  for(i = 0; i < pElem->nXform; i++){
    const WcTransform *pX = &pElem->aXform[i];
    if( pX->eOp == WC_XFORM_PAD ){
      pElem->eSpan = eKind == KIND_FILLED
                  || (eKind == KIND_REVERSED && pCol->cAff == WC_AFF_TEXT)
                     ? WC_SPAN_CHARS : WC_SPAN_BYTES;
      pElem->nSpan = (int)pX->iArg;
    }else if( pX->eOp == WC_XFORM_DESC ){
      if( pElem->eSpan == WC_SPAN_DELIM && pCol->cAff == WC_AFF_INTEGER ){
        pElem->eSpan = WC_SPAN_BYTES;
        pElem->nSpan = rkDigitCount((uint64_t)pX->iArg);
      }else{
        pElem->eSpan = WC_SPAN_DESC;
      }
    }
  }
  switch( eKind ){
    case KIND_DIGITS:
    case KIND_DESCBYTES:
      pElem->eOrder = eKind == KIND_DIGITS ? WC_ORDER_ASC : WC_ORDER_DESC;
      break;
    case KIND_DESCDIGITS:
      pElem->eOrder = WC_ORDER_DESC;
      break;
    case KIND_TEXT:
    case KIND_BLOB:
      pElem->eOrder = wcElementIsLast(pS, iElem) ? WC_ORDER_ASC
                                                 : WC_ORDER_PREFIX;
      pElem->cTerm = pS->nDelim ? (unsigned char)pS->zDelim[0] : 0;
      break;
    case KIND_FILLED:
      pElem->eOrder = WC_ORDER_PREFIX;
      pElem->cTerm = (unsigned char)pElem->aXform[0].zFill[0];
      break;
    case KIND_INT:
      pElem->eOrder = WC_ORDER_NONE;
      pElem->zUnordered = "unpadded INTEGER";
      break;
    default:
      pElem->eOrder = WC_ORDER_NONE;
      pElem->zUnordered = "REVERSE";
      break;
  }
}

static void checkBinaryElement(Parse *p, int iElem){
  WcSchema *pS = p->pSchema;
  WcElement *pElem = &pS->aElem[iElem];
  WcColumn *pCol = &pS->aCol[pElem->iCol];
  int i;
  pElem->bFixed = 1;
  pElem->eOrder = WC_ORDER_ASC;
  if( pCol->zType[0] == 0 ){
    return;    /* reported by checkKeyColumn */
  }
  for(i = 0; i < pElem->nXform; i++){
    WcTransform *pX = &pElem->aXform[i];
    if( pX->eOp != WC_XFORM_DESC || pX->bArg ){
      parseError(p, "widecol %s: %s column \"%s\": %s belongs to TEXT "
                 "encoding; BINARY keys keep every value's order already and "
                 "take only DESC, without a max", pS->zTable, p->zKey,
                 pCol->zName,
                 pX->eOp == WC_XFORM_PAD ? "PAD"
                 : pX->eOp == WC_XFORM_REVERSE ? "REVERSE" : "DESC max");
      return;
    }
    pElem->eOrder = WC_ORDER_DESC;
  }
}

/* A column the key depends on needs a type that says what it holds. */
static void checkKeyColumn(Parse *p, int iCol, const char *zRole){
  WcSchema *pS = p->pSchema;
  WcColumn *pCol = &pS->aCol[iCol];
  pCol->bKey = 1;
  if( pCol->zType[0] == 0 ){
    parseError(p, "widecol %s: %s \"%s\" has no declared type; key fields "
               "are typed: declare it INTEGER, TEXT or BLOB%s", pS->zTable,
               zRole, pCol->zName, pS->eEncoding == WC_ENCODING_BINARY
               ? " (or REAL, NUMERIC)" : "");
  }else if( pCol->zColl && p->bCreate ){
    /* Tables created before this rule still connect; the planner never
    ** takes an ORDER BY on such a field from the key. */
    parseError(p, "widecol %s: %s \"%s\" is declared COLLATE %s; a key "
               "tells values apart and orders them by their bytes, as "
               "HBase's row keys do, so under %s two values the collation "
               "calls equal would be two keys, sorted apart; declare the "
               "column without COLLATE (and store, say, lower(%s) if that "
               "is the key you mean), or keep the collation on a column "
               "outside the key", pS->zTable, zRole, pCol->zName,
               pCol->zColl, pCol->zColl, pCol->zName);
  }
}

static void checkSourceColumn(Parse *p, int iCol, const char *zElem,
                              int bToken){
  WcSchema *pS = p->pSchema;
  WcColumn *pCol = &pS->aCol[iCol];
  checkKeyColumn(p, iCol, zElem);
  if( p->zErr ) return;
  if( bToken ){
    /* A token hashes the value as Cassandra serializes its type (a REAL:
    ** a double, as rk_token() does); a NUMERIC column has no one type. */
    if( pCol->cAff == WC_AFF_NUMERIC ){
      parseError(p, "widecol %s: partition key column \"%s\" is NUMERIC, "
                 "which holds integers and reals, and Cassandra's token "
                 "hashes each type's bytes differently; declare it INTEGER "
                 "(bigint), REAL (double), TEXT or BLOB", pS->zTable,
                 pCol->zName);
    }
    return;
  }
  if( pCol->cAff == WC_AFF_REAL || pCol->cAff == WC_AFF_NUMERIC ){
    parseError(p, "widecol %s: %s column \"%s\" is %s; salts and buckets are "
               "computed from the text of INTEGER, TEXT or BLOB values, and "
               "REAL values have no exact text form", pS->zTable, zElem,
               pCol->zName, affinityName(pCol->cAff));
  }
}

/* Checks the elements of a row key or index key and works out what
** their bytes look like. */
static void checkElements(Parse *p){
  WcSchema *pS = p->pSchema;
  char *zRole = sqlite3_mprintf("%s column", p->zKey);
  int i, j;
  if( zRole == 0 ){
    parseError(p, "out of memory");
    return;
  }
  for(i = 0; i < pS->nElem && !p->zErr; i++){
    WcElement *pElem = &pS->aElem[i];
    if( pElem->eKind == WC_ELEM_COLUMN ){
      checkKeyColumn(p, pElem->iCol, zRole);
      if( p->zErr ) break;
      if( pS->eEncoding == WC_ENCODING_BINARY ){
        checkBinaryElement(p, i);
      }else{
        checkTextElement(p, i);
      }
    }else{
      const char *zKind = pElem->bToken ? "TOKEN"
                        : pElem->eKind == WC_ELEM_SALT ? "SALT" : "BUCKET";
      pElem->bFixed = 1;
      pElem->eSpan = WC_SPAN_BYTES;
      pElem->nSpan = pElem->bToken
        ? (pS->eEncoding == WC_ENCODING_BINARY ? 8 : 16)
        : pElem->eKind == WC_ELEM_SALT
        ? (pElem->nSaltDigit < 0 ? -pElem->nSaltDigit : pElem->nSaltDigit)
        : rkDigitCount((uint64_t)(pElem->nBucket - 1));
      pElem->eOrder = WC_ORDER_NONE;
      pElem->zUnordered = zKind;
      if( pElem->eKind == WC_ELEM_BUCKET ){
        checkSourceColumn(p, pElem->iCol, zKind, 0);
      }
      for(j = 0; j < pElem->nSaltCol && !p->zErr; j++){
        checkSourceColumn(p, pElem->aiSaltCol[j], zKind, pElem->bToken);
      }
    }
  }
  sqlite3_free(zRole);
  if( !p->zErr && pS->eEncoding == WC_ENCODING_TEXT && pS->nDelim == 0 ){
    for(i = 0; i < pS->nElem; i++){
      WcElement *pElem = &pS->aElem[i];
      if( !pElem->bFixed && !wcElementIsLast(pS, i) ){
        parseError(p, "widecol %s: DELIMITER '' needs every %s element "
                   "%sto have a fixed width (PAD n, DESC, SALT, BUCKET), so "
                   "that the fields can be told apart; \"%s\" does not",
                   pS->zTable, p->zKey, pS->bBorrowed ? "(the row key "
                   "follows them) " : pS->bSuffix ? "(RANDOM's number follows "
                   "them) " : "but the last ", pS->aCol[pElem->iCol].zName);
        break;
      }
    }
  }
}

/*
** INDEX name(elements...) [INCLUDE (columns...)] and FAMILY name(columns).
*/

/* Reads "(column, ...)" into aiCol[*pnCol...], naming zWhere in errors;
** each column passes xCheck, if given, which reports its own error. */
static void parseColumnList(Parse *p, Lexer *pLex, const char *zWhere,
                            int *aiCol, int *pnCol,
                            void (*xCheck)(Parse*, int, const char*)){
  if( expectToken(p, pLex, TK_LP, zWhere, "\"(\" and column names") ) return;
  for(;;){
    int iCol = keyColumn(p, pLex, zWhere), i;
    if( iCol < 0 ) return;
    for(i = 0; i < *pnCol; i++){
      if( aiCol[i] == iCol ){
        parseError(p, "widecol %s: %s names column \"%s\" twice",
                   p->pSchema->zTable, zWhere, p->pSchema->aCol[iCol].zName);
        return;
      }
    }
    aiCol[(*pnCol)++] = iCol;
    if( xCheck ) xCheck(p, iCol, zWhere);
    if( p->zErr ) return;
    if( pLex->tk.eType == TK_RP ) break;
    if( expectToken(p, pLex, TK_COMMA, zWhere, "\",\" or \")\"") ) return;
  }
  lexNext(pLex);
}

/* The name after INDEX or FAMILY, unquoted, if no other index (family)
** has it; NULL after an error. */
static char *objectName(Parse *p, Lexer *pLex, int bIndex){
  const WcSchema *pS = p->pSchema;
  const char *zKind = bIndex ? "INDEX" : "FAMILY";
  char *zName;
  int i, n = bIndex ? pS->nIndex : pS->nFamily;
  if( pLex->tk.eType != TK_ID ){
    unexpected(p, &pLex->tk, zKind, "a name");
    return 0;
  }
  zName = tokenText(&pLex->tk);
  if( zName == 0 ){
    parseError(p, "out of memory");
    return 0;
  }
  lexNext(pLex);
  for(i = 0; i < n; i++){
    const char *zOther = bIndex ? pS->aIndex[i].zName : pS->aFamily[i].zName;
    if( sqlite3_stricmp(zOther, zName) == 0 ){
      parseError(p, "widecol %s: %s %s is declared twice", pS->zTable, zKind,
                 zName);
      sqlite3_free(zName);
      return 0;
    }
  }
  return zName;
}

/* A new WcSchema for an index's key: the table's encoding, delimiter and
** columns (their strings shared), no elements yet. */
static WcSchema *indexKeyNew(const WcSchema *pS, const char *zIndex){
  WcSchema *pKey = sqlite3_malloc(sizeof(WcSchema));
  int i;
  if( pKey == 0 ) return 0;
  memset(pKey, 0, sizeof(*pKey));
  pKey->bBorrowed = 1;
  pKey->bSuffix = 1;
  pKey->zTable = pS->zTable;
  pKey->zDelim = pS->zDelim;
  pKey->nDelim = pS->nDelim;
  pKey->eEncoding = pS->eEncoding;
  pKey->nCol = pS->nCol;
  pKey->zKeyName = sqlite3_mprintf("INDEX %s key", zIndex);
  pKey->aCol = sqlite3_malloc64(sizeof(WcColumn) * (sqlite3_uint64)pS->nCol);
  if( pKey->zKeyName == 0 || pKey->aCol == 0 ){
    wcSchemaFree(pKey);
    return 0;
  }
  memcpy(pKey->aCol, pS->aCol, sizeof(WcColumn) * (size_t)pS->nCol);
  for(i = 0; i < pS->nCol; i++){
    pKey->aCol[i].iElem = -1;
    pKey->aCol[i].bKey = 0;
  }
  return pKey;
}

static void parseIndex(Parse *p, const char *zArg){
  WcSchema *pS = p->pSchema;
  WcIndex *pIdx;
  Parse sub;
  Lexer lex;
  char *zName;
  int i, nInclude = 0, *aiInclude;
  lexInit(&lex, zArg);
  lexNext(&lex);     /* INDEX */
  zName = objectName(p, &lex, 1);
  if( zName == 0 ) return;
  pIdx = &pS->aIndex[pS->nIndex++];
  memset(pIdx, 0, sizeof(*pIdx));
  pIdx->zName = zName;
  pIdx->pKey = indexKeyNew(pS, zName);
  pIdx->abStored = sqlite3_malloc64((sqlite3_uint64)pS->nCol);
  aiInclude = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)pS->nCol);
  memset(&sub, 0, sizeof(sub));
  sub.bCreate = p->bCreate;
  sub.pSchema = pIdx->pKey;
  sub.zKey = sqlite3_mprintf("INDEX %s", zName);
  if( pIdx->pKey == 0 || pIdx->abStored == 0 || aiInclude == 0
   || sub.zKey == 0 ){
    parseError(p, "out of memory");
  }else{
    parseElements(&sub, &lex, maxElements(zArg));
    if( !sub.zErr ) checkElements(&sub);
    if( !sub.zErr && tokenIs(&lex.tk, "INCLUDE") ){
      lexNext(&lex);
      parseColumnList(&sub, &lex, sub.zKey, aiInclude, &nInclude, 0);
    }
    if( !sub.zErr && lex.tk.eType != TK_END ){
      unexpected(&sub, &lex.tk, sub.zKey, "nothing after the closing \")\" "
                 "but INCLUDE (columns...)");
    }
    p->zErr = sub.zErr;
  }
  sqlite3_free((char*)sub.zKey);
  if( p->zErr == 0 ){
    /* Like Phoenix, the index holds the row key's columns too. */
    for(i = 0; i < pS->nCol; i++){
      pIdx->abStored[i] = (unsigned char)(pIdx->pKey->aCol[i].bKey
                                          || pS->aCol[i].bKey);
      if( pIdx->pKey->aCol[i].bKey && pS->aCol[i].iIndexField < 0 ){
        pS->aCol[i].iIndexField = pS->nIndex - 1;
      }
    }
    for(i = 0; i < nInclude; i++) pIdx->abStored[aiInclude[i]] = 1;
  }
  sqlite3_free(aiInclude);
}

/* A family holds columns the row key does not depend on, one family each. */
static void checkFamilyColumn(Parse *p, int iCol, const char *zWhere){
  WcSchema *pS = p->pSchema;
  const WcColumn *pCol = &pS->aCol[iCol];
  if( pCol->bKey ){
    parseError(p, "widecol %s: %s names \"%s\", which the row key is made "
               "of; key fields live in the row key and %s_rows, not in a "
               "family", pS->zTable, zWhere, pCol->zName, pS->zTable);
  }else if( pCol->iFamily >= 0 ){
    parseError(p, "widecol %s: column \"%s\" is in FAMILY %s and in %s; a "
               "column belongs to one family", pS->zTable, pCol->zName,
               pS->aFamily[pCol->iFamily].zName, zWhere);
  }else{
    pS->aCol[iCol].iFamily = pS->nFamily - 1;
  }
}

static void parseFamily(Parse *p, const char *zArg){
  WcSchema *pS = p->pSchema;
  WcFamily *pFam;
  Lexer lex;
  char *zName, *zWhere;
  lexInit(&lex, zArg);
  lexNext(&lex);     /* FAMILY */
  zName = objectName(p, &lex, 0);
  if( zName == 0 ) return;
  if( strcmp(zName, "_") == 0 ){
    /* The stores' and widecol_ddl()'s family of the other columns. */
    parseError(p, "widecol %s: FAMILY _ is the name of the family that "
               "holds the columns no FAMILY names (on HBase and Bigtable); "
               "give this family another name", pS->zTable);
    sqlite3_free(zName);
    return;
  }
  pFam = &pS->aFamily[pS->nFamily++];
  memset(pFam, 0, sizeof(*pFam));
  pFam->zName = zName;
  pFam->aiCol = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)pS->nCol);
  zWhere = sqlite3_mprintf("FAMILY %s", zName);
  if( pFam->aiCol == 0 || zWhere == 0 ){
    parseError(p, "out of memory");
  }else{
    parseColumnList(p, &lex, zWhere, pFam->aiCol, &pFam->nCol,
                    checkFamilyColumn);
    if( !p->zErr && lex.tk.eType != TK_END ){
      unexpected(p, &lex.tk, zWhere, "nothing after the closing \")\"");
    }
  }
  sqlite3_free(zWhere);
}

/*
** Words that look like options.  A column is declared by a bare word only
** if that word is neither close to one of widecol's option words (a typo
** would otherwise become a column: ENCODNG BINARY is a column ENCODNG of
** type BINARY) nor a setting of an HBase column family, which a user
** coming from HBase may expect here.  Quoted, any name is a column.
*/
static const char *const azOptionWord[] = {
  "ROWKEY", "INDEX", "FAMILY", "DELIMITER", "ENCODING", "VERSIONS",
  "STORAGE", "SPLITS",
};
static const char *const azHBaseSetting[] = {
  "COMPRESSION", "BLOCKCACHE", "BLOCKSIZE", "BLOOMFILTER", "IN_MEMORY",
  "MIN_VERSIONS", "KEEP_DELETED_CELLS",
  "DATA_BLOCK_ENCODING", "REPLICATION_SCOPE", "SPLIT_POLICY",
};

/* Edit distance (insertions, deletions, substitutions, swaps of adjacent
** letters), case-insensitive, of a[0..nA) and z; a is short. */
static int wordDistance(const char *a, int nA, const char *z){
  int nZ = (int)strlen(z), i, j;
  int aRow[3][40];
  if( nA >= 39 || nZ >= 39 ) return 99;
  for(j = 0; j <= nZ; j++) aRow[0][j] = j;
  for(i = 1; i <= nA; i++){
    int *pCur = aRow[i % 3], *pPrev = aRow[(i - 1) % 3];
    int *pPrev2 = aRow[(i + 1) % 3];
    pCur[0] = i;
    for(j = 1; j <= nZ; j++){
      int cA = a[i - 1] & 0xDF, cZ = z[j - 1] & 0xDF;
      int d = pPrev[j - 1] + (cA != cZ);
      if( pPrev[j] + 1 < d ) d = pPrev[j] + 1;
      if( pCur[j - 1] + 1 < d ) d = pCur[j - 1] + 1;
      if( i > 1 && j > 1 && cA == (z[j - 2] & 0xDF)
       && (a[i - 2] & 0xDF) == cZ && pPrev2[j - 2] + 1 < d ){
        d = pPrev2[j - 2] + 1;
      }
      pCur[j] = d;
    }
  }
  return aRow[nA % 3][nZ];
}

/* The option word a bare token is a typo of, or NULL. */
static const char *nearOption(const Token *pTk){
  size_t k;
  if( pTk->eType != TK_ID || !isIdStart((unsigned char)pTk->z[0]) ) return 0;
  for(k = 0; k < sizeof(azOptionWord) / sizeof(azOptionWord[0]); k++){
    int d = wordDistance(pTk->z, pTk->n, azOptionWord[k]);
    if( d > 0 && d <= (strlen(azOptionWord[k]) > 5 ? 2 : 1) ){
      return azOptionWord[k];
    }
  }
  return 0;
}

/* The HBase column-family setting a bare token names, or NULL. */
static const char *hbaseSetting(const Token *pTk){
  size_t k;
  if( pTk->eType != TK_ID || !isIdStart((unsigned char)pTk->z[0]) ) return 0;
  for(k = 0; k < sizeof(azHBaseSetting) / sizeof(azHBaseSetting[0]); k++){
    if( tokenIs(pTk, azHBaseSetting[k]) ) return azHBaseSetting[k];
  }
  return 0;
}

/* Refuses an argument that would declare a column by a word that looks
** like an option; returns 1 if it did. */
static int optionLookalike(Parse *p, const char *zArg){
  Lexer lex;
  const char *zNear, *zHBase;
  lexInit(&lex, zArg);
  zNear = nearOption(&lex.tk);
  /* CELL is a column's name too (a map's cell): close to CELLS only
  ** where a "(" follows, as no column definition has it. */
  if( zNear == 0 && lex.tk.eType == TK_ID
   && wordDistance(lex.tk.z, lex.tk.n, "CELLS") == 1 && nextIsParen(&lex) ){
    zNear = "CELLS";
  }
  zHBase = zNear ? 0 : hbaseSetting(&lex.tk);
  if( zNear ){
    parseError(p, "widecol %s: \"%.*s\" is not an option of widecol; did "
               "you mean %s? (to declare a column of that name, quote it: "
               "\"%.*s\")", p->pSchema->zTable, lex.tk.n, lex.tk.z, zNear,
               lex.tk.n, lex.tk.z);
  }else if( zHBase ){
    parseError(p, "widecol %s: %s is an HBase column-family setting, which "
               "widecol does not model; the options are " WC_OPTIONS " (to "
               "declare a column of that name, quote it: \"%.*s\")",
               p->pSchema->zTable, zHBase, lex.tk.n, lex.tk.z);
  }
  return zNear || zHBase;
}

/* What an argument is.  DELIMITER, ENCODING, VERSIONS, TTL, STORAGE and
** SPLITS always
** start an option; a column with one of those names must be quoted
** ("encoding" TEXT).  A word
** followed by a string, a number or "=" is an option this module does not
** have: no column definition looks like that. */
#define ARG_COLUMN    0
#define ARG_ROWKEY    1
#define ARG_DELIMITER 2
#define ARG_ENCODING  3
#define ARG_UNKNOWN   4
#define ARG_BAD       5
#define ARG_INDEX     6
#define ARG_FAMILY    7
#define ARG_VERSIONS  8   /* VERSIONS or TTL */
#define ARG_STORAGE   9
#define ARG_SPLITS   10
#define ARG_PRIMARY  11   /* PRIMARY KEY (...), CQL's form of ROWKEY */
#define ARG_CELLS    12   /* CELLS(...), an EXISTING table's cells */

/* INDEX and FAMILY start an argument when a name and "(" follow. */
static int argKind(const char *zArg){
  Lexer lex;
  int bRowkey, bIndex, bFamily, bPrimary, bCells;
  lexInit(&lex, zArg);
  if( lex.tk.eType != TK_ID ) return ARG_BAD;
  if( tokenIs(&lex.tk, "DELIMITER") ) return ARG_DELIMITER;
  if( tokenIs(&lex.tk, "ENCODING") ) return ARG_ENCODING;
  if( tokenIs(&lex.tk, "VERSIONS") || tokenIs(&lex.tk, "TTL") ){
    return ARG_VERSIONS;
  }
  if( tokenIs(&lex.tk, "STORAGE") ) return ARG_STORAGE;
  if( tokenIs(&lex.tk, "SPLITS") ) return ARG_SPLITS;
  bRowkey = tokenIs(&lex.tk, "ROWKEY");
  bIndex = tokenIs(&lex.tk, "INDEX");
  bFamily = tokenIs(&lex.tk, "FAMILY");
  bPrimary = tokenIs(&lex.tk, "PRIMARY");
  bCells = tokenIs(&lex.tk, "CELLS");
  lexNext(&lex);
  if( bRowkey && lex.tk.eType == TK_LP ) return ARG_ROWKEY;
  if( bCells && lex.tk.eType == TK_LP ) return ARG_CELLS;
  if( bPrimary && tokenIs(&lex.tk, "KEY") && nextIsParen(&lex) ){
    return ARG_PRIMARY;
  }
  if( (bIndex || bFamily) && lex.tk.eType == TK_ID && nextIsParen(&lex) ){
    return bIndex ? ARG_INDEX : ARG_FAMILY;
  }
  if( lex.tk.eType == TK_STRING || lex.tk.eType == TK_INTEGER
   || (lex.tk.eType == TK_OTHER && lex.tk.z[0] == '=') ){
    return ARG_UNKNOWN;
  }
  return ARG_COLUMN;
}

/* Appends argument zArg as the design record writes it: its tokens
** one space apart, none inside parentheses or before a comma. */
static void appendCanonical(sqlite3_str *pStr, const char *zArg){
  Lexer lex;
  int ePrev = TK_LP;
  for(lexInit(&lex, zArg); lex.tk.eType != TK_END; lexNext(&lex)){
    if( ePrev != TK_LP && lex.tk.eType != TK_LP && lex.tk.eType != TK_RP
     && lex.tk.eType != TK_COMMA ){
      sqlite3_str_appendchar(pStr, 1, ' ');
    }
    sqlite3_str_append(pStr, lex.tk.z, lex.tk.n);
    ePrev = lex.tk.eType;
  }
}

/* pS->zDesign: the arguments that say how rows are stored, one a line
** (not where, STORAGE, nor SPLITS, which only shape a new table). */
static void buildDesign(Parse *p, int argc, const char *const *argv){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i, n = 0;
  for(i = 0; i < argc; i++){
    int eKind = argKind(argv[i]);
    if( eKind == ARG_STORAGE || eKind == ARG_SPLITS ) continue;
    if( n++ ) sqlite3_str_appendchar(pStr, 1, '\n');
    appendCanonical(pStr, argv[i]);
  }
  p->pSchema->zDesign = sqlite3_str_finish(pStr);
  if( p->pSchema->zDesign == 0 ) parseError(p, "out of memory");
}

/* A versioned table's hidden columns take three names. */
static void checkVersionNames(Parse *p){
  static const char *const azHidden[] = { "rowtime", "versions", "asof" };
  size_t k;
  for(k = 0; k < sizeof(azHidden) / sizeof(azHidden[0]); k++){
    int iCol = wcSchemaColumn(p->pSchema, azHidden[k]);
    if( iCol >= 0 ){
      parseError(p, "widecol %s: a table with VERSIONS or TTL cannot have a "
                 "column named \"%s\": rowtime, versions and asof are its "
                 "hidden columns (a version's timestamp, and the parameters "
                 "of reads of older versions); rename the column",
                 p->pSchema->zTable, p->pSchema->aCol[iCol].zName);
      return;
    }
  }
}

WcSchema *wcSchemaParse(const char *zTable, int argc, const char *const *argv,
                        int bCreate, char **pzErr){
  Parse sParse;
  WcSchema *pS = sqlite3_malloc(sizeof(WcSchema));
  Given given;
  int i, bPrimary = 0, bCells = 0;
  memset(&given, 0, sizeof(given));
  memset(&sParse, 0, sizeof(sParse));
  sParse.bCreate = bCreate;
  if( pS == 0 ){
    *pzErr = sqlite3_mprintf("out of memory");
    return 0;
  }
  memset(pS, 0, sizeof(*pS));
  sParse.pSchema = pS;
  sParse.zKey = "ROWKEY";
  pS->zTable = sqlite3_mprintf("%s", zTable);
  pS->zDelim = sqlite3_mprintf("_");
  pS->nDelim = 1;
  pS->nVersions = 1;
  pS->zKeyName = sqlite3_mprintf("row key");
  pS->aCol = sqlite3_malloc64(sizeof(WcColumn) * (sqlite3_uint64)(argc + 1));
  pS->aIndex = sqlite3_malloc64(sizeof(WcIndex) * (sqlite3_uint64)(argc + 1));
  pS->aFamily = sqlite3_malloc64(sizeof(WcFamily) * (sqlite3_uint64)(argc + 1));
  if( pS->zTable == 0 || pS->zDelim == 0 || pS->aCol == 0
   || pS->zKeyName == 0 || pS->aIndex == 0 || pS->aFamily == 0 ){
    parseError(&sParse, "out of memory");
  }
  /* CQL's PRIMARY KEY form keys rows by a token in 8 bytes: BINARY. */
  for(i = 0; i < argc && !bPrimary; i++){
    bPrimary = argKind(argv[i]) == ARG_PRIMARY;
  }
  if( bPrimary ) pS->eEncoding = WC_ENCODING_BINARY;
  pS->bPrimaryKey = bPrimary;
  /* Columns and options first, so that ROWKEY may come anywhere. */
  for(i = 0; i < argc && !sParse.zErr; i++){
    switch( argKind(argv[i]) ){
      case ARG_COLUMN:
        if( !optionLookalike(&sParse, argv[i]) ) parseColumn(&sParse, argv[i]);
        break;
      case ARG_DELIMITER:
      case ARG_ENCODING:
      case ARG_VERSIONS:
        parseOption(&sParse, argv[i], &given);
        break;
      case ARG_STORAGE:
        parseStorage(&sParse, argv[i]);
        break;
      case ARG_SPLITS:
        parseSplits(&sParse, argv[i]);
        break;
      case ARG_CELLS:
        break;          /* after the key: it must know the key fields */
      case ARG_UNKNOWN: {
        Lexer lex;
        lexInit(&lex, argv[i]);
        if( !optionLookalike(&sParse, argv[i]) ){
          parseError(&sParse, "widecol %s: unknown option \"%.*s\"; the "
                     "options are " WC_OPTIONS, zTable, lex.tk.n, lex.tk.z);
        }
        break;
      }
      case ARG_BAD: {
        Lexer lex;
        lexInit(&lex, argv[i]);
        unexpected(&sParse, &lex.tk, "the arguments", "a column definition, "
                   "ROWKEY(...), INDEX name(...), FAMILY name(...) or "
                   "an option: " WC_OPTIONS);
        break;
      }
    }
  }
  if( !sParse.zErr && bPrimary && pS->eEncoding != WC_ENCODING_BINARY ){
    parseError(&sParse, "widecol %s: PRIMARY KEY (...) is Cassandra's form, "
               "whose row key is ENCODING BINARY (the token in 8 bytes); drop "
               "ENCODING TEXT, or write the key as ROWKEY(...)", zTable);
  }
  if( !sParse.zErr && pS->bVersioned ) checkVersionNames(&sParse);
  if( !sParse.zErr && pS->nCol == 0 ){
    parseError(&sParse, "widecol %s: no columns are declared; give column "
               "definitions and a ROWKEY(...)", zTable);
  }
  for(i = 0; i < argc && !sParse.zErr; i++){
    if( argKind(argv[i]) == ARG_ROWKEY ) parseRowkey(&sParse, argv[i]);
    if( argKind(argv[i]) == ARG_PRIMARY ) parsePrimaryKey(&sParse, argv[i]);
  }
  if( !sParse.zErr && pS->nElem == 0 ){
    parseError(&sParse, "widecol %s: ROWKEY(...) is missing; name the columns "
               "that make the row key, e.g. ROWKEY(%s)", pS->zTable,
               pS->aCol[0].zName);
  }
  if( !sParse.zErr ) checkElements(&sParse);
  /* Families and indexes need to know which columns make the row key. */
  for(i = 0; i < argc && !sParse.zErr; i++){
    if( argKind(argv[i]) == ARG_FAMILY ) parseFamily(&sParse, argv[i]);
  }
  for(i = 0; i < argc && !sParse.zErr; i++){
    if( argKind(argv[i]) == ARG_INDEX ) parseIndex(&sParse, argv[i]);
  }
  for(i = 0; i < argc && !sParse.zErr; i++){
    if( argKind(argv[i]) == ARG_CELLS ){
      parseCells(&sParse, argv[i]);
      bCells = 1;
    }
  }
  if( !sParse.zErr ) checkExisting(&sParse, bCells);
  if( !sParse.zErr && pS->eStore != WC_STORE_LOCAL ){
    checkRemote(&sParse);
  }
  /* A design record goes with the tables widecol makes, not with a table
  ** it opens as it finds it (EXISTING). */
  if( !sParse.zErr && pS->eStore != WC_STORE_LOCAL && bCreate
   && !pS->bExisting ){
    buildDesign(&sParse, argc, argv);
  }
  if( sParse.zErr ){
    *pzErr = sParse.zErr;
    wcSchemaFree(pS);
    return 0;
  }
  return pS;
}

void wcSchemaFree(WcSchema *p){
  int i;
  if( p == 0 ) return;
  for(i = 0; i < p->nIndex; i++){
    sqlite3_free(p->aIndex[i].zName);
    sqlite3_free(p->aIndex[i].abStored);
    wcSchemaFree(p->aIndex[i].pKey);
  }
  for(i = 0; i < p->nFamily; i++){
    sqlite3_free(p->aFamily[i].zName);
    sqlite3_free(p->aFamily[i].aiCol);
  }
  for(i = 0; i < p->nElem; i++) sqlite3_free(p->aElem[i].aiSaltCol);
  for(i = 0; i < p->nSplit; i++) sqlite3_free(p->aSplit[i].a);
  sqlite3_free(p->aSplit);
  sqlite3_free(p->zStorage);
  sqlite3_free(p->zDesign);
  if( !p->bBorrowed ){
    for(i = 0; i < p->nCol; i++){
      sqlite3_free(p->aCol[i].zName);
      sqlite3_free(p->aCol[i].zType);
      sqlite3_free(p->aCol[i].zColl);
      sqlite3_free(p->aCol[i].zCellFamily);
      sqlite3_free(p->aCol[i].zCellQualifier);
    }
    sqlite3_free(p->zTable);
    sqlite3_free(p->zDelim);
  }
  sqlite3_free(p->aIndex);
  sqlite3_free(p->aFamily);
  sqlite3_free(p->aCol);
  sqlite3_free(p->aElem);
  sqlite3_free(p->zKeyName);
  sqlite3_free(p);
}

char *wcSchemaDeclaration(const WcSchema *p, int bStamp){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i;
  sqlite3_str_appendall(pStr, "CREATE TABLE x(");
  for(i = 0; i < p->nCol; i++){
    const WcColumn *pCol = &p->aCol[i];
    sqlite3_str_appendf(pStr, "\"%w\"", pCol->zName);
    if( pCol->zType[0] ) sqlite3_str_appendf(pStr, " %s", pCol->zType);
    if( pCol->zColl ) sqlite3_str_appendf(pStr, " COLLATE \"%w\"", pCol->zColl);
    sqlite3_str_appendall(pStr, ", ");
  }
  sqlite3_str_appendall(pStr, "rowkey BLOB HIDDEN, ");
  if( p->bVersioned ){
    sqlite3_str_appendall(pStr, "rowtime INTEGER HIDDEN, versions INTEGER "
                                "HIDDEN, asof INTEGER HIDDEN, ");
  }
  if( bStamp ) sqlite3_str_appendall(pStr, WC_STAMP_COLUMN " BLOB HIDDEN, ");
  sqlite3_str_appendall(pStr, "PRIMARY KEY(rowkey)) WITHOUT ROWID");
  return sqlite3_str_finish(pStr);
}

int wcSchemaColumn(const WcSchema *p, const char *zName){
  int i;
  for(i = 0; i < p->nCol; i++){
    if( sqlite3_stricmp(p->aCol[i].zName, zName) == 0 ) return i;
  }
  return -1;
}

int wcElementIsLast(const WcSchema *p, int iElem){
  return iElem == p->nElem - 1 && !p->bSuffix;
}

/* True if z can be written as it is in SQL and in widecol's arguments:
** an identifier that is neither an SQL keyword nor one of widecol's. */
static int isPlainName(const char *z){
  static const char *const azWord[] = {
    "ROWKEY", "INDEX", "FAMILY", "INCLUDE", "DELIMITER", "ENCODING", "PAD",
    "DESC", "REVERSE", "SALT", "BUCKET", "TEXT", "BINARY", "TOKEN", "RANDOM",
    "PRIMARY", "KEY", "VERSIONS", "TTL", "STORAGE", "SPLITS",
  };
  size_t k;
  int i;
  for(k = 0; k < sizeof(azWord) / sizeof(azWord[0]); k++){
    if( sqlite3_stricmp(z, azWord[k]) == 0 ) return 0;
  }
  if( !((z[0] >= 'a' && z[0] <= 'z') || (z[0] >= 'A' && z[0] <= 'Z')
        || z[0] == '_') ){
    return 0;
  }
  for(i = 1; z[i]; i++){
    if( !((z[i] >= 'a' && z[i] <= 'z') || (z[i] >= 'A' && z[i] <= 'Z')
          || (z[i] >= '0' && z[i] <= '9') || z[i] == '_') ){
      return 0;
    }
  }
  return sqlite3_keyword_check(z, i) == 0;
}

void wcAppendName(sqlite3_str *pStr, const char *zName){
  if( isPlainName(zName) ){
    sqlite3_str_appendall(pStr, zName);
  }else{
    sqlite3_str_appendf(pStr, "\"%w\"", zName);
  }
}

char *wcKeyFields(const WcSchema *p){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int j;
  for(j = 0; j < p->nCol; j++){
    if( p->aCol[j].bKey ){
      sqlite3_str_appendf(pStr, "%s%s", sqlite3_str_length(pStr) ? ", " : "",
                          p->aCol[j].zName);
    }
  }
  if( p->nRandom ){
    sqlite3_str_appendf(pStr, " and RANDOM(%lld)'s number",
                        (long long)p->nRandom);
  }
  return sqlite3_str_finish(pStr);
}

/* An element as written in ROWKEY(...), without transform eSkip (0 for
** none). */
char *wcElementText(const WcSchema *pKey, const WcElement *pE, int eSkip){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i;
  if( pE->eKind == WC_ELEM_SALT ){
    if( pE->bToken ){
      sqlite3_str_appendall(pStr, "TOKEN(");
    }else{
      sqlite3_str_appendf(pStr, "SALT(%d, ", pE->nSaltDigit);
    }
    for(i = 0; i < pE->nSaltCol; i++){
      sqlite3_str_appendall(pStr, i ? ", " : "");
      wcAppendName(pStr, pKey->aCol[pE->aiSaltCol[i]].zName);
    }
    sqlite3_str_appendall(pStr, ")");
  }else if( pE->eKind == WC_ELEM_BUCKET ){
    sqlite3_str_appendf(pStr, "BUCKET(%lld, ", (long long)pE->nBucket);
    wcAppendName(pStr, pKey->aCol[pE->iCol].zName);
    sqlite3_str_appendall(pStr, ")");
  }else{
    wcAppendName(pStr, pKey->aCol[pE->iCol].zName);
    for(i = 0; i < pE->nXform; i++){
      const WcTransform *pX = &pE->aXform[i];
      if( pX->eOp == eSkip ) continue;
      if( pX->eOp == WC_XFORM_PAD ){
        sqlite3_str_appendf(pStr, " PAD %lld", (long long)pX->iArg);
        if( pKey->aCol[pE->iCol].cAff == WC_AFF_TEXT
         && strcmp(pX->zFill, " ") != 0 ){
          sqlite3_str_appendf(pStr, " %Q", pX->zFill);
        }
      }else if( pX->eOp == WC_XFORM_DESC ){
        sqlite3_str_appendall(pStr, " DESC");
        if( pX->bArg ) sqlite3_str_appendf(pStr, " %lld", (long long)pX->iArg);
      }else{
        sqlite3_str_appendall(pStr, " REVERSE");
      }
    }
  }
  return sqlite3_str_finish(pStr);
}

/*
** A design judged by STORAGE kinds without making it: the tools (advise,
** lint, the report, ddl) show no design a store's CREATE would refuse,
** and this is that CREATE's own parse.
*/

/* Splits a module argument list at its top-level commas, as SQLite splits
** CREATE VIRTUAL TABLE's: quotes ('...', "...", `...`, [...]) and
** parentheses hold theirs.  Returns the number of arguments (at most
** nMax, each trimmed, written NUL-terminated into zBuf, a copy of zArgs
** at least as large), or -1 if there are more. */
static int splitArgs(char *zBuf, char **azArg, int nMax){
  int nArg = 0, nDepth = 0;
  char *z = zBuf, *zStart = zBuf;
  for(;; z++){
    char c = *z;
    if( c == '\'' || c == '"' || c == '`' || c == '[' ){
      char cEnd = c == '[' ? ']' : c;
      for(z++; *z && (*z != cEnd || (cEnd != ']' && z[1] == cEnd && ++z)); z++){}
      if( *z == 0 ) z--;    /* unterminated: the argument ends there */
      continue;
    }
    if( c == '(' ) nDepth++;
    if( c == ')' ) nDepth--;
    if( c == 0 || (c == ',' && nDepth == 0) ){
      char *zEnd = z;
      while( *zStart == ' ' || *zStart == '\n' || *zStart == '\t' ) zStart++;
      while( zEnd > zStart && (zEnd[-1] == ' ' || zEnd[-1] == '\n'
                               || zEnd[-1] == '\t') ) zEnd--;
      if( nArg == nMax ) return -1;
      azArg[nArg++] = zStart;
      *zEnd = 0;
      if( c == 0 ) break;
      zStart = z + 1;
    }
  }
  return nArg;
}

char *wcSchemaRefusal(const char *zTable, const char *zArgs, int eStore,
                      int *pRc){
  enum { MAX_ARGS = 1024 };
  const WcKind *pKind = wcKind(eStore);
  char *zBuf, *zStorage = 0, *zErr = 0;
  char **azArg;
  int nArg, bParsed = 0;
  WcSchema *pS = 0;
  *pRc = SQLITE_OK;
  zBuf = sqlite3_mprintf("%s", zArgs);
  azArg = sqlite3_malloc64(sizeof(char*) * (MAX_ARGS + 1));
  if( zBuf && azArg ){
    char *zId = sqlite3_mprintf(pKind->zTrial, zTable);
    zStorage = zId == 0 ? 0 : wcKindValidName(eStore, zId)
        ? sqlite3_mprintf("STORAGE %s %Q", pKind->zWord, zId)
        : sqlite3_mprintf("STORAGE %s %Q", pKind->zWord, "t");
    sqlite3_free(zId);
  }
  if( zStorage == 0 ){
    *pRc = SQLITE_NOMEM;
  }else if( (nArg = splitArgs(zBuf, azArg, MAX_ARGS)) < 0 ){
    zErr = sqlite3_mprintf("widecol %s: more than %d arguments", zTable,
                           MAX_ARGS);
  }else{
    azArg[nArg++] = zStorage;
    pS = wcSchemaParse(zTable, nArg, (const char *const*)azArg, 1, &zErr);
    bParsed = 1;
    wcSchemaFree(pS);
  }
  /* The parser's message is the refusal; none and no schema, a failed
  ** allocation. */
  if( bParsed && pS == 0 && zErr == 0 ) *pRc = SQLITE_NOMEM;
  sqlite3_free(zStorage);
  sqlite3_free(azArg);
  sqlite3_free(zBuf);
  return zErr;
}

char *wcSchemaKindRefusal(const WcSchema *pS, int eStore){
  void (*xCheck)(Parse*) = kindCheck(eStore);
  Parse sParse;
  memset(&sParse, 0, sizeof(sParse));
  sParse.pSchema = (WcSchema*)pS;   /* the checks only read it */
  sParse.bCreate = 1;
  if( xCheck ) xCheck(&sParse);
  return sParse.zErr;
}
