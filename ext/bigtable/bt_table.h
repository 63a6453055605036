/*
** bt_table.h: what the files of the widecol_bigtable module share (its
** public side is bt_store.h).  From the bottom up, each calling only the
** ones above it in this list:
**   bt_rpc.c    gRPC calls with deadlines and cancelling (bt_rpc.h)
**   bt_cell.c   cell values and the row marker (bt_cell.h)
**   bt_util.c   arenas, messages, connecting, the interrupt probe
**   bt_catalog.c  design records: who made a table, with what design
**   bt_admin.c  the Bigtable tables: made, taken over, checked, deleted
**   bt_batch.c  writes waiting to be sent, and sending them in order
**   bt_txn.c    transactions, savepoints, DDL at COMMIT and ROLLBACK
**   bt_sample.c SampleRowKeys: row estimates, tablet boundaries
**   bt_read.c   cursors: paged ReadRows, stamps, index entries verified
**   bt_write.c  xUpdate: rows, versions and index entries as mutations
**   bt_store.c  the module: arguments, connecting, planning
**
** What a statement guarantees (docs/bigtable.md): a statement that
** returns OK has every write it made applied, or reported by that same
** statement; writes waiting at COMMIT are sent and their failures fail
** the COMMIT; no read reports or swallows a write's error.  How:
**   - In autocommit, a statement's writes wait in batches until its end
**     (xSync), whose failures are the statement's.  In a transaction a
**     plain INSERT is answered at its row, so that a key in use fails
**     that INSERT; other writes wait for COMMIT.
**   - A read sends what waits first (so that it sees it); what fails then
**     is kept for the end of the statement or for COMMIT (BtTxn.zFailed).
**   - Rows carry a stamp (the marker cell's value, bt_cell.h): UPDATE and
**     DELETE are CheckAndMutateRow calls conditional on the stamp the
**     writer read, so that no write acts on a row another client changed
**     or deleted since.
**   - An index entry is written under its write's stamp (a group of cells
**     per write, see BT_ENTRIES) before its row, and the old entry is
**     deleted after; a read of an index keeps only the entries whose
**     stamp the row's marker names.  So a failure at any point leaves no
**     row without its entries, and no entry a read would return for a
**     row that does not have it.
*/
#ifndef WIDECOL_BT_TABLE_H
#define WIDECOL_BT_TABLE_H

#include <sqlite3ext.h>
#include "bigtable/bt_store.h"
#include "bigtable/bt_rpc.h"
#include "bigtable/bt_cell.h"
#include "bt_wire.pb-c.h"

/* Writes waiting, across the connection, before they are sent anyway. */
#define BT_BATCH_ROWS  1000
#define BT_BATCH_BYTES (8 << 20)
/* The step of timestamps, microseconds in whole milliseconds: Bigtable's
** default granularity and HBase's unit (shared with the core:
** wc_remote.h).  The engine's other limits are btEngine's (bt_rpc.h). */
#define BT_TICK      WC_BIGTABLE_TIME_STEP
/* Conditional writes in flight at once when a batch is sent. */
#define BT_INFLIGHT 64
/* The largest read filter sent; Bigtable's limit is 4,096 bytes. */
#define BT_MAX_FILTER 4000

#define M_READROWS "/google.bigtable.v2.Bigtable/ReadRows"
#define M_MUTATEROWS "/google.bigtable.v2.Bigtable/MutateRows"
#define M_CHECKANDMUTATE "/google.bigtable.v2.Bigtable/CheckAndMutateRow"
#define M_CREATETABLE "/google.bigtable.admin.v2.BigtableTableAdmin/CreateTable"
#define M_GETTABLE "/google.bigtable.admin.v2.BigtableTableAdmin/GetTable"
#define M_DELETETABLE "/google.bigtable.admin.v2.BigtableTableAdmin/DeleteTable"

/*
** An arena: the memory of the writes of one batch, freed at once when
** the batch has been sent (bt_util.c).
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
** The tables.
*/
typedef struct BtColumn BtColumn;
struct BtColumn {
  char *zName;          /* The column's name, */
  char *zFamily;        /* its cell's family */
  char *zQual;          /* and qualifier: zName, unless CELL names one */
  int eLayout;          /* How its cell holds a value: BT_LAYOUT_* */
};


/* What a table of the module is (its arguments say). */
#define BT_ROWS    0    /* Rows with a marker (STAMPS n: carrying the
                        ** stamps of n indexes' entries); widecol's
                        ** <name>_rows.  Without STAMPS (made by widecol
                        ** 1.0) the same, with n 0 */
#define BT_ENTRIES 1    /* An index's entries (ENTRIES OF '<rows>' i): a
                        ** group of cells per write, qualifiers "\0", the
                        ** write's 8-byte stamp, then the column's name
                        ** (the marker: no name); a read keeps the group
                        ** whose stamp is stamp i of the row's marker, or
                        ** the cells with plain qualifiers (a group
                        ** written by widecol 1.0, stamp 0) */
#define BT_PLAIN   2    /* An index table made by widecol 1.0: plain
                        ** qualifiers, no verification */
#define BT_OLDER   3    /* The versions before each row's latest of a
                        ** BT_ROWS table (OLDER): widecol's
                        ** <name>_versions */

typedef struct BtTable BtTable;
typedef struct BtBatch BtBatch;
typedef struct BtOp BtOp;
typedef struct BtRemote BtRemote;

/*
** What a connection's tables share (the module's client data, counted):
** the writes waiting, per Bigtable table, and the transaction.
*/
#define BT_MAX_SAVEPOINT 64
struct BtTxn {
  int nRef;
  sqlite3 *db;
  BtTable *pTables;     /* The module's tables on the connection */
  BtBatch *pBatches;    /* Writes waiting, one batch per Bigtable table */
  int64_t nOp;          /* Writes waiting, in every batch */
  int64_t nByte;        /* and their size, roughly */
  int64_t iSeq;         /* Sequence number of the next write queued */
  int bOpen;            /* A transaction is open */
  int64_t nSent;        /* Rows sent, ever */
  int64_t iBegin;       /* nSent when the transaction began */
  int nSavepoint;
  int64_t aiSent[BT_MAX_SAVEPOINT];   /* nSent at each savepoint */
  int64_t aiSeq[BT_MAX_SAVEPOINT];    /* iSeq at each savepoint */
  /* Writes that failed after the statement that made them returned (they
  ** waited in a batch a read sent): the end of the statement or COMMIT
  ** reports them. */
  int rcFailed;
  char *zFailed;
  /* DDL: Bigtable tables to delete at COMMIT, tables made in this
  ** transaction to delete at ROLLBACK (bt_txn.c). */
  BtRemote *pRemote;
};

struct BtTable {
  sqlite3_vtab base;
  sqlite3 *db;
  char *zName;          /* SQLite name, for messages */
  char *zTable;         /* The widecol table it is behind, for messages:
                        ** zName less SUFFIX */
  char *zSuffix;        /* SUFFIX: what widecol adds to its name */
  char *zKeys;          /* KEYS: what the row key is made from, or 0 */
  char *zResource;      /* projects/p/instances/i/tables/t */
  int eKind;            /* BT_ROWS, BT_ENTRIES, BT_PLAIN, BT_OLDER */
  int nCol;             /* Columns after the key */
  BtColumn *aCol;
  int *aiSorted;        /* Columns with cells by (family, qualifier), */
  int nSorted;          /* for lookups */
  int iRowkeyCol;       /* BT_ENTRIES: the column holding the row key */
  int nFamily;
  char **azFamily;      /* Distinct families, BT_DEFAULT_FAMILY first */
  int nSplit;
  WcBuf *aSplit;        /* SPLITS, for CreateTable */
  int nVersions;        /* GC rule: versions kept (1 unless VERSIONS) */
  int64_t nTtl;         /* GC rule: max age in seconds, 0 for none */
  int bRowtime;         /* ROWTIME: column nCol + 1 is the cells' timestamp */
  int nStamp;           /* BT_ROWS: index stamps in the marker (STAMPS) */
  char *zRowsOf;        /* BT_ENTRIES: the row table's resource, */
  int iEntry;           /* and which of its marker's index stamps */
  int bExternal;        /* EXTERNAL: DROP TABLE keeps the Bigtable table */
  int bExisting;        /* EXISTING: a table another application made; its
                        ** cells as CELL says, no marker, no design record,
                        ** kept at DROP TABLE, */
  int bWritable;        /* written only if WRITABLE */
  char *zOwner;         /* OWNER: the id of the CREATE that made it */
  char *zDesign;        /* DESIGN: what the design record must say */
  BtConn *pConn;        /* Opened on first use */
  BtCounters count;
  BtWait wait;          /* Deadline, the interrupt probe, count */
  sqlite3_stmt *pProbe; /* SELECT 1, stepped to learn of an interrupt */
  int64_t iLastMicros;  /* Timestamps given are increasing */
  /* The last scan of one key (widecol reads a row, then writes it): the
  ** state a write of that key is conditional on (bt_write.c). */
  WcBuf seenKey;
  int bSeen;            /* A row was found (or taken to be there) */
  int bSeenMarker;      /* ... with a marker, */
  WcBuf seenMarker;     /* this one (its value), */
  int64_t iSeenMicros;  /* stamped this (the row's cells go after it) */
  int bSeenPrefix;      /* seenMarker holds what the writer gave with
                        ** _stamp = ? instead: the marker's first byte and
                        ** the stamps (a BT_ROWS row; the row was not
                        ** read), or the group's stamp (BT_ENTRIES) */
  WcBuf seenRowkey;     /* BT_ENTRIES: rowkey = ?, the entry's row */
  BtTxn *pTxn;          /* The connection's state (shared) */
  BtTable *pNextTable;  /* The next of pTxn->pTables */
};

/* bt_util.c */
/* Sets the table's message (formatted) and returns rc. */
int btError(BtTable *p, int rc, const char *zFormat, ...);
/* Bigtable said no: a message that says what to do; returns the code.
** btRpcDescribe() is its text without the table's name (sqlite3_mprintf,
** NULL on OOM). */
int btRpcError(BtTable *p, const char *zDoing, const BtStatus *pStatus);
char *btRpcDescribe(BtTable *p, const char *zDoing, int code,
                    const char *zMsg);
/* The SQLite code of a gRPC status, as btRpcError() chooses it. */
int btRpcCode(int code);
/* True if a write that failed with SQLite code rc (from btRpcCode()) was
** sent but not answered (no answer before the deadline, an interrupt, a
** connection lost): Bigtable may yet apply it. */
int btMaybeApplied(int rc);
/* Opens the table's connection to Bigtable, if not yet open. */
int btTableConnect(BtTable *p);
/* A key for a message: 'text' when printable, else x'hex' (a long one
** cut); from sqlite3_mprintf(). */
char *btDescribeKey(const unsigned char *a, size_t n);
/* The first table of the connection on Bigtable table zResource, or 0. */
BtTable *btTableOn(BtTxn *pTxn, const char *zResource);
/* A new write's stamp (wc_stamp.h). */
void btNewStamp(unsigned char *aOut);

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

/* A small ReadRows read whole by btReadAll(): xBegin clears what an
** attempt gathered (an answer lost halfway is read again from its start),
** xChunk takes each chunk. */
typedef struct BtChunkSink BtChunkSink;
struct BtChunkSink {
  void (*xBegin)(void *pCtx);
  void (*xChunk)(void *pCtx, const Wcbt__Chunk *pChunk);
  void *pCtx;
};
/* Reads pReq from table zRes into pSink, sent again while its answer is
** lost (a read changes nothing) and pWait's deadline allows.
** btStreamNext()'s last result: < 0 if the read failed, status in *pSt
** (the caller clears it). */
int btReadAll(BtTable *p, const char *zRes, Wcbt__ReadRowsRequest *pReq,
              const BtWait *pWait, const BtChunkSink *pSink, BtStatus *pSt);

/* bt_catalog.c: the design record of p's Bigtable table (see the file).
** btCatalogClaim() writes p's record (DESIGN, OWNER, not made) where
** there is none (*pbClaimed), else reads the one there into *pRec;
** btCatalogWrite() writes p's record whatever is there; btCatalogForget()
** deletes the record if it names p's OWNER. */
typedef struct BtRecord BtRecord;
struct BtRecord {
  int bFound;
  char *zDesign;
  char *zOwner;
  int bMade;            /* The owner's CREATE made the table */
};
int btCatalogClaim(BtTable *p, int *pbClaimed, BtRecord *pRec);
int btCatalogRead(BtTable *p, BtRecord *pRec);
int btCatalogWrite(BtTable *p, int bMade);
int btCatalogForget(BtTable *p);
void btRecordClear(BtRecord *pRec);
/* What differs between two designs, for a message (sqlite3_mprintf), or
** NULL if they are the same (clauses in any order, ASCII case aside
** outside quotes). */
char *btDesignDiff(const char *zRecorded, const char *zNow);

/* bt_admin.c: the Bigtable tables (CreateTable / GetTable /
** DeleteTable), see the file.  btCreateRemote() makes p's table or takes
** it over; *pbMade if CreateTable made it, *pbClaimed if this CREATE
** wrote its design record: what btUndoCreate() undoes (a failure is
** logged).  btDropRemote() deletes p's table if p's CREATE made it
** (*pbKept otherwise: EXTERNAL, taken over, an OLDER table). */
int btCreateRemote(BtTable *p, int *pbMade, int *pbClaimed);
/* An EXISTING table's CREATE: the table is there, with the families its
** cells are in; nothing is made or recorded. */
int btCheckExisting(BtTable *p);
void btUndoCreate(BtTable *p, int bMade, int bClaimed);
int btDropRemote(BtTable *p, int *pbKept);
int btDeleteRemote(BtTable *p, const char *zResource);
/* After a read found a column's cells missing: a message naming the
** family if Bigtable no longer has it; returns the code. */
int btMissingColumn(BtTable *p, int iCol, const unsigned char *aKey,
                    size_t nKey);

/* bt_batch.c: writes waiting.  A write (BtOp) is one row's mutations,
** blind, or conditional (CheckAndMutateRow) on the row having no cell
** (INSERT), or on its marker (UPDATE, DELETE).  Writes wait in a batch
** per Bigtable table, in three phases sent in order by btTxnFlush():
** index entries put (1), rows (2), index entries deleted (3). */
#define BT_PHASE_PUT    1
#define BT_PHASE_ROW    2
#define BT_PHASE_DELETE 3
#define BT_COND_NONE    0   /* blind */
#define BT_COND_ABSENT  1   /* only if the row has no cell at all */
#define BT_COND_MARKER  2   /* only if the marker is aExpect exactly, */
#define BT_COND_PREFIX  3   /* or starts with it; */
#define BT_COND_NOMARK  4   /* or there is no marker */
struct BtOp {
  const unsigned char *aKey;
  size_t nKey;
  Wcbt__Mutation **apMut;
  int nMut;
  int nMutAlloc;
  int eCond;            /* BT_COND_* */
  const unsigned char *aExpect;
  size_t nExpect;
  int iPhase;           /* BT_PHASE_* */
  unsigned char aStamp[8];  /* The write it belongs to (0s: none) */
  BtOp *pRow;           /* Phase 3: the row write it follows, if queued */
  int64_t iSeq;         /* For savepoints */
  int eOutcome;         /* While sent: BT_OUT_* */
  BtArena *pArena;      /* Its memory: its batch's, or the caller's */
  BtBatch *pBatch;      /* Its batch, once queued */
  /* Once queued, the table that wrote it, for errors: several tables
  ** can write one Bigtable table (EXISTING), and share its batch. */
  const char *zTable;
  const char *zKeys;
};
#define BT_OUT_WAIT     0
#define BT_OUT_OK       1
#define BT_OUT_FAILED   2   /* Bigtable refused it (message kept) */
#define BT_OUT_CONFLICT 3   /* the condition did not hold */
#define BT_OUT_SKIPPED  4   /* its index entries could not be written */

/* The batch of Bigtable table zResource, made if need be (NULL: OOM). */
BtBatch *btBatchOf(BtTable *p, const char *zResource);
/* The memory of batch pB's writes. */
BtArena *btBatchArena(BtBatch *pB);
/* A new write of key aKey, in arena pA (a batch's, to queue it there);
** NULL on OOM.  btOpAdd() appends a mutation (NULL on OOM, or if pM is). */
BtOp *btOpNew(BtArena *pA, int iPhase, const unsigned char *aKey,
              size_t nKey, int nMutMax);
Wcbt__Mutation *btOpAdd(BtOp *pOp, Wcbt__Mutation *pM);
/* Sends what waits if a write of aKey in phase iPhase cannot be queued
** behind it (the batch is full, or a conditional write of that key
** waits); called before the write is made in pB's arena, which a send
** frees.  SQLITE_OK, or a failure kept (bt_txn.c). */
int btOpRoom(BtTable *p, BtBatch *pB, int iPhase, const unsigned char *aKey,
             size_t nKey);
/* Queues pOp, made in pB's arena since btOpRoom() (SQLITE_OK, or
** SQLITE_NOMEM). */
int btOpQueue(BtTable *p, BtBatch *pB, BtOp *pOp);
/* The row write of key aKey waiting in the batch of zResource, or 0. */
BtOp *btOpWaiting(BtTxn *pTxn, const char *zResource,
                  const unsigned char *aKey, size_t nKey);
/* True if a write of aKey waits in the batch of zResource. */
int btKeyWaiting(BtTxn *pTxn, const char *zResource,
                 const unsigned char *aKey, size_t nKey);
/* Sends what waits, phase by phase.  The failures: returned (rc, message
** in p) if bReport, else kept in the BtTxn for the end of the statement
** or COMMIT, and SQLITE_OK returned.  aMine: the stamp of a write about to
** be sent alone (btOpSendNow()): if its index entries (waiting in phase
** 1) fail, that is returned as its own error, with a message in p. */
int btTxnFlush(BtTable *p, int bReport, const unsigned char *aMine);
/* Drops what waits (every write, or those queued since iSeq). */
void btTxnDrop(BtTxn *pTxn, int64_t iSeq);
/* A conditional write sent now, its answer awaited: SQLITE_OK, or
** SQLITE_CONSTRAINT_PRIMARYKEY (a row is there: INSERT), SQLITE_BUSY (the
** marker changed: UPDATE), or an error (message set). */
int btOpSendNow(BtTable *p, BtOp *pOp);
void btBatchFreeAll(BtTxn *pTxn);
/* Keeps a failure of writes for the end of the statement or COMMIT. */
void btTxnKeepFailure(BtTxn *pTxn, int rc, const char *zMsg);

/* bt_txn.c */
/* Frees a table (unlinked from its connection's list). */
void btTableFree(BtTable *p);
/* DROP TABLE of p: its Bigtable table is deleted at COMMIT (p is the
** transaction's from now, freed at its end). */
int btTxnDropLater(BtTable *p);
/* CREATE of p made its table or wrote its record: undone at ROLLBACK
** (on a failure here, undone at once). */
int btTxnMade(BtTable *p, int bMade, int bClaimed);
/* True if a DROP waiting for COMMIT deletes zResource. */
int btTxnDropping(BtTxn *pTxn, const char *zResource);
int btBegin(sqlite3_vtab *pVtab);
int btSync(sqlite3_vtab *pVtab);
int btCommit(sqlite3_vtab *pVtab);
int btRollback(sqlite3_vtab *pVtab);
int btSavepoint(sqlite3_vtab *pVtab, int iSavepoint);
int btRelease(sqlite3_vtab *pVtab, int iSavepoint);
int btRollbackTo(sqlite3_vtab *pVtab, int iSavepoint);
/* True if no transaction is open (each statement is one). */
int btAutocommit(const BtTable *p);

/* bt_read.c: the cursor methods. */
int btOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur);
int btClose(sqlite3_vtab_cursor *pCursor);
int btFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr,
             int argc, sqlite3_value **argv);
int btNext(sqlite3_vtab_cursor *pCursor);
int btEof(sqlite3_vtab_cursor *pCursor);
int btColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol);
int btRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *pRowid);
/* The column of cell (zFamily, aQual[0..nQual)): >= 0, or -2. */
int btFindColumn(const BtTable *p, const char *zFamily,
                 const unsigned char *aQual, size_t nQual);
/* The hidden columns after the declared ones. */
#define BT_COL_ROWTIME(p) ((p)->nCol + 1)
#define BT_COL_STAMP(p)   ((p)->nCol + 1 + (p)->bRowtime)
#define BT_COL_VKEY(p)    ((p)->nCol + 2)

/* Planning (bt_store.c) hands xFilter: idxNum bit 1 key = ?, 2 key >= ?,
** 4 key > ?, 8 key < ?, 16 key <= ?, in that argv order, then 128
** _stamp = ? and 256 rowkey = ? (BT_ENTRIES); or BT_COUNTERS alone, or
** BT_SET alone; and BT_REVERSED and BT_LIMIT with any but BT_COUNTERS.
** idxStr: the columns used, colUsed in hex. */
#define BT_EQ 1
#define BT_GE 2
#define BT_GT 4
#define BT_LT 8
#define BT_LE 16
#define BT_COUNTERS 32    /* widecol_bigtable_counters(key, ?): argv[0] is
                          ** a WcRpcStats* to add this table's figures to;
                          ** no rows */
#define BT_SET 64         /* key MATCH ?: argv[0] is a set of ranges
                          ** (wc_remote.h), read in one request; alone */
#define BT_STAMPEQ 128    /* _stamp = ?: the write that follows is
                          ** conditional on it; with key = ?, the row is
                          ** taken to be there, unread */
#define BT_ROWKEYEQ 256   /* BT_ENTRIES: rowkey = ? (with the above) */
#define BT_REVERSED 512   /* ORDER BY key DESC: rows read in descending
                          ** key order (a reversed ReadRows), with any of
                          ** the above but BT_COUNTERS */
#define BT_LIMIT 1024     /* LIMIT ?, after the above: the rows the first
                          ** page asks for (SQLite still applies it) */

/* bt_sample.c: SampleRowKeys.  A sample is a key ending a section of
** the table (the empty key: its end) and the bytes before it. */
typedef struct BtSample BtSample;
struct BtSample {
  int64_t iKey, nKey;   /* The key, in BtSamples.keys */
  int64_t nBefore;      /* Bytes of the table before it */
};
typedef struct BtSamples BtSamples;
struct BtSamples {
  int n;
  WcBuf samples;        /* BtSample[n] */
  WcBuf keys;
};
/* The table's samples, in key order (one call, sent again while its
** answer is lost): SQLITE_OK, or an error with p's message set. */
int btSampleRowKeys(BtTable *p, BtSamples *pOut);
const BtSample *btSampleAt(const BtSamples *p, int i);
void btSamplesClear(BtSamples *p);
/* The table's rows, estimated from its samples (bt_sample.c says how
** well); with paSample, the samples too, in wc_remote.h's format (the
** caller frees *paSample). */
int btRowEstimate(BtTable *p, int64_t *pnRow, unsigned char **paSample,
                  int64_t *pnSample);

/* bt_write.c */
int btUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
             sqlite3_int64 *pRowid);
#endif /* WIDECOL_BT_TABLE_H */
