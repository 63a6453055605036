/*
** sc_contract.h: the store contract (store/README.md) read once, for
** every store library: the arguments of a store's CREATE VIRTUAL TABLE,
** the constraints its xBestIndex takes and its xFilter is given, and what
** every store's module registers beside its own methods (the counters
** function, xFindFunction).  Each store links this folder and keeps only
** what is its own.  A section per file, as fts5Int.h has:
**   sc_args.c    the arguments, as store/wc_store.c writes them
**   sc_plan.c    xBestIndex's constraints and xFilter's values
**   sc_module.c  the counters, xFindFunction, registering a store
**   sc_txn.c     DDL at the end of the transaction, the transaction table
** May call: util/.  The core's side of the contract is
** store/wc_contract.h, which this includes.
*/
#ifndef WIDECOL_SC_CONTRACT_H
#define WIDECOL_SC_CONTRACT_H

#include <sqlite3ext.h>
#include "store/wc_contract.h"
#include "util/wc_buf.h"
#include "util/wc_kind.h"

/**************************************************************************
** sc_args.c: a store's CREATE arguments.
**
**   '<resource>', <key column>, then in any order columns and options:
**     "<column>" [<family> | KEY] [CELL '<qualifier>' <cell type>]
**     STAMPS n | KEYS '<text>' | OWNER '<id>' | DESIGN '<text>'
**     | SUFFIX '<text>' | EXTERNAL | EXISTING | WRITABLE | ROWTIME
**     | OLDER | VERSIONS n | TTL s | ENTRIES OF '<row table>' i
**     | SPLITS x'..' x'..' ...
** An option is a bare word; any other first word names a column (so a
** column may be called "ttl").  The words are WC_ARG_* of
** store/wc_contract.h, which the core writes with.
*/

/* How an EXISTING table's cell holds a column's value (CELL ... type). */
#define SC_CELL_NONE   0    /* widecol's own cell (no CELL) */
#define SC_CELL_STRING 1
#define SC_CELL_LONG   2
#define SC_CELL_DOUBLE 3
#define SC_CELL_BYTES  4

typedef struct ScColumn ScColumn;
struct ScColumn {
  char *zName;
  char *zFamily;        /* Its family: the default "_" if none is named */
  int bKey;             /* KEY: a field of the row key, read from the key */
  char *zQual;          /* CELL '<qualifier>', or 0: the column's name */
  int eCell;            /* SC_CELL_* */
};

typedef struct ScArgs ScArgs;
struct ScArgs {
  char *zResource;      /* The engine's table */
  char *zKeyColumn;     /* rowkey, or ikey for an index's table */
  int nCol;
  ScColumn *aCol;
  int bStamps;          /* STAMPS was given: */
  int nStamp;           /* the stamps of nStamp indexes' entries */
  char *zKeys;          /* KEYS: what the row key is made from, or 0 */
  char *zOwner;         /* OWNER: the id of the CREATE that made it, or 0 */
  char *zDesign;        /* DESIGN: the design the engine records, or 0 */
  char *zSuffix;        /* SUFFIX: what widecol adds to the table's name */
  int bExternal;        /* EXTERNAL: DROP TABLE keeps the engine's table */
  int bExisting;        /* EXISTING: a table another application made */
  int bWritable;        /* WRITABLE: ... which widecol may write */
  int bRowtime;         /* ROWTIME: a rowtime column, the cells' time */
  int bOlder;           /* OLDER: the versions before each row's latest */
  int nVersions;        /* VERSIONS: versions kept (1 if not given) */
  int64_t nTtl;         /* TTL: seconds cells live (0: forever) */
  char *zEntriesOf;     /* ENTRIES OF: the row table whose index this is, */
  int iEntry;           /* and which of its indexes (-1: none) */
  int nSplit;           /* SPLITS: the keys the table is first split at */
  WcBuf *aSplit;
};

/* Reads argv[0..argc) of module zModule (storing in pKind's engine) into
** *p: 0, or a message (sqlite3_mprintf()) that names the table argv[2]
** and says what was wrong.  scArgsClear() frees what *p holds, read to
** its end or not. */
char *scArgsRead(ScArgs *p, const WcKind *pKind, int argc,
                 const char *const *argv);
void scArgsClear(ScArgs *p);

/* The widecol table a table of the module stands behind, for messages:
** zName less zSuffix (zName if it does not end so); sqlite3_mprintf(). */
char *scTableName(const char *zName, const char *zSuffix);

/**************************************************************************
** sc_plan.c: xBestIndex and xFilter.
**
** The constraints a store takes, as idxNum's bits, their values in argv
** in this order: key = ? (SC_EQ), or its bounds (SC_GE or SC_GT, SC_LT or
** SC_LE); then _stamp = ? (SC_STAMPEQ, with SC_EQ alone) and rowkey = ?
** (SC_ROWKEYEQ, with SC_STAMPEQ, on an index's table); then LIMIT ?
** (SC_LIMIT).  SC_SET (key MATCH ?, a set of ranges) and SC_COUNTERS
** (WC_RPC_COUNTERS(key, ?)) come alone.  SC_DESC: rows in descending key
** order.  idxStr: the columns the statement uses (colUsed), in hex.
*/
#define SC_EQ        0x001
#define SC_GE        0x002
#define SC_GT        0x004
#define SC_LT        0x008
#define SC_LE        0x010
#define SC_COUNTERS  0x020
#define SC_SET       0x040
#define SC_STAMPEQ   0x080
#define SC_ROWKEYEQ  0x100
#define SC_DESC      0x200
#define SC_LIMIT     0x400

/* The constraint op WC_RPC_COUNTERS(key, ?) becomes (scFindFunction()). */
#define SC_COUNTERS_OP SQLITE_INDEX_CONSTRAINT_FUNCTION

/* What a table of the store can take, for scBestIndex(). */
typedef struct ScPlanCaps ScPlanCaps;
struct ScPlanCaps {
  int bRangeSets;       /* key MATCH ?: a set of ranges in one read */
  int iStampCol;        /* _stamp's column (SQLite's: 0 the key), or -1 */
  int iRowkeyCol;       /* An index table's rowkey column, or -1 */
  int bOneRowPerKey;    /* key = ? finds one row (not OLDER's versions) */
  int bDescending;      /* ORDER BY key DESC is read so */
  int iNewestFirst;     /* A column whose DESC order after the key's is
                        ** how rows come (OLDER's rowtime), or -1 */
  int bLimitCaps;       /* A LIMIT caps the read: taken only where SQLite
                        ** leaves no term and no ORDER BY to itself.  Else
                        ** it sizes the first page (SQLite applies it) */
};
/* Plans a scan of a store's table: which constraints it takes, their
** order in argv, the cost, the order consumed, idxStr.  SQLITE_OK or
** SQLITE_NOMEM. */
int scBestIndex(sqlite3_index_info *pInfo, const ScPlanCaps *pCaps);

/* xFilter's values for idxNum, each NULL where not given. */
typedef struct ScFilter ScFilter;
struct ScFilter {
  sqlite3_value *pEq;
  sqlite3_value *pLo, *pHi;   /* The bounds */
  int bLoOpen, bHiOpen;       /* ... excluded (GT, LT) */
  sqlite3_value *pStamp, *pRowkey, *pLimit, *pSet;
  WcRpcStats *pCounters;      /* SC_COUNTERS: the counters to add to */
  int bDesc;
  uint64_t colUsed;           /* The columns used (all if unknown) */
};
void scFilterArgs(int idxNum, const char *idxStr, int argc,
                  sqlite3_value **argv, ScFilter *p);
/* True if column iCol (0 the first after the key) is in colUsed. */
int scColumnUsed(uint64_t colUsed, int iCol);

/**************************************************************************
** sc_module.c: what every store's module has beside its own methods.
*/

/* xFindFunction: WC_RPC_COUNTERS(key, ?) becomes the constraint
** scBestIndex() takes as SC_COUNTERS. */
int scFindFunction(sqlite3_vtab *pVtab, int nArg, const char *zName,
                   void (**pxFunc)(sqlite3_context*, int, sqlite3_value**),
                   void **ppArg);
/* An SC_COUNTERS scan: a store's counters *pCount added into the
** WcRpcStats the core handed, then cleared if it asks (wc_contract.h). */
void scCountersHand(WcRpcStats *pOut, WcRpcStats *pCount);

/* A store's modules, registered by scRegister(). */
typedef struct ScModule ScModule;
struct ScModule {
  const char *zName;
  const sqlite3_module *pModule;
};
/* Registers store pKind's modules aModule[0..nModule) on db, each with
** client data pAux (counted: xRef() once per module, xUnref() their
** destructor), and the counters function, once widecol is loaded (else
** an error saying how to load it first, pKind's way in Python too). */
int scRegister(sqlite3 *db, char **pzErrMsg, const WcKind *pKind,
               const ScModule *aModule, int nModule,
               void *pAux, void (*xRef)(void*), void (*xUnref)(void*));

/**************************************************************************
** sc_txn.c: DDL that waits for the end of the transaction, on engines
** whose DDL is not transactional.  A store keeps an ScDdl per connection:
** a DROP TABLE adds its table (SC_DDL_DROP), deleted from the engine at
** COMMIT (scDdlCommit(), from xSync); a CREATE that made an engine table
** adds a stand-in (SC_DDL_MADE), which ROLLBACK or a ROLLBACK TO before
** it undoes (scDdlUndo()).  Both first put the store's transaction table
** in the transaction (scTxnEnlist()), so that its end comes to the store.
*/
#define SC_DDL_DROP 1
#define SC_DDL_MADE 2

/* What COMMIT and ROLLBACK do to an object waiting, and its names for
** messages. */
typedef struct ScDdlOps ScDdlOps;
struct ScDdlOps {
  /* COMMIT of a DROP: deletes the engine's table, if the dropping table's
  ** CREATE made it (else *pbKept stays 1).  A DROP's object is the store's
  ** sqlite3_vtab: an error's message is its zErrMsg */
  int (*xDrop)(void *pObj, int *pbKept);
  /* ROLLBACK of a CREATE: deletes what it made (a failure is logged: a
  ** ROLLBACK cannot fail) */
  void (*xUndo)(void *pObj);
  void (*xFree)(void *pObj);
  const char *(*xTable)(void *pObj);      /* The SQLite table's name */
  const char *(*xResource)(void *pObj);   /* The engine's table */
};

typedef struct ScDdlItem ScDdlItem;
typedef struct ScDdl ScDdl;
struct ScDdl {
  ScDdlItem *pFirst;    /* In the order the DDL came */
};

/* Adds pObj as DDL eWhat, at the store's sequence number iSeq (not below
** the last's): SQLITE_OK, pObj taken (freed by pOps->xFree), or
** SQLITE_NOMEM, pObj still the caller's. */
int scDdlAdd(ScDdl *p, int eWhat, void *pObj, const ScDdlOps *pOps,
             int64_t iSeq);
/* Forgets the DDL from sequence number iSeq on (0: all of it), undoing
** each CREATE among it if bUndo. */
void scDdlUndo(ScDdl *p, int64_t iSeq, int bUndo);
/* COMMIT: each DROP's engine table deleted, in order, forgotten as it
** goes.  The first failure stops it: its message (what was deleted
** before it too) in *pzErr, for the store to report. */
int scDdlCommit(ScDdl *p, char **pzErr);
/* True if a DROP waiting for COMMIT deletes engine table zResource. */
int scDdlDropping(const ScDdl *p, const char *zResource);
/* Puts transaction table zModule in db's transaction: SQLITE_OK, or an
** error whose message, for a table's to begin with, is in *pzErr
** (sqlite3_mprintf: "could not put its <zEngine> DDL in ..."). */
int scTxnEnlist(sqlite3 *db, const char *zModule, const char *zEngine,
                char **pzErr);

/* The transaction table's methods, beside its store's xConnect,
** xDisconnect and transaction methods; its declaration. */
extern const char scTxnDeclaration[];
int scTxnBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo);
int scTxnOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur);
int scTxnClose(sqlite3_vtab_cursor *pCur);
int scTxnFilter(sqlite3_vtab_cursor *pCur, int idxNum, const char *idxStr,
                int argc, sqlite3_value **argv);
int scTxnNext(sqlite3_vtab_cursor *pCur);
int scTxnEof(sqlite3_vtab_cursor *pCur);
int scTxnColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int iCol);
int scTxnRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid);
int scTxnUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                sqlite3_int64 *pRowid);
/* A store's transaction table's module (eponymous: no xCreate): these
** methods, the store's xConnect and xDisconnect, and its transaction
** methods, which the DDL's end comes to. */
#define SC_TXN_MODULE(xConnect, xDisconnect, xBegin, xSync, xCommit,      \
                      xRollback, xSavepoint, xRelease, xRollbackTo)       \
  { 2, 0, xConnect, scTxnBestIndex, xDisconnect, 0, scTxnOpen, scTxnClose, \
    scTxnFilter, scTxnNext, scTxnEof, scTxnColumn, scTxnRowid, scTxnUpdate, \
    xBegin, xSync, xCommit, xRollback, 0, 0, xSavepoint, xRelease,          \
    xRollbackTo, 0 }

#endif /* WIDECOL_SC_CONTRACT_H */
