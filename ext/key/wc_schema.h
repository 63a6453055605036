/*
** wc_schema.h: the design of a widecol table, parsed from the arguments of
** CREATE VIRTUAL TABLE ... USING widecol(...).
**
** A WcSchema says which columns exist, which of them make the row key and
** how (the ROWKEY elements with their transforms), and how the key is
** written (ENCODING, DELIMITER).  It also carries what the scan planner
** needs to know about each element: whether its bytes order like its
** values, whether it has a fixed width.  The codec (wc_codec.c) writes
** keys from it; the planner (wc_plan.c) reads ranges from it.
*/
#ifndef WIDECOL_WC_SCHEMA_H
#define WIDECOL_WC_SCHEMA_H

#include <stdint.h>

#include "util/wc_api.h"
#include "util/wc_kind.h"

/* Column affinities, SQLite's rules applied to the declared type. */
#define WC_AFF_BLOB    'A'
#define WC_AFF_TEXT    'B'
#define WC_AFF_NUMERIC 'C'
#define WC_AFF_INTEGER 'D'
#define WC_AFF_REAL    'E'

/* ENCODING option. */
#define WC_ENCODING_TEXT   0
#define WC_ENCODING_BINARY 1

/* Element kinds. */
#define WC_ELEM_COLUMN 0
#define WC_ELEM_SALT   1
#define WC_ELEM_BUCKET 2

/* Transforms of a column element, applied in the order written. */
#define WC_XFORM_PAD     1
#define WC_XFORM_DESC    2
#define WC_XFORM_REVERSE 3

/* How the bytes of an element order compared with its values. */
#define WC_ORDER_NONE   0  /* No relation (REVERSE, unpadded integers, salts) */
#define WC_ORDER_ASC    1  /* Byte order is value order, boundaries exact */
#define WC_ORDER_DESC   2  /* Byte order is reverse value order, exact */
#define WC_ORDER_PREFIX 3  /* Value order, except that a value sorts after
                           ** longer values it is a prefix of when the byte
                           ** that follows it (delimiter or fill) is greater
                           ** than the next character of the longer one */

/* How the end of an element is found in a key (TEXT encoding). */
#define WC_SPAN_BYTES  0    /* nSpan bytes: digits, salts, buckets */
#define WC_SPAN_CHARS  1    /* nSpan characters: text under PAD */
#define WC_SPAN_DESC   2    /* rk_desc bytes, ending in FF FF */
#define WC_SPAN_DELIM  3    /* up to the delimiter, or the end of the key */

#define WC_MAX_TRANSFORM 3
#define WC_MAX_SALT_COL  8       /* columns one SALT may hash */
#define WC_MAX_RANDOM    10000   /* RANDOM(n): the largest n (a full one
                                 ** is probed n times before it fails) */

typedef struct WcColumn WcColumn;
typedef struct WcTransform WcTransform;
typedef struct WcElement WcElement;
typedef struct WcSchema WcSchema;

typedef struct WcIndex WcIndex;
typedef struct WcFamily WcFamily;
typedef struct WcSplit WcSplit;

/* A split point: bytes a[0..n). */
struct WcSplit {
  unsigned char *a;
  int n;
};

struct WcColumn {
  char *zName;          /* As declared, without quotes */
  char *zType;          /* Declared type as written, "" if none */
  char *zColl;          /* COLLATE name, or NULL for BINARY */
  char cAff;            /* WC_AFF_* */
  int iElem;            /* Element that is this column, or -1 */
  int bKey;             /* The key depends on this column */
  int iFamily;          /* FAMILY holding the column, or -1: <name>_rows */
  int iIndexField;      /* An INDEX whose key depends on the column (so it
                        ** must not be NULL), or -1 */
  /* STORAGE ... EXISTING: the cell holding the column, from CELLS(column
  ** 'family:qualifier' type, ...); eCell 0 for a key field (read from the
  ** key) or any column of a table widecol writes. */
  char *zCellFamily;
  char *zCellQualifier;
  int eCell;            /* WC_CELL_* */
};

/* How an EXISTING table's cell holds its column's values (CELLS). */
#define WC_CELL_STRING 1  /* UTF-8 text, as the application wrote it */
#define WC_CELL_LONG   2  /* 8 bytes, big-endian two's complement */
#define WC_CELL_DOUBLE 3  /* 8 bytes, big-endian IEEE 754 */
#define WC_CELL_BYTES  4  /* the bytes as they are */

struct WcTransform {
  int eOp;              /* WC_XFORM_* */
  int64_t iArg;         /* PAD width, DESC max */
  int bArg;             /* DESC was given a max */
  char zFill[5];        /* PAD fill character for text, UTF-8 */
};

struct WcElement {
  int eKind;            /* WC_ELEM_* */
  int iCol;             /* COLUMN, BUCKET: the column */
  int nXform;
  WcTransform aXform[WC_MAX_TRANSFORM];
  int nSaltDigit;       /* SALT: n, negative for the last digits */
  int bToken;           /* SALT written TOKEN(columns): Cassandra's token
                        ** of the columns (rk_token.h), not an MD5: 8
                        ** bytes in BINARY encoding, 16 hex digits in TEXT,
                        ** so that byte order is token order */
  int nSaltCol;         /* SALT: source columns */
  int *aiSaltCol;
  int64_t nBucket;      /* BUCKET: number of buckets */
  /* Derived when the schema is built */
  int eOrder;           /* WC_ORDER_* */
  int bFixed;           /* Fixed width or self-delimiting: needs no
                        ** delimiter after it */
  unsigned char cTerm;  /* WC_ORDER_PREFIX: the byte after the value when
                        ** it is shorter (fill) or 0 if it is the
                        ** delimiter's first byte */
  const char *zUnordered;  /* Why eOrder is NONE, for EXPLAIN */
  int eSpan;            /* WC_SPAN_* (TEXT encoding) */
  int nSpan;            /* Its bytes or characters */
};

struct WcSchema {
  char *zTable;         /* Virtual table name */
  int nCol;
  WcColumn *aCol;
  int nElem;
  WcElement *aElem;
  int eEncoding;        /* WC_ENCODING_* */
  char *zDelim;         /* DELIMITER, "" allowed */
  int nDelim;
  char *zKeyName;       /* "row key" or "INDEX <name> key", for errors */
  int bSuffix;          /* The key continues after the last element (an
                        ** index key, followed by the main row key; a
                        ** row key, by its RANDOM number) */
  int bBorrowed;        /* An index's key: the strings of zTable, zDelim
                        ** and the columns belong to the table's schema */
  /* RANDOM(n), last in ROWKEY: every row key ends in a number from 0 to
  ** n - 1, nRandomDigit decimal digits zero-padded, chosen when the row is
  ** inserted and kept by UPDATE (wc_write.c), so that up to n rows may
  ** share the fields before it.  bSuffix is set.  0 when there is none. */
  int64_t nRandom;
  int nRandomDigit;
  int nIndex;
  WcIndex *aIndex;
  int nFamily;
  WcFamily *aFamily;
  /* Versions (VERSIONS n, TTL seconds).  A table with either is versioned:
  ** it has the hidden columns rowtime, versions and asof, its rows carry
  ** a timestamp, and older versions live in <name>_versions. */
  int bVersioned;
  int nVersions;        /* Versions kept per row key: 1 to 1,000 */
  int64_t nTtl;         /* Seconds a version stays visible; 0: forever */
  /* Where the rows live: STORAGE <kind> '<resource>', one of the kinds
  ** below, which the store layer describes (store/wc_kinds.c); without
  ** STORAGE, in this database (WC_STORE_LOCAL, zStorage NULL).
  ** zStorageTable is the engine's own name for the table, within
  ** zStorage.  SPLITS ('k', ...): the initial split points, in byte
  ** order, for the engine's table and widecol_ddl(). */
  int eStore;           /* WC_STORE_* */
  char *zStorage;
  const char *zStorageTable;
  int nSplit;
  WcSplit *aSplit;
  /* STORAGE <kind> '<resource>' EXTERNAL: widecol does not own the
  ** engine's tables, and DROP TABLE keeps them. */
  int bExternal;
  /* STORAGE <kind> '<resource>' EXISTING [WRITABLE]: a table another
  ** application made and fills: each row's key fields are read from its
  ** key (key/wc_decode.h), the other columns from the cells CELLS names;
  ** nothing of widecol's is kept there (no marker, no design record), it
  ** is read only unless WRITABLE, and DROP TABLE keeps it. */
  int bPrimaryKey;      /* The row key was declared PRIMARY KEY (...),
                        ** Cassandra's form: the tools write it so back */
  int bExisting;
  int bWritable;
  /* At CREATE on a store of another engine: the arguments that say how
  ** rows are stored (all but STORAGE and SPLITS), canonical, one a line;
  ** the engine's design record of the table holds it, so that another
  ** database may take the table over only with the same design.  NULL
  ** otherwise. */
  char *zDesign;
};

/* The hidden columns after the declared ones (wcSchemaDeclaration):
** rowkey always, and on a versioned table rowtime, versions and asof. */
#define WC_COL_ROWKEY(pS)   ((pS)->nCol)
#define WC_COL_ROWTIME(pS)  ((pS)->nCol + 1)
#define WC_COL_VERSIONS(pS) ((pS)->nCol + 2)
#define WC_COL_ASOF(pS)     ((pS)->nCol + 3)
#define WC_MAX_VERSIONS 1000
#define WC_MAX_TTL      2147483647   /* HBase's FOREVER, in seconds */

/* INDEX name(elements...) [INCLUDE (columns...)]: a table
** <table>_idx_<name> keyed by the index's key followed by the row key. */
struct WcIndex {
  char *zName;
  WcSchema *pKey;       /* Its elements, over the table's columns */
  unsigned char *abStored;  /* nCol flags: the columns the index table
                        ** holds (its fields, the row key's, INCLUDE) */
};

/* The key of path iPath of a table: 0 the row key, i > 0 INDEX i - 1's. */
static inline const WcSchema *wcSchemaPathKey(const WcSchema *pS, int iPath){
  return iPath ? pS->aIndex[iPath - 1].pKey : pS;
}

/* FAMILY name(columns...): a table <table>_cf_<name> keyed by row key. */
struct WcFamily {
  char *zName;
  int nCol;
  int *aiCol;
};

/* Parses the module arguments argv[0..argc) (after the module, database
** and table names) into a new schema.  bCreate is set for CREATE VIRTUAL
** TABLE, clear when an existing table is connected (rules added since
** some tables were made are enforced at CREATE only).  On error returns
** NULL and sets *pzErr to a message from sqlite3_mprintf() naming what is
** wrong and what is allowed. */
WcSchema *wcSchemaParse(const char *zTable, int argc, const char *const *argv,
                        int bCreate, char **pzErr);

void wcSchemaFree(WcSchema *p);

/* The CREATE TABLE statement to declare to SQLite for this schema; with
** bStamp, the hidden column WC_STAMP_COLUMN last (WC_COL_STAMP). */
char *wcSchemaDeclaration(const WcSchema *p, int bStamp);
#define WC_STAMP_COLUMN "_stamp"
#define WC_COL_STAMP(pS) ((pS)->nCol + ((pS)->bVersioned ? 4 : 1))

/* Column index by name (case-insensitive), or -1. */
int wcSchemaColumn(const WcSchema *p, const char *zName);

/* Appends a column or table name as DDL a user runs writes it: as it
** is when that reads back as the same name in SQL and in widecol's
** arguments, else double-quoted (lint fixes, widecol_advise's designs). */
void wcAppendName(sqlite3_str *pStr, const char *zName);

/* "a, b and RANDOM(100)'s number": what a row key is made from, for
** messages (sqlite3_mprintf(); NULL on OOM). */
char *wcKeyFields(const WcSchema *p);

/* True if the element's value is the last thing in the key (never for
** an index key: the row key follows it). */
int wcElementIsLast(const WcSchema *p, int iElem);

/* Element pE of key pKey as ROWKEY(...) writes it ("order_id PAD 10
** REVERSE", "SALT(1, paid_at)"), leaving out transform eSkip (0 for
** none).  From sqlite3_mprintf(); NULL on OOM. */
char *wcElementText(const WcSchema *pKey, const WcElement *pE, int eSkip);

/* Why STORAGE kind eStore's CREATE would refuse the design zArgs (the
** arguments of CREATE VIRTUAL TABLE zTable USING widecol(zArgs), without
** STORAGE): its message, from sqlite3_mprintf(), or NULL if the kind
** takes it.  The check is the CREATE's own parse, with no I/O, so a tool
** never shows a design the store refuses.  *pRc is SQLITE_NOMEM on a
** failed allocation (NULL returned), else SQLITE_OK. */
char *wcSchemaRefusal(const char *zTable, const char *zArgs, int eStore,
                      int *pRc);
/* The same for a design already parsed: what kind eStore's engine asks of
** the design itself (its key's form, its options), names aside.  NULL if
** it takes it; else the message, from sqlite3_mprintf(). */
char *wcSchemaKindRefusal(const WcSchema *pS, int eStore);

#endif /* WIDECOL_WC_SCHEMA_H */
