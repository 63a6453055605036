/*
** bt_table.h: what the files of the widecol_bigtable module share (the
** module itself is in bt_store.c; bt_store.h is its public side):
**   bt_store.c  arguments, connecting, planning, reading, the module
**   bt_write.c  mutations, batches, conditional inserts, transactions
**   bt_admin.c  making, taking over and deleting the Bigtable tables
*/
#ifndef WIDECOL_BT_TABLE_H
#define WIDECOL_BT_TABLE_H

#include <sqlite3ext.h>
#include "bt_store.h"
#include "bt_rpc.h"
#include "bt_cell.h"
#include "bt_wire.pb-c.h"

/* Rows a batch holds before it is sent, and bytes. */
#define BT_BATCH_ROWS  1000
#define BT_BATCH_BYTES (8 << 20)
/* Bigtable's limits: a row key, a cell value.  Its timestamps are
** microseconds in steps of a millisecond (the default granularity, the
** only one the emulator takes). */
#define BT_MAX_KEY   4096
#define BT_MAX_CELL  (100 << 20)
#define BT_TICK      1000
/* Attempts of a batch whose rows fail with a status worth retrying. */
#define BT_ATTEMPTS  4

#define M_READROWS "/google.bigtable.v2.Bigtable/ReadRows"
#define M_MUTATEROWS "/google.bigtable.v2.Bigtable/MutateRows"
#define M_CHECKANDMUTATE "/google.bigtable.v2.Bigtable/CheckAndMutateRow"
#define M_CREATETABLE "/google.bigtable.admin.v2.BigtableTableAdmin/CreateTable"
#define M_GETTABLE "/google.bigtable.admin.v2.BigtableTableAdmin/GetTable"
#define M_DELETETABLE "/google.bigtable.admin.v2.BigtableTableAdmin/DeleteTable"

/*
** An arena: the memory of one batch of mutations, freed at once when the
** batch has been sent.
*/
typedef struct BtBlock BtBlock;
struct BtBlock {
  BtBlock *pNext;
  size_t nUsed, nSize;
  /* data follows */
};
typedef struct BtArena BtArena;
struct BtArena {
  BtBlock *pHead;
  int bOom;
};
void *btArenaAlloc(BtArena *p, size_t n);
void *btArenaCopy(BtArena *p, const void *a, size_t n);
void btArenaFree(BtArena *p);

/*
** The table.
*/
typedef struct BtColumn BtColumn;
struct BtColumn {
  char *zName;          /* Also its qualifier */
  char *zFamily;
};

/*
** What a connection's transaction has sent, shared by every table of the
** module on the connection (the module's client data, counted): whether a
** ROLLBACK, or a statement that fails, can still drop its writes depends
** on whether any table sent any since it began, not only this one.
*/
#define BT_MAX_SAVEPOINT 64
typedef struct BtTable BtTable;
struct BtTxn {
  int nRef;
  BtTable *pTables;     /* The module's tables on the connection */
  int bOpen;            /* A transaction is open */
  int64_t nSent;        /* Rows sent, ever */
  int64_t iBegin;       /* nSent when the transaction began */
  int nSavepoint;
  int64_t aiSavepoint[BT_MAX_SAVEPOINT];   /* nSent at each savepoint */
};

/* A conditional insert in flight (bAsyncInsert). */
#define BT_INFLIGHT 64
typedef struct BtInflight BtInflight;
struct BtInflight {
  BtPending *pCall;
  WcBuf key;            /* For the message if the key is in use */
};

struct BtTable {
  sqlite3_vtab base;
  sqlite3 *db;
  char *zName;          /* SQLite name, for messages */
  char *zResource;      /* projects/p/instances/i/tables/t */
  int nCol;             /* Columns after the key */
  BtColumn *aCol;
  int *aiSorted;        /* Columns by (family, qualifier), for lookups */
  int nFamily;
  char **azFamily;      /* Distinct families, BT_DEFAULT_FAMILY first */
  int nSplit;
  WcBuf *aSplit;        /* SPLITS, for CreateTable */
  int nVersions;        /* GC rule: versions kept (1 unless VERSIONS) */
  int64_t nTtl;         /* GC rule: max age in seconds, 0 for none */
  int bRowtime;         /* ROWTIME: column nCol + 1 is the cells' timestamp */
  int bOlder;           /* OLDER: the versions before each row's latest */
  BtConn *pConn;        /* Opened on first use */
  BtCounters count;
  int64_t iLastMicros;  /* Timestamps given are increasing */
  /* The batch */
  BtArena arena;
  Wcbt__MutateRowsRequest__Entry **apEntry;
  int nEntry, nEntryAlloc;
  size_t nBatchByte;
  BtTxn *pTxn;          /* The connection's transaction (shared) */
  int bAsyncInsert;     /* ASYNC_INSERTS: conditional inserts in flight */
  int nInflight;
  int iInflight;        /* The oldest, in the ring aInflight */
  BtInflight aInflight[BT_INFLIGHT];
  int *aiSavepoint;     /* nEntry at each open savepoint */
  int nSavepoint;
  BtTable *pNextTable;  /* The next of pTxn->pTables */
};

void btTxnRef(BtTxn *p);

/* Sets the table's message (formatted) and returns rc. */
int btError(BtTable *p, int rc, const char *zFormat, ...);
/* Bigtable said no: a message that says what to do; returns the code. */
int btRpcError(BtTable *p, const char *zDoing, const BtStatus *pStatus);
/* Opens the table's connection to Bigtable, if not yet open. */
int btTableConnect(BtTable *p);

/* bt_admin.c */
int btCreateRemote(BtTable *p);
int btDeleteRemote(BtTable *p);

/* bt_write.c.  btFlush(): waits for the conditional inserts in flight,
** then sends the batch; SQLITE_OK, or the first error.  btFlushTable():
** btFlush() of every table of the connection on p's Bigtable table (a
** versioned table's rows and versions are two), so that a read sees what
** any of them wrote. */
int btFlush(BtTable *p);
int btFlushTable(BtTable *p);
/* The key of a version in an OLDER table (its hidden column vkey): the
** row key, then the timestamp's 8 bytes big-endian. */
void btVersionKey(WcBuf *pOut, const unsigned char *aKey, int64_t nKey,
                  int64_t iMicros);
/* *pOut: a filter passing only the cells of column zQualifier[0..n) of
** family zFamily (described in *pRange), or of the marker.  A column
** range, not a regular expression: Bigtable's emulator compiles a
** filter's expressions again for every cell it looks at. */
void btColumnFilter(Wcbt__Filter *pOut, Wcbt__ColumnRange *pRange,
                    const char *zFamily, const char *zQualifier, size_t n);
void btMarkerFilter(Wcbt__Filter *pOut, Wcbt__ColumnRange *pRange);
/* *pOut: a chain (bChain) or interleave of apPart[0..nPart), listed in
** *pList. */
void btFilterOf(Wcbt__Filter *pOut, int bChain, Wcbt__Filter__List *pList,
                Wcbt__Filter **apPart, int nPart);
int btUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
             sqlite3_int64 *pRowid);
int btBegin(sqlite3_vtab *pVtab);
int btSync(sqlite3_vtab *pVtab);
int btCommit(sqlite3_vtab *pVtab);
int btRollback(sqlite3_vtab *pVtab);
int btSavepoint(sqlite3_vtab *pVtab, int iSavepoint);
int btRelease(sqlite3_vtab *pVtab, int iSavepoint);
int btRollbackTo(sqlite3_vtab *pVtab, int iSavepoint);

#endif /* WIDECOL_BT_TABLE_H */
