/*
** cs_table.h: what the files of the cell store share: the module that
** keeps a widecol table's rows as rows of cells in an engine (Bigtable,
** HBase), over the transport its library links (cs_transport.h); its
** public side is cs_store.h.  From the bottom up, each calling only the
** ones above it in this list:
**   cs_wait.c     statuses, the engine's time, backoff, deadlines (the
**                 transports' too)
**   cs_cell.c     cell values and the row marker (cs_cell.h)
**   cs_util.c     arenas, messages, connecting, reads read whole
**   cs_catalog.c  design records: who made a table, with what design
**   cs_admin.c    the engine's tables: made, taken over, checked, deleted
**   cs_batch.c    writes waiting to be sent, and sending them in order
**   cs_txn.c      transactions, savepoints, DDL at COMMIT and ROLLBACK
**   cs_sample.c   sample keys: row estimates, region boundaries
**   cs_read.c     cursors: paged reads, stamps, index entries verified
**   cs_write.c    xUpdate: rows, versions and index entries as mutations
**   cs_store.c    the module: arguments, connecting, planning, registering
** Every call to the engine goes through the transport's table of
** functions (CsTable.pT), never by name.
**
** What a statement guarantees (docs/bigtable.md, docs/hbase.md): a
** statement that returns OK has every write it made applied, or reported
** by that same statement; writes waiting at COMMIT are sent and their
** failures fail the COMMIT; no read reports or swallows a write's error.
** How:
**   - In autocommit, a statement's writes wait in batches until its end
**     (xSync), whose failures are the statement's.  In a transaction a
**     plain INSERT is answered at its row, so that a key in use fails
**     that INSERT; other writes wait for COMMIT.
**   - A read sends what waits first (so that it sees it); what fails then
**     is kept for the end of the statement or for COMMIT (CsTxn.zFailed).
**   - Rows carry a stamp (the marker cell's value, cs_cell.h): UPDATE and
**     DELETE are writes conditional on the stamp the writer read, so that
**     no write acts on a row another client changed or deleted since.
**   - An index entry is written under its write's stamp (a group of cells
**     per write, see CS_ENTRIES) before its row, and the old entry is
**     deleted after; a read of an index keeps only the entries whose
**     stamp the row's marker names.  So a failure at any point leaves no
**     row without its entries, and no entry a read would return for a
**     row that does not have it.
*/
#ifndef WIDECOL_CS_TABLE_H
#define WIDECOL_CS_TABLE_H

#include <sqlite3ext.h>
#include "stores/cells/cs_store.h"
#include "stores/cells/cs_transport.h"
#include "stores/cells/cs_cell.h"
#include "stores/contract/sc_contract.h"
#include "stores/common/wc_arena.h"

/* Writes waiting, across the connection, before they are sent anyway. */
#define CS_BATCH_ROWS  1000
#define CS_BATCH_BYTES (8 << 20)
/* Conditional writes in flight at once when a batch is sent. */
#define CS_INFLIGHT 64

/*
** The tables.
*/
/* A column of a table: its cell, pointing into the table's arguments. */
typedef struct CsCol CsCol;
struct CsCol {
  const char *zName;    /* The column's name, */
  const char *zFamily;  /* its cell's family */
  const char *zQual;    /* and qualifier: zName, unless CELL names one */
  int eLayout;          /* How its cell holds a value: CS_LAYOUT_* */
};


/* What a table of the module is (its arguments say). */
#define CS_ROWS    0    /* Rows with a marker (STAMPS n: carrying the
                        ** stamps of n indexes' entries); widecol's
                        ** <name>_rows.  Without STAMPS (made by widecol
                        ** 1.0) the same, with n 0 */
#define CS_ENTRIES 1    /* An index's entries (ENTRIES OF '<rows>' i): a
                        ** group of cells per write, qualifiers "\0", the
                        ** write's 8-byte stamp, then the column's name
                        ** (the marker: no name); a read keeps the group
                        ** whose stamp is stamp i of the row's marker, or
                        ** the cells with plain qualifiers (a group
                        ** written by widecol 1.0, stamp 0) */
#define CS_PLAIN   2    /* An index table made by widecol 1.0: plain
                        ** qualifiers, no verification */
#define CS_OLDER   3    /* The versions before each row's latest of a
                        ** CS_ROWS table (OLDER): widecol's
                        ** <name>_versions */

typedef struct CsTxn CsTxn;
typedef struct CsTable CsTable;
typedef struct CsBatch CsBatch;
typedef struct CsOp CsOp;

/*
** What a connection's tables share (the module's client data, counted):
** the writes waiting, per engine table, and the transaction.
*/
#define CS_MAX_SAVEPOINT 64
struct CsTxn {
  int nRef;
  sqlite3 *db;
  const CsTransport *pT;    /* The library's transport */
  CsTable *pTables;     /* The module's tables on the connection */
  CsBatch *pBatches;    /* Writes waiting, one batch per engine table */
  int64_t nOp;          /* Writes waiting, in every batch */
  int64_t nByte;        /* and their size, roughly */
  int64_t iSeq;         /* Sequence number of the next write queued */
  int bOpen;            /* A transaction is open */
  int64_t nSent;        /* Rows sent, ever */
  int64_t iBegin;       /* nSent when the transaction began */
  int nSavepoint;
  int64_t aiSent[CS_MAX_SAVEPOINT];   /* nSent at each savepoint */
  int64_t aiSeq[CS_MAX_SAVEPOINT];    /* iSeq at each savepoint */
  /* Writes that failed after the statement that made them returned (they
  ** waited in a batch a read sent): the end of the statement or COMMIT
  ** reports them. */
  int rcFailed;
  char *zFailed;
  /* DDL: engine tables to delete at COMMIT, tables made in this
  ** transaction to delete at ROLLBACK (cs_txn.c). */
  ScDdl ddl;
};

struct CsTable {
  sqlite3_vtab base;
  sqlite3 *db;
  const CsTransport *pT;    /* The engine's transport (the library's),
                            ** pT->pKind its facts */
  ScArgs args;          /* What its CREATE said (sc_contract.h) */
  char *zName;          /* SQLite name, for messages */
  char *zTable;         /* The widecol table it is behind, for messages:
                        ** zName less SUFFIX */
  int eKind;            /* CS_ROWS, CS_ENTRIES, CS_PLAIN, CS_OLDER */
  int nCol;             /* Columns after the key */
  CsCol *aCol;
  int *aiSorted;        /* Columns with cells by (family, qualifier), */
  int nSorted;          /* for lookups */
  int iRowkeyCol;       /* CS_ENTRIES: the column holding the row key */
  int nFamily;
  const char **azFamily;    /* Distinct families, WC_DEFAULT_FAMILY first */
  CsConn *pConn;        /* Opened on first use */
  WcRpcStats count;
  CsWait wait;          /* Deadline, the interrupt probe, count */
  sqlite3_stmt *pProbe; /* SELECT 1, stepped to learn of an interrupt */
  int64_t iLastMicros;  /* Timestamps given are increasing */
  /* The last scan of one key (widecol reads a row, then writes it): the
  ** state a write of that key is conditional on (cs_write.c). */
  WcBuf seenKey;
  int bSeen;            /* A row was found (or taken to be there) */
  int bSeenMarker;      /* ... with a marker, */
  WcBuf seenMarker;     /* this one (its value), */
  int64_t iSeenMicros;  /* stamped this (the row's cells go after it) */
  int bSeenPrefix;      /* seenMarker holds what the writer gave with
                        ** _stamp = ? instead: the marker's first byte and
                        ** the stamps (a CS_ROWS row; the row was not
                        ** read), or the group's stamp (CS_ENTRIES) */
  WcBuf seenRowkey;     /* CS_ENTRIES: rowkey = ?, the entry's row */
  CsTxn *pTxn;          /* The connection's state (shared) */
  CsTable *pNextTable;  /* The next of pTxn->pTables */
};

/* cs_util.c */
/* Sets the table's message (formatted) and returns rc. */
int csError(CsTable *p, int rc, const char *zFormat, ...);
/* The engine said no: a message that says what to do; returns the
** SQLite code.  csRpcDescribe() is its text without the table's name
** (sqlite3_mprintf, NULL on OOM). */
int csRpcError(CsTable *p, const char *zDoing, const CsStatus *pStatus);
char *csRpcDescribe(CsTable *p, const char *zDoing, int code,
                    const char *zMsg);
/* The SQLite code of a CS_* code, as csRpcError() chooses it. */
int csRpcCode(int code);
/* True if a write that failed with SQLite code rc (from csRpcCode()) was
** sent but not answered (no answer before the deadline, an interrupt, a
** connection lost): the engine may yet apply it. */
int csMaybeApplied(int rc);
/* Opens the table's connection to its engine, if not yet open. */
int csTableConnect(CsTable *p);
/* A key for a message: 'text' when printable, else x'hex' (a long one
** cut); from sqlite3_mprintf(). */
char *csDescribeKey(const unsigned char *a, size_t n);
/* The first table of the connection on the engine's table zResource, or
** 0. */
CsTable *csTableOn(CsTxn *pTxn, const char *zResource);
/* A new write's stamp (wc_stamp.h). */
void csNewStamp(unsigned char *aOut);
/* The table's id in an engine's table name, and the table zId beside
** zRes (sqlite3_mprintf()). */
const char *csResourceId(const CsTable *p, const char *zRes);
char *csResourceSibling(const CsTable *p, const char *zRes, const char *zId);

/* The key of a version in an OLDER table (its hidden column vkey): the
** row key, then the timestamp's 8 bytes big-endian. */
void csVersionKey(WcBuf *pOut, const unsigned char *aKey, int64_t nKey,
                  int64_t iMicros);
/* The marker's column: family "_", the empty qualifier. */
extern const CsColumn csMarkerColumn;

/* A small read read whole by csReadAll(): xBegin clears what an attempt
** gathered (an answer lost halfway is read again from its start), xRow
** takes each row. */
typedef struct CsRowSink CsRowSink;
struct CsRowSink {
  void (*xBegin)(void *pCtx);
  void (*xRow)(void *pCtx, const CsRow *pRow);
  void *pCtx;
};
/* Reads pRead into pSink, sent again while its answer is lost (a read
** changes nothing) and pWait's deadline allows: CS_OK, or the read's
** code, status in *pSt (the caller clears it). */
int csReadAll(CsTable *p, const CsRead *pRead, const CsWait *pWait,
              const CsRowSink *pSink, CsStatus *pSt);
/* A call made again while it fails with a code worth a retry, with
** backoff, until pWait's deadline: for calls that may be repeated (table
** admin, whose repeat says CS_EXISTS or CS_NOT_FOUND; catalog writes).
** xAttempt makes one attempt under the wait it is handed. */
int csRetry(CsTable *p, const CsWait *pWait,
            int (*xAttempt)(CsTable*, void*, const CsWait*, CsStatus*),
            void *pArg, CsStatus *pSt);

/* cs_catalog.c: the design record of p's engine table (see the file).
** csCatalogClaim() writes p's record (DESIGN, OWNER, not made) where
** there is none (*pbClaimed), else reads the one there into *pRec;
** csCatalogWrite() writes p's record whatever is there; csCatalogForget()
** deletes the record if it names p's OWNER. */
typedef struct CsRecord CsRecord;
struct CsRecord {
  int bFound;
  char *zDesign;
  char *zOwner;
  int bMade;            /* The owner's CREATE made the table */
};
int csCatalogClaim(CsTable *p, int *pbClaimed, CsRecord *pRec);
int csCatalogRead(CsTable *p, CsRecord *pRec);
int csCatalogWrite(CsTable *p, int bMade);
int csCatalogForget(CsTable *p);
void csRecordClear(CsRecord *pRec);
/* What differs between two designs, for a message (sqlite3_mprintf), or
** NULL if they are the same (clauses in any order, ASCII case aside
** outside quotes). */
char *csDesignDiff(const char *zRecorded, const char *zNow);

/* cs_admin.c: the engine's tables (made, read, deleted), see the file.
** csCreateRemote() makes p's table or takes it over; *pbMade if it made
** it, *pbClaimed if this CREATE
** wrote its design record: what csUndoCreate() undoes (a failure is
** logged).  csDropRemote() deletes p's table if p's CREATE made it
** (*pbKept otherwise: EXTERNAL, taken over, an OLDER table). */
int csCreateRemote(CsTable *p, int *pbMade, int *pbClaimed);
/* An EXISTING table's CREATE: the table is there, with the families its
** cells are in; nothing is made or recorded. */
int csCheckExisting(CsTable *p);
void csUndoCreate(CsTable *p, int bMade, int bClaimed);
int csDropRemote(CsTable *p, int *pbKept);
int csDeleteRemote(CsTable *p, const char *zResource);
/* After a read found a column's cells missing: a message naming the
** family if the engine no longer has it; returns the code. */
int csMissingColumn(CsTable *p, int iCol, const unsigned char *aKey,
                    size_t nKey);

/* cs_batch.c: writes waiting.  A write (CsOp) is one row's mutations,
** blind, or conditional on the row having no cell (INSERT), or on its
** marker (UPDATE, DELETE).  Writes wait in a batch per engine table, in
** three phases sent in order by csTxnFlush(): index entries put (1), rows
** (2), index entries deleted (3). */
#define CS_PHASE_PUT    1
#define CS_PHASE_ROW    2
#define CS_PHASE_DELETE 3
#define CS_COND_NONE    0   /* blind */
#define CS_COND_ABSENT  1   /* only if the row has no cell at all */
#define CS_COND_MARKER  2   /* only if the marker is aExpect exactly, */
#define CS_COND_PREFIX  3   /* or starts with it; */
#define CS_COND_NOMARK  4   /* or there is no marker */
struct CsOp {
  const unsigned char *aKey;
  size_t nKey;
  CsMutation *aMut;     /* In its arena */
  int nMut;
  int nMutAlloc;
  int eCond;            /* CS_COND_* */
  const unsigned char *aExpect;
  size_t nExpect;
  int iPhase;           /* CS_PHASE_* */
  unsigned char aStamp[8];  /* The write it belongs to (0s: none) */
  CsOp *pRow;           /* Phase 3: the row write it follows, if queued */
  int64_t iSeq;         /* For savepoints */
  int eOutcome;         /* While sent: CS_OUT_* */
  WcArena *pArena;      /* Its memory: its batch's, or the caller's */
  CsBatch *pBatch;      /* Its batch, once queued */
  /* Once queued, the table that wrote it, for errors: several tables
  ** can write one engine table (EXISTING), and share its batch. */
  const char *zTable;
  const char *zKeys;
};
#define CS_OUT_WAIT     0
#define CS_OUT_OK       1
#define CS_OUT_FAILED   2   /* the engine refused it (message kept) */
#define CS_OUT_CONFLICT 3   /* the condition did not hold */
#define CS_OUT_SKIPPED  4   /* its index entries could not be written */
#define CS_OUT_FOREIGN  5   /* an insert's key holds cells another program
                            ** wrote without the marker: no row to a read */

/* The batch of engine table zResource, made if need be (NULL: OOM). */
CsBatch *csBatchOf(CsTable *p, const char *zResource);
/* The memory of batch pB's writes. */
WcArena *csBatchArena(CsBatch *pB);
/* A new write of key aKey, in arena pA (a batch's, to queue it there);
** NULL on OOM.  csOpAdd() appends a mutation, its bytes copied into the
** write's arena: SQLITE_OK or SQLITE_NOMEM. */
CsOp *csOpNew(WcArena *pA, int iPhase, const unsigned char *aKey,
              size_t nKey, int nMutMax);
int csOpAdd(CsOp *pOp, const CsMutation *pM);
/* Each of pOp's mutations: CS_SET_CELL of (zFamily, qual) at iMicros to
** value; CS_DELETE_CELLS of (zFamily, qual), every cell (iTo 0) or
** those stamped in [iFrom, iTo); CS_DELETE_ROW. */
int csOpSet(CsOp *pOp, const char *zFamily, const unsigned char *aQual,
            size_t nQual, const unsigned char *a, size_t n, int64_t iMicros);
int csOpDeleteCells(CsOp *pOp, const char *zFamily, const unsigned char *aQual,
                    size_t nQual, int64_t iFrom, int64_t iTo);
int csOpDeleteRow(CsOp *pOp);
/* Sends what waits if a write of aKey in phase iPhase cannot be queued
** behind it (the batch is full, or a conditional write of that key
** waits); called before the write is made in pB's arena, which a send
** frees.  SQLITE_OK, or a failure kept (cs_txn.c). */
int csOpRoom(CsTable *p, CsBatch *pB, int iPhase, const unsigned char *aKey,
             size_t nKey);
/* Queues pOp, made in pB's arena since csOpRoom() (SQLITE_OK, or
** SQLITE_NOMEM). */
int csOpQueue(CsTable *p, CsBatch *pB, CsOp *pOp);
/* The row write of key aKey waiting in the batch of zResource, or 0. */
CsOp *csOpWaiting(CsTxn *pTxn, const char *zResource,
                  const unsigned char *aKey, size_t nKey);
/* True if a write of aKey waits in the batch of zResource. */
int csKeyWaiting(CsTxn *pTxn, const char *zResource,
                 const unsigned char *aKey, size_t nKey);
/* Sends what waits, phase by phase.  The failures: returned (rc, message
** in p) if bReport, else kept in the CsTxn for the end of the statement
** or COMMIT, and SQLITE_OK returned.  aMine: the stamp of a write about to
** be sent alone (csOpSendNow()): if its index entries (waiting in phase
** 1) fail, that is returned as its own error, with a message in p. */
int csTxnFlush(CsTable *p, int bReport, const unsigned char *aMine);
/* Drops what waits (every write, or those queued since iSeq). */
void csTxnDrop(CsTxn *pTxn, int64_t iSeq);
/* A conditional write sent now, its answer awaited: SQLITE_OK, or
** SQLITE_CONSTRAINT_PRIMARYKEY (a row is there: INSERT), SQLITE_BUSY (the
** marker changed: UPDATE), or an error (message set). */
int csOpSendNow(CsTable *p, CsOp *pOp);
void csBatchFreeAll(CsTxn *pTxn);
/* Keeps a failure of writes for the end of the statement or COMMIT. */
void csTxnKeepFailure(CsTxn *pTxn, int rc, const char *zMsg);

/* cs_txn.c */
/* The module's client data: what the connection's transaction has sent
** and what waits, over transport pT.  csTxnNew() gives one reference;
** csTxnUnref() is the module's destructor. */
CsTxn *csTxnNew(const CsTransport *pT);
void csTxnRef(void *pTxn);
void csTxnUnref(void *pTxn);
/* The transaction table (CsTransport.zTxnModule): an eponymous table of
** this module, holding nothing, that its DDL puts in the transaction so
** that the DDL's engine part happens at COMMIT or ROLLBACK.  Registered
** with the same client data as the module. */
extern const sqlite3_module csTxnModule;
/* Frees a table (unlinked from its connection's list). */
void csTableFree(CsTable *p);
/* DROP TABLE of p: its engine table is deleted at COMMIT (p is the
** transaction's from now, freed at its end). */
int csTxnDropLater(CsTable *p);
/* CREATE of p made its table or wrote its record: undone at ROLLBACK
** (on a failure here, undone at once). */
int csTxnMade(CsTable *p, int bMade, int bClaimed);
/* True if a DROP waiting for COMMIT deletes zResource. */
int csTxnDropping(CsTxn *pTxn, const char *zResource);
int csBegin(sqlite3_vtab *pVtab);
int csSync(sqlite3_vtab *pVtab);
int csCommit(sqlite3_vtab *pVtab);
int csRollback(sqlite3_vtab *pVtab);
int csSavepoint(sqlite3_vtab *pVtab, int iSavepoint);
int csRelease(sqlite3_vtab *pVtab, int iSavepoint);
int csRollbackTo(sqlite3_vtab *pVtab, int iSavepoint);
/* True if no transaction is open (each statement is one). */
int csAutocommit(const CsTable *p);

/* cs_read.c: the cursor methods. */
int csOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur);
int csClose(sqlite3_vtab_cursor *pCursor);
int csFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr,
             int argc, sqlite3_value **argv);
int csNext(sqlite3_vtab_cursor *pCursor);
int csEof(sqlite3_vtab_cursor *pCursor);
int csColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol);
int csRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *pRowid);
/* The column of cell (zFamily, aQual[0..nQual)): >= 0, or -2. */
int csFindColumn(const CsTable *p, const char *zFamily,
                 const unsigned char *aQual, size_t nQual);
/* The hidden columns after the declared ones. */
#define CS_COL_ROWTIME(p) ((p)->nCol + 1)
#define CS_COL_STAMP(p)   ((p)->nCol + 1 + (p)->args.bRowtime)
#define CS_COL_VKEY(p)    ((p)->nCol + 2)

/* Planning (cs_store.c) hands xFilter the constraints scBestIndex()
** takes (sc_contract.h): SC_EQ, the bounds, SC_STAMPEQ (the write that
** follows is conditional on the stamp given; with key = ?, the row is
** taken to be there, unread), SC_ROWKEYEQ (an entry's row, CS_ENTRIES),
** SC_SET, SC_DESC, SC_LIMIT (the rows the first page asks for), or
** SC_COUNTERS alone. */

/* cs_sample.c: sample keys.  A sample is a key ending a section of
** the table (the empty key: its end) and the bytes before it. */
typedef struct CsSample CsSample;
struct CsSample {
  int64_t iKey, nKey;   /* The key, in CsSamples.keys */
  int64_t nBefore;      /* Bytes of the table before it */
};
typedef struct CsSamples CsSamples;
struct CsSamples {
  int n;
  WcBuf samples;        /* CsSample[n] */
  WcBuf keys;
};
/* The table's samples, in key order (one call, sent again while its
** answer is lost): SQLITE_OK, or an error with p's message set. */
int csSampleRowKeys(CsTable *p, CsSamples *pOut);
const CsSample *csSampleAt(const CsSamples *p, int i);
void csSamplesClear(CsSamples *p);
/* The table's rows, estimated from its samples (cs_sample.c says how
** well); with paSample, the samples too, in wc_contract.h's format (the
** caller frees *paSample). */
int csRowEstimate(CsTable *p, int64_t *pnRow, unsigned char **paSample,
                  int64_t *pnSample);
/* The table's regions with their servers and request counts, in
** wc_contract.h's format (WcRpcStats.aLoad; the caller frees *paLoad),
** or NULL where the transport does not tell them. */
int csRegionLoads(CsTable *p, unsigned char **paLoad, int64_t *pnLoad);

/* cs_write.c */
int csUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
             sqlite3_int64 *pRowid);
#endif /* WIDECOL_CS_TABLE_H */
