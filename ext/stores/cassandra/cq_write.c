/*
** cq_write.c: writing rows.  A plain INSERT is INSERT ... IF NOT EXISTS
** (a lightweight transaction), so that a used key fails; INSERT OR
** REPLACE a plain INSERT (an upsert: a new row's NULL is left unset, no
** tombstone); UPDATE and DELETE by the key's columns, each a lightweight
** transaction IF "_stamp" = the stamp the row was read with (cq_read.c
** keeps it: CqTable.seen*), so that a row another client changed or
** deleted since is not written (SQLITE_BUSY_SNAPSHOT).  An INDEX's entry
** is put under its write's stamp and deleted by it (its key ends so);
** on a design with an INDEX a row's UPDATE or DELETE is answered before
** the old entries go, which go only if it was applied.
**
** Writes go in groups, each one request: on a design with an INDEX a
** row's writes (the row's and its entries', in several CQL tables) as a
** LOGGED BATCH, which Cassandra's batch log makes happen all together; on
** a design without, a run of writes to one partition as an UNLOGGED
** BATCH, one mutation.  A group is sent when a write of another group
** comes, when it is full (CQ_GROUP_MAX, CQ_GROUP_BYTES), and before any
** other request; a write to a key already in it starts another, so that
** the writes of one key keep their order (a BATCH gives its writes one
** timestamp).
**
** Requests go in flight: each is sent at once and its answer read later,
** up to CQ_WINDOW of them, so that Cassandra works on many rows while
** SQLite makes the next (the store answers late: WcStoreCaps.bLateChecks).
** They are waited for before a read (which must see them), when the
** window is full, and when the transaction ends (xSync); the first
** failure found is the failure of the statement that finds it, or of the
** COMMIT.  A plain INSERT (IF NOT EXISTS) goes alone, INSERT OR FAIL and
** UPDATE OR FAIL (the core's writes answered at once) wait for their own
** answer.  Each write is Cassandra's once sent: ROLLBACK undoes none of
** them (docs/cassandra.md).
*/
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include "key/wc_decode.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

/* Requests in flight on a connection, before the oldest is waited for. */
#define CQ_WINDOW 256
/* A group's writes, at most, and its bytes: Cassandra refuses a LOGGED
** batch past batch_size_fail_threshold (50 KiB by default), so a larger
** row and its entries go in more than one. */
#define CQ_GROUP_MAX   100
#define CQ_GROUP_BYTES (40 * 1024)
/* Places of the table of keys in flight: a power of two, twice the most
** keys the window's requests write. */
#define CQ_FLIGHT_SLOTS 65536
#if CQ_WINDOW * CQ_GROUP_MAX > CQ_FLIGHT_SLOTS / 2
# error "CQ_FLIGHT_SLOTS must be twice the keys the window holds"
#endif

/* Where a request goes: a replica of its first write's partition (where
** its token is known), with the statements it uses (each distinct, NUL
** terminated, in texts) prepared there; CQ_ROUTE_MAX at most (a group's
** writes use a statement per CQL table, the row's and each index's). */
#define CQ_ROUTE_MAX 64
typedef struct CqRouting CqRouting;
struct CqRouting {
  int bToken;
  int64_t iToken;
  WcBuf texts;
  int nCql;
};

/* The keys a request writes: (table, hash of the key) pairs. */
typedef struct CqKeys CqKeys;
struct CqKeys {
  CqTable **apTable;
  uint32_t *aHash;
  int n, nAlloc;
};

/* What a lightweight transaction's [applied] false means (CqWrite.eCas). */
#define CQ_CAS_NONE   0     /* Not one */
#define CQ_CAS_INSERT 1     /* INSERT IF NOT EXISTS: the key is in use */
#define CQ_CAS_ROW    2     /* UPDATE or DELETE IF "_stamp" = ? (or IF
                            ** EXISTS): the row changed since it was read */

/* One request in flight: a BATCH of a group's writes, or of one
** lightweight transaction (a conditional BATCH of one statement). */
struct CqWrite {
  int iStream;
  CqLink link;          /* Sent on this connection (iNode -1: not sent) */
  int eCas;             /* CQ_CAS_*: what [applied] false means */
  int nStmt;            /* The writes it carries */
  int bLogged;          /* A LOGGED BATCH */
  CqTable *pTable;      /* Whose write, its first (waited for before it
                        ** goes) */
  CqKeys keys;          /* The keys it writes */
  WcBuf body;           /* Its statements as the BATCH carries them, to
                        ** send again where the answer was lost */
  CqRouting route;      /* Where it goes, and the statements it uses */
  /* eCas: the row's key, the _stamp the write is conditional on (n 0:
  ** none, IF NOT EXISTS or IF EXISTS) and the one it writes (n 0: a
  ** DELETE), by which a lost answer is settled (settleCas()). */
  WcBuf key, oldStamp, newStamp;
};

/* The writes of one group, not yet sent. */
struct CqGroup {
  WcBuf id;             /* The group: the widecol table's name, then a row
                        ** key (a design with an INDEX) or the key bytes
                        ** of a partition */
  WcBuf part;           /* The CQL table and partition of its first write */
  int bLogged;          /* Its writes reach more than one partition */
  WcBuf queries;        /* Its statements, as a BATCH carries them */
  int nQuery;
  CqTable *pTable;      /* Its first write's table */
  CqKeys keys;
  CqRouting route;
};

/* Adds statement zCql, made by a write whose partition's token is
** *piToken (bToken: known), to a request's route: the request goes
** where its first write's partition is. */
static void routeAdd(CqRouting *pR, const char *zCql, int bToken,
                     int64_t iToken){
  int64_t i = 0;
  if( pR->nCql == 0 ){
    pR->bToken = bToken;
    pR->iToken = iToken;
  }
  while( i < pR->texts.n ){
    const char *z = (const char*)&pR->texts.a[i];
    if( strcmp(z, zCql) == 0 ) return;
    i += (int64_t)strlen(z) + 1;
  }
  wcBufAppend(&pR->texts, zCql, (int64_t)strlen(zCql) + 1);
  pR->nCql++;
  /* groupAdd() sends a group before its route is full. */
  wcAssert( pR->nCql <= CQ_ROUTE_MAX );
}

static void routeClear(CqRouting *pR){
  pR->texts.n = 0;
  pR->nCql = 0;
  pR->bToken = 0;
}

/* The connection for a request on route pR, its statements prepared on
** it (made again on another node where one fails). */
static int routeConnect(CqTable *p, const CqRouting *pR, CqLink *pLink,
                        CqConn **ppConn){
  const char *azCql[CQ_ROUTE_MAX];
  int64_t i = 0;
  int n = 0;
  if( pR->texts.bOom ) return SQLITE_NOMEM;
  while( i < pR->texts.n && n < CQ_ROUTE_MAX ){
    azCql[n] = (const char*)&pR->texts.a[i];
    i += (int64_t)strlen(azCql[n++]) + 1;
  }
  /* Every statement of a group is in its route. */
  wcAssert( i == pR->texts.n );
  return cqConnectFor(p, pR->bToken, pR->iToken, azCql, n, pLink, ppConn);
}

static int keysAdd(CqKeys *pKeys, CqTable *p, uint32_t hKey){
  wcAssert( pKeys->n >= 0 && pKeys->n <= pKeys->nAlloc );
  if( pKeys->n == pKeys->nAlloc ){
    int nNew = pKeys->nAlloc ? pKeys->nAlloc * 2 : 8;
    CqTable **apNew = sqlite3_realloc64(pKeys->apTable,
                                        sizeof(CqTable*) * (size_t)nNew);
    uint32_t *aNew;
    if( apNew == 0 ) return SQLITE_NOMEM;
    pKeys->apTable = apNew;
    aNew = sqlite3_realloc64(pKeys->aHash, sizeof(uint32_t) * (size_t)nNew);
    if( aNew == 0 ) return SQLITE_NOMEM;
    pKeys->aHash = aNew;
    pKeys->nAlloc = nNew;
  }
  pKeys->apTable[pKeys->n] = p;
  pKeys->aHash[pKeys->n++] = hKey;
  return SQLITE_OK;
}

static int keysHas(const CqKeys *pKeys, CqTable *p, uint32_t hKey){
  int i;
  for(i = 0; i < pKeys->n; i++){
    if( pKeys->aHash[i] == hKey && pKeys->apTable[i] == p ) return 1;
  }
  return 0;
}

static void keysFree(CqKeys *pKeys){
  sqlite3_free(pKeys->apTable);
  sqlite3_free(pKeys->aHash);
  memset(pKeys, 0, sizeof(*pKeys));
}

/* The window is a ring: nWrite requests from aWrite[iFirst] on. */
static void windowCheck(const CqShared *pSh){
  wcAssert( pSh->nWrite >= 0 && pSh->nWrite <= CQ_WINDOW );
  wcAssert( pSh->iFirst >= 0 && pSh->iFirst < CQ_WINDOW );
  wcAssert( pSh->nWrite == 0 || pSh->aWrite != 0 );
  wcAssert( pSh->nFlight >= 0 && pSh->nFlight <= CQ_FLIGHT_SLOTS / 2 );
  (void)pSh;
}

/*
** The keys the writes in flight write, each (table, key hash) once with
** a count: a hash table, open addressing, linear probing, deletion by
** backward shift; CQ_FLIGHT_SLOTS places, at most half of them used.
** Every write looks its key up in it (keyInFlight()): looking through
** every request in flight instead took half a 1,000,000-row load's time.
** Two tables' keys may share a place's key (their pointers are mixed into
** it): such a key is taken as in flight, which costs a wait, not a wrong
** answer.
*/
static uint64_t flightKey(const CqTable *p, uint32_t hKey){
  uint64_t k = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull ^ hKey;
  return k ? k : 1;
}

static int flightHome(uint64_t k){
  return (int)((k * 0xD6E8FEB86659FD93ull) >> 32) & (CQ_FLIGHT_SLOTS - 1);
}

/* The place of key k, or of the empty place where it would go. */
static int flightFind(const CqShared *pSh, uint64_t k){
  int i = flightHome(k);
  while( pSh->aFlight[i] != 0 && pSh->aFlight[i] != k ){
    i = (i + 1) & (CQ_FLIGHT_SLOTS - 1);
  }
  return i;
}

/* Counts write pW's keys in flight (bAdd) or out of it. */
static void flightCount(CqShared *pSh, const CqWrite *pW, int bAdd){
  int k;
  for(k = 0; k < pW->keys.n; k++){
    uint64_t key = flightKey(pW->keys.apTable[k], pW->keys.aHash[k]);
    int i = flightFind(pSh, key), j;
    if( bAdd ){
      if( pSh->aFlight[i] == 0 ){
        pSh->aFlight[i] = key;
        pSh->nFlight++;
      }
      pSh->anFlight[i]++;
      continue;
    }
    wcAssert( pSh->aFlight[i] == key && pSh->anFlight[i] > 0 );
    if( --pSh->anFlight[i] > 0 ) continue;
    /* Emptied: each key after it in its run moves up where it may (its
    ** home not cyclically in (i, j]), so that no run has a hole. */
    for(j = (i + 1) & (CQ_FLIGHT_SLOTS - 1); pSh->aFlight[j];
        j = (j + 1) & (CQ_FLIGHT_SLOTS - 1)){
      int h = flightHome(pSh->aFlight[j]);
      if( i <= j ? (h <= i || h > j) : (h <= i && h > j) ){
        pSh->aFlight[i] = pSh->aFlight[j];
        pSh->anFlight[i] = pSh->anFlight[j];
        i = j;
      }
    }
    pSh->aFlight[i] = 0;
    pSh->anFlight[i] = 0;
    pSh->nFlight--;
  }
  windowCheck(pSh);
}

/* True if a write to a key of table p with hash hKey is in flight.
** Cassandra works on the requests in flight side by side, so a second
** write to a key must wait for the first (a DELETE, then the INSERT of an
** UPDATE's index entry; a lightweight transaction sees only what was
** applied). */
static int keyInFlight(CqShared *pSh, CqTable *p, uint32_t hKey){
  windowCheck(pSh);
  return pSh->nFlight > 0
      && pSh->aFlight[flightFind(pSh, flightKey(p, hKey))] != 0;
}

/* The key's columns and values, as widecol words them, into *pzCols and
** *pzVals (sqlite3_malloc; "?" where not known). */
static void keyText(CqTable *p, const WcBuf *pKey, char **pzCols,
                    char **pzVals){
  WcValue *aVal = sqlite3_malloc64(sizeof(WcValue) * CQ_NCOL(p->pS));
  sqlite3_str *pCols = sqlite3_str_new(0), *pVals = sqlite3_str_new(0);
  WcBuf dec;
  int i;
  memset(&dec, 0, sizeof(dec));
  if( aVal && cqDecodeKey(p, pKey->a, pKey->n, aVal, &dec) == WC_OK ){
    for(i = 0; i < p->nKey; i++){
      char *z = wcValueDescribe(&aVal[p->aiKey[i]], 0);
      sqlite3_str_appendf(pCols, "%s%s", i ? ", " : "",
                          cqColumnName(p, p->aiKey[i]));
      sqlite3_str_appendf(pVals, "%s%s", i ? ", " : "", z ? z : "?");
      sqlite3_free(z);
    }
  }
  *pzCols = sqlite3_str_finish(pCols);
  *pzVals = sqlite3_str_finish(pVals);
  wcBufFree(&dec);
  sqlite3_free(aVal);
}

/* The message of a lightweight transaction not applied (eCas), as
** widecol words it: the key's columns and values. */
static char *notApplied(CqTable *p, int eCas, const WcBuf *pKey){
  char *zCols, *zVals, *zMsg;
  keyText(p, pKey, &zCols, &zVals);
  if( eCas == CQ_CAS_INSERT ){
    zMsg = sqlite3_mprintf("UNIQUE constraint failed: %.*s.rowkey (a row "
        "with key (%s) = (%s) exists in Cassandra's %s.%s)",
        cqWidecolNameLen(p), p->zName, zCols ? zCols : "?",
        zVals ? zVals : "?", p->zKeyspace, p->zCqlTable);
  }else{
    zMsg = sqlite3_mprintf("widecol %.*s: another client changed or deleted "
        "the row with key (%s) = (%s) in Cassandra's %s.%s after this "
        "statement read it; run the statement again to act on the row as "
        "it is now", cqWidecolNameLen(p), p->zName, zCols ? zCols : "?",
        zVals ? zVals : "?", p->zKeyspace, p->zCqlTable);
  }
  sqlite3_free(zCols);
  sqlite3_free(zVals);
  return zMsg;
}

/* The message of a lightweight transaction whose outcome is unknown and
** whose row another client has written since: it may have been applied
** before that write (which then replaced it), and no read can tell. */
static char *inDoubt(CqTable *p, const WcBuf *pKey){
  char *zCols, *zVals, *zMsg;
  keyText(p, pKey, &zCols, &zVals);
  zMsg = sqlite3_mprintf("widecol %.*s: the answer to a write of the row "
      "with key (%s) = (%s) in Cassandra's %s.%s was lost (or Cassandra "
      "said its outcome is unknown), and another client has written the "
      "row since: the write may have been applied before that one, or not; "
      "read the row back before writing it again", cqWidecolNameLen(p),
      p->zName, zCols ? zCols : "?", zVals ? zVals : "?", p->zKeyspace,
      p->zCqlTable);
  sqlite3_free(zCols);
  sqlite3_free(zVals);
  return zMsg;
}

/* Keeps the failure rc, message zMsg (taken), unless one is kept. */
static void keep(CqShared *pSh, int rc, char *zMsg){
  if( pSh->rcKept == SQLITE_OK ){
    pSh->rcKept = rc;
    pSh->zKept = zMsg;
  }else{
    sqlite3_free(zMsg);
  }
}

/* Whether a write's answer is a failure: SQLITE_OK, or kept. */
static void judge(CqShared *pSh, CqWrite *pW, CqResult *pRes){
  CqTable *p = pW->pTable;
  if( pW->eCas != CQ_CAS_NONE ){
    int n;
    const unsigned char *a = pRes->nRow > 0 && pRes->nCol > 0
                           ? cqCell(pRes, 0, 0, &n) : 0;
    if( a == 0 || n != 1 ){
      cqTableError(p, SQLITE_PROTOCOL, "Cassandra answered a lightweight "
                   "transaction without [applied]");
      keep(pSh, SQLITE_PROTOCOL, p->base.zErrMsg);
      p->base.zErrMsg = 0;
    }else if( a[0] == 0 ){
      keep(pSh, pW->eCas == CQ_CAS_INSERT ? SQLITE_CONSTRAINT_PRIMARYKEY
                                          : SQLITE_BUSY_SNAPSHOT,
           notApplied(p, pW->eCas, &pW->key));
    }
  }
}

/* Keeps p's message as the failure rc. */
static void keepMessage(CqShared *pSh, CqTable *p, int rc){
  keep(pSh, rc, p->base.zErrMsg ? p->base.zErrMsg
                                : sqlite3_mprintf("%s", sqlite3_errstr(rc)));
  p->base.zErrMsg = 0;
}

/*
** Writes whose answer was lost (the connection failed under them), made
** whole before the writes after them are answered: a BATCH of upserts
** and deletes by the key is sent again (it does the same twice); a
** lightweight transaction's outcome is read at SERIAL first (which
** finishes a Paxos round still in progress on the row, so that the write
** shows or never will), and it is sent again only where the row is still
** as it was read.  Where another client has written the row since, the
** write may have been applied before that one, or not (no read tells):
** its statement fails saying so, never a conflict it may not have met.
** Each attempt on a new connection, up to CQ_ATTEMPTS; past them the
** write's statement fails saying it may yet apply.
*/
#define CQ_SETTLED_APPLIED 0    /* It was applied */
#define CQ_SETTLED_AGAIN   1    /* It was not: the row is as it was read */
#define CQ_SETTLED_DOUBT   2    /* Not known: the row changed since */

static int bufIs(const WcBuf *pBuf, const unsigned char *a, int n){
  return a && n >= 0 && pBuf->n == n
      && (n == 0 || memcmp(pBuf->a, a, (size_t)n) == 0);
}

/* The outcome of lightweight transaction pW, read at SERIAL: SQLITE_OK
** and *peSettled, or an error (p's message). */
static int settleCas(CqWrite *pW, int *peSettled){
  CqTable *p = pW->pTable;
  WcValue *aKey = sqlite3_malloc64(sizeof(WcValue) * CQ_NCOL(p->pS));
  CqValue aArg[CQ_MAX_ARGS];
  int an[CQ_MAX_ARGS], i, rc, n, bFound, bAsRead;
  char *zCql = sqlite3_mprintf("SELECT \"" WC_STAMP_COLUMN "\" FROM %s "
                               "WHERE %s", p->zCqlName, p->zKeyWhere);
  const unsigned char *a = 0;
  WcBuf dec, args;
  CqResult res;
  int64_t iOff = 0;
  memset(&dec, 0, sizeof(dec));
  memset(&args, 0, sizeof(args));
  memset(&res, 0, sizeof(res));
  wcAssert( p->iIndex < 0 && p->nKey <= CQ_MAX_ARGS );
  rc = aKey && zCql ? SQLITE_OK : SQLITE_NOMEM;
  if( rc == SQLITE_OK
   && cqDecodeKey(p, pW->key.a, pW->key.n, aKey, &dec) != WC_OK ){
    rc = SQLITE_NOMEM;
  }
  for(i = 0; rc == SQLITE_OK && i < p->nKey; i++){
    cqPutKeyValue(p, p->aiKey[i], &aKey[p->aiKey[i]], &args, &an[i]);
  }
  for(i = 0; rc == SQLITE_OK && i < p->nKey && !args.bOom; i++){
    aArg[i].a = args.a + iOff;
    aArg[i].n = an[i];
    iOff += an[i] > 0 ? an[i] : 0;
  }
  if( rc == SQLITE_OK && args.bOom ) rc = SQLITE_NOMEM;
  if( rc == SQLITE_OK ){
    rc = cqRunPrepared(p, zCql, aArg, p->nKey, p->pShared->eSerial, 0, 0, 0,
                       "a read of a row whose write's answer was lost", &res,
                       0);
  }
  if( rc == SQLITE_OK ){
    bFound = res.nRow > 0;
    if( bFound ) a = cqCell(&res, 0, 0, &n);
    /* The row as the write read it: none (INSERT), or with the stamp its
    ** condition names (none: a row another client wrote, IF EXISTS). */
    bAsRead = pW->eCas == CQ_CAS_INSERT ? !bFound
            : pW->oldStamp.n > 0 ? bFound && bufIs(&pW->oldStamp, a, n)
            : bFound && a == 0;
    if( pW->newStamp.n > 0 ? bFound && bufIs(&pW->newStamp, a, n) : !bFound ){
      *peSettled = CQ_SETTLED_APPLIED;
    }else if( bAsRead ){
      *peSettled = CQ_SETTLED_AGAIN;
    }else{
      *peSettled = CQ_SETTLED_DOUBT;
    }
  }
  cqResultClear(&res);
  wcBufFree(&dec);
  wcBufFree(&args);
  sqlite3_free(aKey);
  sqlite3_free(zCql);
  return rc;
}

/* Sends pW's BATCH on the connection now open and waits for its answer,
** judged, or (pbApplied, a lightweight transaction's) its [applied] in
** *pbApplied: SQLITE_OK, or the failure (p's message). */
static int sendAgain(CqShared *pSh, CqWrite *pW, int *pbApplied){
  CqTable *p = pW->pTable;
  CqConn *pConn = 0;
  CqResult res;
  CqLink link;
  WcDeadline d;
  int rc = routeConnect(p, &pW->route, &link, &pConn), e = 0, iStream = -1;
  memset(&res, 0, sizeof(res));
  if( rc != SQLITE_OK ) return rc;
  d = cqDeadline(p);
  e = cqSendBatch(pConn, pW->bLogged, &pW->body, pW->nStmt,
                  pSh->eConsistency, pW->eCas ? pSh->eSerial : 0, &d,
                  &iStream);
  if( e == 0 ){
    cqCountRequest(p, &link, pConn);
    e = cqWait(pConn, iStream, &d, &res);
  }
  if( e == 0 ){
    int n = 0;
    const unsigned char *a = pbApplied && res.nRow > 0 && res.nCol > 0
                           ? cqCell(&res, 0, 0, &n) : 0;
    cqCountReply(p, &link, &res);
    if( a && n == 1 ){
      *pbApplied = a[0] != 0;
    }else{
      judge(pSh, pW, &res);
    }
  }else{
    rc = cqCallError(p, &link, e, &res, pW->nStmt > 1 ? "a BATCH of writes"
                                                      : "a write");
  }
  cqResultClear(&res);
  return rc;
}

/* Makes write pW whole after its connection failed (see above). */
static void recoverWrite(CqShared *pSh, CqWrite *pW){
  CqTable *p = pW->pTable;
  int nAttempt, rc = SQLITE_OK;
  /* At once, where a new connection may be open already; after a wait
  ** past each attempt that failed. */
  for(nAttempt = 1; nAttempt == 1 || cqRetry(p, nAttempt - 1); nAttempt++){
    int eSettled = CQ_SETTLED_AGAIN, bApplied = 1;
    int bCas = pW->eCas != CQ_CAS_NONE;
    rc = bCas ? settleCas(pW, &eSettled) : SQLITE_OK;
    if( rc == SQLITE_OK && eSettled == CQ_SETTLED_AGAIN ){
      rc = sendAgain(pSh, pW, bCas ? &bApplied : 0);
      if( rc == SQLITE_OK && !bApplied ){
        /* The first may have been applied after the row was read back
        ** (it was still on its way): then the row holds its stamp. */
        rc = settleCas(pW, &eSettled);
        if( eSettled == CQ_SETTLED_AGAIN ) eSettled = CQ_SETTLED_DOUBT;
      }
    }
    if( rc == SQLITE_OK ){
      /* A row another client wrote since: a conflict, or this write
      ** applied first and replaced; no read tells which. */
      if( eSettled == CQ_SETTLED_DOUBT ){
        keep(pSh, SQLITE_IOERR, inDoubt(p, &pW->key));
      }
      return;
    }
    /* The server's own answer, not a connection: the write's failure. */
    if( !pSh->bLost ){
      keepMessage(pSh, p, rc);
      return;
    }
  }
  nAttempt--;
  if( rc == SQLITE_INTERRUPT ){
    keepMessage(pSh, p, rc);
    return;
  }
  sqlite3_free(p->base.zErrMsg);
  p->base.zErrMsg = 0;
  keep(pSh, SQLITE_IOERR, sqlite3_mprintf("widecol %.*s: the connection to "
      "Cassandra at %s failed under %s %d times: %s may yet apply, or may "
      "not; read the row%s back before writing %s again",
      cqWidecolNameLen(p), p->zName, pSh->cluster.zContacts,
      pW->nStmt > 1 ? "a BATCH of writes" : "a write", nAttempt,
      pW->nStmt > 1 ? "they" : "it", pW->nStmt > 1 ? "s" : "",
      pW->nStmt > 1 ? "them" : "it"));
}

/* Waits for the oldest write in flight; one whose connection failed
** (before its answer, or while it was awaited) is made whole. */
static void awaitOldest(CqShared *pSh){
  CqWrite *pW = &pSh->aWrite[pSh->iFirst];
  int bLost;
  windowCheck(pSh);
  wcAssert( pSh->nWrite > 0 && pW->nStmt > 0 && pW->pTable != 0 );
  bLost = cqLinked(pW->pTable, &pW->link) == 0;
  if( !bLost ){
    CqTable *p = pW->pTable;
    WcDeadline d = cqDeadline(p);
    CqResult res;
    int e = cqWait(cqLinked(p, &pW->link), pW->iStream, &d, &res);
    if( e == 0 ){
      cqCountReply(p, &pW->link, &res);
      judge(pSh, pW, &res);
    }else{
      int rc = cqCallError(p, &pW->link, e, &res, pW->nStmt > 1
                           ? "a BATCH of writes" : "a write");
      bLost = pSh->bLost;
      if( !bLost ) keepMessage(pSh, p, rc);
    }
    cqResultClear(&res);
  }
  if( bLost ) recoverWrite(pSh, pW);
  flightCount(pSh, pW, 0);
  pSh->iFirst = (pSh->iFirst + 1) % CQ_WINDOW;
  pSh->nWrite--;
}

/* The failure kept, as p's: SQLITE_OK if there is none. */
static int report(CqShared *pSh, CqTable *p){
  int rc = pSh->rcKept;
  if( rc != SQLITE_OK ){
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = pSh->zKept;
    pSh->zKept = 0;
    pSh->rcKept = SQLITE_OK;
  }
  return rc;
}

/* A free place in the window for a request of p's, the oldest waited for
** if it is full: SQLITE_OK, or a failure (p's). */
static int windowSlot(CqShared *pSh, CqTable *p){
  if( pSh->aWrite == 0 ){
    pSh->aFlight = sqlite3_malloc64(sizeof(uint64_t) * CQ_FLIGHT_SLOTS);
    pSh->anFlight = sqlite3_malloc64(sizeof(uint32_t) * CQ_FLIGHT_SLOTS);
    pSh->aWrite = sqlite3_malloc64(sizeof(CqWrite) * CQ_WINDOW);
    if( pSh->aWrite == 0 || pSh->aFlight == 0 || pSh->anFlight == 0 ){
      sqlite3_free(pSh->aFlight);
      sqlite3_free(pSh->anFlight);
      sqlite3_free(pSh->aWrite);
      pSh->aFlight = 0;
      pSh->anFlight = 0;
      pSh->aWrite = 0;
      return SQLITE_NOMEM;
    }
    memset(pSh->aWrite, 0, sizeof(CqWrite) * CQ_WINDOW);
    memset(pSh->aFlight, 0, sizeof(uint64_t) * CQ_FLIGHT_SLOTS);
    memset(pSh->anFlight, 0, sizeof(uint32_t) * CQ_FLIGHT_SLOTS);
  }
  windowCheck(pSh);
  if( pSh->nWrite < CQ_WINDOW ) return SQLITE_OK;
  awaitOldest(pSh);
  wcAssert( pSh->nWrite < CQ_WINDOW );
  return report(pSh, p);
}

/* The connection for a write about to be sent on route pR: SQLITE_OK and
** *ppConn, or SQLITE_OK and no connection where none could be opened now
** (the write is left to awaitOldest() to send), or an error (p's
** message). */
static int openForWrite(CqTable *p, const CqRouting *pR, CqLink *pLink,
                        CqConn **ppConn){
  int rc = routeConnect(p, pR, pLink, ppConn);
  if( rc != SQLITE_OK && rc != SQLITE_NOMEM && p->pShared->bLost ){
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = 0;
    *ppConn = 0;
    rc = SQLITE_OK;
  }
  return rc;
}

/* Puts pW, the window's next place, filled, in flight on pConn: sent,
** or, where that connection failed (or there was none), left to
** awaitOldest() to send again.  SQLITE_OK, or an error of the server's
** (p's message; pW not in the window). */
static int sendWrite(CqShared *pSh, CqWrite *pW, CqConn *pConn,
                     const CqLink *pLink){
  CqTable *p = pW->pTable;
  int e = 0;
  wcAssert( pW == &pSh->aWrite[(pSh->iFirst + pSh->nWrite) % CQ_WINDOW] );
  pW->link.iNode = -1;
  if( pConn ){
    WcDeadline d = cqDeadline(p);
    e = cqSendBatch(pConn, pW->bLogged, &pW->body, pW->nStmt,
                    pSh->eConsistency, pW->eCas ? pSh->eSerial : 0, &d,
                    &pW->iStream);
    if( e == 0 ){
      cqCountRequest(p, pLink, pConn);
      pW->link = *pLink;
    }else{
      CqResult res;
      int rc;
      memset(&res, 0, sizeof(res));
      rc = cqCallError(p, pLink, e, &res, pW->nStmt > 1 ? "a BATCH of writes"
                                                        : "a write");
      if( !pSh->bLost ) return rc;
      sqlite3_free(p->base.zErrMsg);
      p->base.zErrMsg = 0;
    }
  }
  flightCount(pSh, pW, 1);
  pSh->nWrite++;
  return SQLITE_OK;
}

static void groupClear(CqGroup *pG){
  routeClear(&pG->route);
  pG->id.n = pG->part.n = pG->queries.n = 0;
  pG->nQuery = 0;
  pG->bLogged = 0;
  pG->pTable = 0;
  pG->keys.n = 0;
}

/* Sends the group's writes, one request in flight: a failure is kept, to
** be reported as a write's answer is. */
static void groupSend(CqShared *pSh){
  CqGroup *pG = pSh->pGroup;
  CqTable *p;
  CqConn *pConn = 0;
  CqLink link;
  int rc;
  if( pG == 0 || pG->nQuery == 0 ) return;
  /* A group: at most CQ_GROUP_MAX writes, every key it writes listed. */
  wcAssert( pG->nQuery <= CQ_GROUP_MAX && pG->keys.n <= pG->nQuery );
  p = pG->pTable;
  rc = pG->queries.bOom || pG->id.bOom || pG->part.bOom ? SQLITE_NOMEM
                                                          : windowSlot(pSh, p);
  if( rc == SQLITE_OK ) rc = openForWrite(p, &pG->route, &link, &pConn);
  if( rc == SQLITE_OK ){
    CqWrite *pW = &pSh->aWrite[(pSh->iFirst + pSh->nWrite) % CQ_WINDOW];
    CqKeys keys = pW->keys;
    WcBuf body = pW->body;
    CqRouting route = pW->route;
    wcAssert( pSh->nWrite < CQ_WINDOW );
    pW->eCas = CQ_CAS_NONE;
    pW->nStmt = pG->nQuery;
    pW->bLogged = pG->bLogged;
    pW->pTable = p;
    pW->link.iNode = -1;
    pW->keys = pG->keys;
    pG->keys = keys;
    pW->body = pG->queries;
    pG->queries = body;
    pW->route = pG->route;
    pG->route = route;
    rc = sendWrite(pSh, pW, pConn, &link);
  }
  if( rc != SQLITE_OK ) keepMessage(pSh, p, rc);
  groupClear(pG);
}

int cqGroupPending(const CqShared *pSh){
  return pSh->pGroup && pSh->pGroup->nQuery > 0;
}

int cqWritesDone(CqTable *p){
  CqShared *pSh = p->pShared;
  groupSend(pSh);
  while( pSh->nWrite > 0 ) awaitOldest(pSh);
  wcAssert( !cqGroupPending(pSh) && pSh->nWrite == 0 );
  return report(pSh, p);
}

void cqWritesForget(CqShared *pSh){
  groupSend(pSh);
  while( pSh->nWrite > 0 ) awaitOldest(pSh);
  sqlite3_free(pSh->zKept);
  pSh->zKept = 0;
  pSh->rcKept = SQLITE_OK;
}

void cqWritesFree(CqShared *pSh){
  int i;
  for(i = 0; pSh->aWrite && i < CQ_WINDOW; i++){
    CqWrite *pW = &pSh->aWrite[i];
    wcBufFree(&pW->key);
    wcBufFree(&pW->oldStamp);
    wcBufFree(&pW->newStamp);
    wcBufFree(&pW->body);
    wcBufFree(&pW->route.texts);
    keysFree(&pW->keys);
  }
  sqlite3_free(pSh->aWrite);
  sqlite3_free(pSh->aFlight);
  sqlite3_free(pSh->anFlight);
  sqlite3_free(pSh->zKept);
  if( pSh->pGroup ){
    wcBufFree(&pSh->pGroup->id);
    wcBufFree(&pSh->pGroup->part);
    wcBufFree(&pSh->pGroup->queries);
    wcBufFree(&pSh->pGroup->route.texts);
    keysFree(&pSh->pGroup->keys);
    sqlite3_free(pSh->pGroup);
  }
}

/* The group a write of table p to key aKey[0..nKey) belongs to, into pId
** (see CqGroup), and its CQL table and partition into pPart. */
static int groupOf(CqTable *p, const unsigned char *aKey, int64_t nKey,
                   WcBuf *pId, WcBuf *pPart){
  int64_t nPart = cqPartitionBytes(p, aKey, nKey);
  wcBufAppend(pId, p->zName, cqWidecolNameLen(p) + 1);
  wcBufAppend(pPart, p->zCqlName, (int64_t)strlen(p->zCqlName) + 1);
  wcBufAppend(pPart, aKey, nPart);
  if( p->pS->nIndex == 0 ){
    wcBufAppend(pId, aKey, nPart);
  }else if( p->iIndex < 0 ){
    wcBufAppend(pId, aKey, nKey);
  }else{
    /* An entry: the row key after the index key. */
    WcValue *aVal = sqlite3_malloc64(sizeof(WcValue) * CQ_NCOL(p->pS));
    WcBuf dec;
    int rc;
    memset(&dec, 0, sizeof(dec));
    if( aVal == 0 ) return SQLITE_NOMEM;
    rc = cqDecodeKey(p, aKey, nKey, aVal, &dec);
    if( rc == WC_OK ){
      const WcValue *pRow = &aVal[CQ_ROWKEY(p->pS)];
      wcBufAppend(pId, pRow->a, pRow->n);
    }
    wcBufFree(&dec);
    sqlite3_free(aVal);
    if( rc == WC_NOMEM ) return SQLITE_NOMEM;
  }
  return pId->bOom || pPart->bOom ? SQLITE_NOMEM : SQLITE_OK;
}

static int bufEqual(const WcBuf *pA, const WcBuf *pB){
  return wcBufCompare(pA, pB) == 0;
}

/* Adds a write, statement zCql with aVal[0..n), to its group (pKey the
** key it writes, hKey that key's hash), sending the group before it where
** the write cannot join it. */
static int groupAdd(CqTable *p, const char *zCql, const CqValue *aVal, int n,
                    sqlite3_value *pKey, uint32_t hKey){
  CqShared *pSh = p->pShared;
  CqGroup *pG = pSh->pGroup;
  const unsigned char *aKey = sqlite3_value_blob(pKey);
  int64_t nKey = sqlite3_value_bytes(pKey), nBytes = 64;
  WcBuf id, part;
  CqConn *pConn = 0;
  CqStmt *pStmt = 0;
  const CqStmt *pKnown;
  CqLink link;
  int64_t iToken = 0;
  int i, rc, bToken;
  if( pG == 0 ){
    pG = pSh->pGroup = sqlite3_malloc(sizeof(CqGroup));
    if( pG == 0 ) return SQLITE_NOMEM;
    memset(pG, 0, sizeof(*pG));
  }
  memset(&id, 0, sizeof(id));
  memset(&part, 0, sizeof(part));
  for(i = 0; i < n; i++) nBytes += 4 + (aVal[i].n > 0 ? aVal[i].n : 0);
  rc = groupOf(p, aKey ? aKey : (const unsigned char*)"", nKey, &id, &part);
  if( rc == SQLITE_OK && pG->nQuery > 0
   && (!bufEqual(&id, &pG->id) || pG->nQuery >= CQ_GROUP_MAX
       || pG->queries.n + nBytes > CQ_GROUP_BYTES
       || keysHas(&pG->keys, p, hKey)) ){
    groupSend(pSh);
    rc = report(pSh, p);
  }
  if( rc == SQLITE_OK && keyInFlight(pSh, p, hKey) ) rc = cqWritesDone(p);
  /* A statement prepared on any node has the id it has on all of them
  ** (Cassandra's: of its text and keyspace); the node the group goes to
  ** prepares its statements when it is sent (routeConnect()). */
  pKnown = cqKnownStatement(p, zCql);
  if( rc == SQLITE_OK && pKnown == 0 ){
    rc = cqReady(p, zCql, aVal, n, &link, &pConn, &pStmt);
    pKnown = pStmt;
  }
  if( rc == SQLITE_OK ){
    bToken = cqTokenOf(p, zCql, aVal, n, &iToken);
    if( pG->route.nCql >= CQ_ROUTE_MAX ){
      groupSend(pSh);
      rc = report(pSh, p);
    }
  }
  if( rc == SQLITE_OK ){
    routeAdd(&pG->route, zCql, bToken, iToken);
    if( pG->nQuery == 0 ){
      wcBufAppend(&pG->id, id.a, id.n);
      wcBufAppend(&pG->part, part.a, part.n);
      pG->pTable = p;
    }else if( !bufEqual(&part, &pG->part) ){
      pG->bLogged = 1;
    }
    cqBatchAdd(&pG->queries, pKnown, aVal, n);
    pG->nQuery++;
    rc = keysAdd(&pG->keys, p, hKey);
  }
  wcBufFree(&id);
  wcBufFree(&part);
  return rc;
}

/* A write's condition: CQ_CAS_*, the _stamp it is conditional on (n 0:
** none) and the one it writes (n 0: a DELETE's). */
typedef struct CqCas CqCas;
struct CqCas {
  int eCas;
  const unsigned char *aOld, *aNew;
  int nOld, nNew;
};

/* Sends lightweight transaction zCql with aVal[0..n) of table p's row
** pKey (hash hKey) alone: a conditional BATCH of one statement, so that
** it can be sent again as it is (recoverWrite()). */
static int sendCas(CqTable *p, const char *zCql, const CqValue *aVal, int n,
                   const CqCas *pCas, sqlite3_value *pKey, uint32_t hKey){
  CqShared *pSh = p->pShared;
  CqStmt *pStmt = 0;
  CqConn *pConn = 0;
  CqLink link;
  int64_t iToken = 0;
  int rc;
  /* After the writes before it; a row's after its entries are answered,
  ** so that a row never names an entry that failed. */
  groupSend(pSh);
  rc = p->pS->nIndex > 0 ? cqWritesDone(p) : SQLITE_OK;
  if( rc == SQLITE_OK ) rc = windowSlot(pSh, p);
  if( rc == SQLITE_OK && keyInFlight(pSh, p, hKey) ) rc = cqWritesDone(p);
  if( rc == SQLITE_OK ) rc = cqReady(p, zCql, aVal, n, &link, &pConn, &pStmt);
  if( rc == SQLITE_OK ){
    CqWrite *pW = &pSh->aWrite[(pSh->iFirst + pSh->nWrite) % CQ_WINDOW];
    routeClear(&pW->route);
    routeAdd(&pW->route, zCql, cqTokenOf(p, zCql, aVal, n, &iToken), iToken);
    pW->eCas = pCas->eCas;
    pW->nStmt = 1;
    pW->bLogged = 0;
    pW->pTable = p;
    pW->keys.n = 0;
    rc = keysAdd(&pW->keys, p, hKey);
    wcBufClear(&pW->body);
    cqBatchAdd(&pW->body, pStmt, aVal, n);
    wcBufClear(&pW->key);
    wcBufAppend(&pW->key, sqlite3_value_blob(pKey), sqlite3_value_bytes(pKey));
    wcBufClear(&pW->oldStamp);
    wcBufAppend(&pW->oldStamp, pCas->aOld, pCas->nOld);
    wcBufClear(&pW->newStamp);
    wcBufAppend(&pW->newStamp, pCas->aNew, pCas->nNew);
    if( pW->body.bOom || pW->key.bOom || pW->oldStamp.bOom
     || pW->newStamp.bOom || pW->route.texts.bOom ){
      rc = SQLITE_NOMEM;
    }
    if( rc == SQLITE_OK ) rc = sendWrite(pSh, pW, pConn, &link);
  }
  return rc;
}

/* Runs zCql with values buf/an[0..n), the write of key pKey: in flight,
** or (bNow) waited for.  pCas: its condition. */
static int runWrite(CqTable *p, const char *zCql, WcBuf *pBuf, const int *an,
                    int n, int bNow, const CqCas *pCas, sqlite3_value *pKey){
  const unsigned char *aKey = sqlite3_value_blob(pKey);
  int nKey = sqlite3_value_bytes(pKey);
  uint32_t hKey = wcBytesHash(aKey ? aKey : (const unsigned char*)"", nKey);
  CqValue *aVal = sqlite3_malloc64(sizeof(CqValue) * ((size_t)n + 1));
  int64_t iOff = 0;
  int i, rc = SQLITE_OK;
  if( aVal == 0 || pBuf->bOom ){
    sqlite3_free(aVal);
    return SQLITE_NOMEM;
  }
  for(i = 0; i < n; i++){
    aVal[i].a = pBuf->a + iOff;
    aVal[i].n = an[i];
    if( an[i] > 0 ) iOff += an[i];
  }
  /* A write answered at once goes after the writes before it, which it
  ** may depend on. */
  if( bNow ) rc = cqWritesDone(p);
  if( rc == SQLITE_OK ){
    rc = pCas->eCas == CQ_CAS_NONE ? groupAdd(p, zCql, aVal, n, pKey, hKey)
                                   : sendCas(p, zCql, aVal, n, pCas, pKey, hKey);
  }
  if( rc == SQLITE_OK && bNow ) rc = cqWritesDone(p);
  sqlite3_free(aVal);
  return rc;
}

/* Cassandra's largest TTL, 20 years, and a table's default
** gc_grace_seconds, 10 days. */
#define CQ_MAX_TTL 630720000
#define CQ_GC_GRACE 864000

/* USING TTL's value for a version of rowtime pRowtime (microseconds) on
** a table whose versions live nTtl seconds: the seconds left, and one
** more, so that Cassandra drops the row only after widecol stops showing
** it (widecol hides a version by its rowtime; Cassandra's TTL is counted
** from the write).  Where Cassandra cannot keep it that long, as long as
** it can: widecol still hides the version when its time comes. */
static void putTtl(CqTable *p, sqlite3_value *pRowtime, WcBuf *pBuf, int *pn){
  int64_t iNow = (int64_t)time(0);
  int64_t iLeft = sqlite3_value_int64(pRowtime) / 1000000 + p->nTtl - iNow + 1;
  /* Cassandra refuses a TTL past 20 years, and one whose expiry and the
  ** table's gc_grace_seconds (10 days, as widecol makes it) come past
  ** 2038-01-19 (a 32-bit second count, CASSANDRA-14092); a day more for
  ** the clocks' difference. */
  int64_t iEnd = (int64_t)INT32_MAX - 1 - CQ_GC_GRACE - 86400 - iNow;
  int64_t iMax = iEnd < CQ_MAX_TTL ? iEnd : CQ_MAX_TTL;
  if( iLeft > iMax ) iLeft = iMax;
  if( iLeft < 1 ) iLeft = 1;
  cqPutInt(pBuf, (int32_t)iLeft);
  *pn = 4;
}

/* True if the last read of one key was of pKey (CqTable.seen*). */
static int seenIs(const CqTable *p, sqlite3_value *pKey){
  int n = sqlite3_value_bytes(pKey);
  return p->bSeen && p->seenKey.n == n
      && (n == 0 || memcmp(p->seenKey.a, sqlite3_value_blob(pKey), n) == 0);
}

/* The key's columns of key pKey as values of a statement, into buf and
** an[] (an entry's _stamp last: the stamp its write was read with, where
** nKey asks for it): SQLITE_OK, or SQLITE_NOTFOUND for a key no row can
** have. */
static int keyArgs(CqTable *p, sqlite3_value *pKey, int nKey, WcValue *aVal,
                   WcBuf *pBuf, int *an){
  WcBuf dec;
  int i, rc;
  memset(&dec, 0, sizeof(dec));
  rc = sqlite3_value_type(pKey) == SQLITE_BLOB
     ? cqDecodeKey(p, sqlite3_value_blob(pKey), sqlite3_value_bytes(pKey),
                   aVal, &dec)
     : WC_NOFIT;
  if( rc == WC_OK ){
    for(i = 0; i < nKey; i++){
      if( p->aiKey[i] == CQ_STAMP(p->pS) ){
        wcAssert( seenIs(p, pKey) && p->bSeenStamp );
        wcBufAppend(pBuf, p->seenStamp.a, p->seenStamp.n);
        an[i] = (int)p->seenStamp.n;
      }else{
        cqPutKeyValue(p, p->aiKey[i], &aVal[p->aiKey[i]], pBuf, &an[i]);
      }
    }
  }
  wcBufFree(&dec);
  if( rc == WC_NOMEM || pBuf->bOom ) return SQLITE_NOMEM;
  return rc == WC_OK ? SQLITE_OK : SQLITE_NOTFOUND;
}

/* What a write of row pKey of the row table is conditional on, as the
** CQL that ends it, into pBuf/pn its value, and into *pCas: the _stamp
** its read found (IF "_stamp" = ?; a row written without one, by another
** client: IF EXISTS), or nothing (a row not read).  The read is used up
** (pCas->aOld points at it until the next read). */
static const char *rowCondition(CqTable *p, sqlite3_value *pKey, WcBuf *pBuf,
                                int *pn, CqCas *pCas){
  const char *zIf = "";
  *pn = 0;
  if( p->iIndex < 0 && seenIs(p, pKey) && p->bSeenRow ){
    pCas->eCas = CQ_CAS_ROW;
    if( p->bSeenStamp ){
      zIf = " IF \"" WC_STAMP_COLUMN "\" = ?";
      wcBufAppend(pBuf, p->seenStamp.a, p->seenStamp.n);
      *pn = (int)p->seenStamp.n;
      pCas->aOld = p->seenStamp.a;
      pCas->nOld = (int)p->seenStamp.n;
    }else{
      zIf = " IF EXISTS";
    }
  }
  p->bSeen = 0;
  return zIf;
}

/* The _stamp an INSERT or UPDATE of the row table writes, into *pCas. */
static void newStamp(CqTable *p, sqlite3_value **apCol, CqCas *pCas){
  sqlite3_value *pStamp = apCol[p->aiCqlPos[CQ_STAMP(p->pS)]];
  if( sqlite3_value_type(pStamp) == SQLITE_BLOB ){
    pCas->aNew = sqlite3_value_blob(pStamp);
    pCas->nNew = sqlite3_value_bytes(pStamp);
  }
}

/* DELETE of a row, conditional on it as read; of an entry, the one its
** write put (its _stamp given), or every write's where none is. */
static int writeDelete(CqTable *p, sqlite3_value *pKey, WcValue *aVal,
                       int bNow){
  WcBuf buf;
  int *an = sqlite3_malloc64(sizeof(int) * ((size_t)p->nKey + 1)), rc;
  int bEntry = p->iIndex >= 0 && seenIs(p, pKey) && p->bSeenStamp;
  int nKey = bEntry ? p->nKey : p->nKeyRead, nArg = nKey;
  char *zCql = 0;
  CqCas cas;
  memset(&buf, 0, sizeof(buf));
  memset(&cas, 0, sizeof(cas));
  rc = an ? keyArgs(p, pKey, nKey, aVal, &buf, an) : SQLITE_NOMEM;
  if( rc == SQLITE_OK ){
    const char *zIf = rowCondition(p, pKey, &buf, &an[nArg], &cas);
    if( zIf[0] ){
      nArg += an[nArg] > 0;
      /* Its entries go after its answer, only if it was applied. */
      bNow = bNow || p->pS->nIndex > 0;
    }
    zCql = sqlite3_mprintf("DELETE FROM %s WHERE %s%s", p->zCqlName,
                           bEntry ? p->zKeyWhere : p->zReadWhere, zIf);
    if( zCql == 0 ) rc = SQLITE_NOMEM;
  }
  p->bSeen = 0;
  if( rc == SQLITE_OK ){
    rc = runWrite(p, zCql, &buf, an, nArg, bNow, &cas, pKey);
  }
  if( rc == SQLITE_NOTFOUND ) rc = SQLITE_OK;
  wcBufFree(&buf);
  sqlite3_free(an);
  sqlite3_free(zCql);
  return rc;
}

/* INSERT: every column; IF NOT EXISTS unless bReplace.  pKey: the row
** key. */
static int writeInsert(CqTable *p, sqlite3_value *pKey,
                       sqlite3_value **apCol, int bReplace, int bNow){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int nCol = p->nCqlCol, i, rc = SQLITE_OK;
  int *an = sqlite3_malloc64(sizeof(int) * ((size_t)nCol + 2));
  WcBuf buf;
  CqCas cas;
  char *zCql;
  memset(&buf, 0, sizeof(buf));
  memset(&cas, 0, sizeof(cas));
  sqlite3_str_appendf(pStr, "INSERT INTO %s (%s) VALUES (", p->zCqlName,
                      p->zColumns);
  for(i = 0; i < nCol; i++) sqlite3_str_appendall(pStr, i ? ", ?" : "?");
  sqlite3_str_appendall(pStr, bReplace ? ")" : ") IF NOT EXISTS");
  if( p->nTtl > 0 ) sqlite3_str_appendall(pStr, " USING TTL ?");
  zCql = sqlite3_str_finish(pStr);
  if( zCql == 0 || an == 0 ) rc = SQLITE_NOMEM;
  for(i = 0; i < nCol && rc == SQLITE_OK; i++){
    rc = cqPutValue(p, p->aiCqlCol[i], apCol[i], &buf, &an[i]);
    /* A new row's NULL is a column never written: no tombstone, which
    ** reads would have to skip (INSERT OR REPLACE must clear it). */
    if( !bReplace && an[i] < 0 ) an[i] = CQ_UNSET;
  }
  if( rc == SQLITE_OK && p->nTtl > 0 ){
    putTtl(p, apCol[p->aiCqlPos[CQ_ROWTIME(p->pS)]], &buf, &an[nCol]);
  }
  if( rc == SQLITE_OK ){
    if( !bReplace ){
      cas.eCas = CQ_CAS_INSERT;
      newStamp(p, apCol, &cas);
    }
    rc = runWrite(p, zCql, &buf, an, nCol + (p->nTtl > 0), bNow, &cas, pKey);
  }
  wcBufFree(&buf);
  sqlite3_free(an);
  sqlite3_free(zCql);
  return rc;
}

/* UPDATE of one row: the columns outside the key (a key is never changed
** in place: the core deletes and inserts), conditional on the row as
** read. */
static int writeUpdate(CqTable *p, sqlite3_value *pKey, sqlite3_value **apCol,
                       WcValue *aVal, int bNow){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int nCol = p->nCqlCol, i, n = 0, rc;
  int *an = sqlite3_malloc64(sizeof(int) * ((size_t)nCol + p->nKey + 3));
  WcBuf buf;
  CqCas cas;
  char *zCql;
  memset(&buf, 0, sizeof(buf));
  memset(&cas, 0, sizeof(cas));
  sqlite3_str_appendf(pStr, "UPDATE %s%s SET ", p->zCqlName,
                      p->nTtl > 0 ? " USING TTL ?" : "");
  rc = an ? SQLITE_OK : SQLITE_NOMEM;
  if( rc == SQLITE_OK && p->nTtl > 0 ){
    putTtl(p, apCol[p->aiCqlPos[CQ_ROWTIME(p->pS)]], &buf, &an[n++]);
  }
  for(i = 0; i < nCol && rc == SQLITE_OK; i++){
    int iCol = p->aiCqlCol[i];
    if( p->abKey[iCol] ) continue;
    sqlite3_str_appendf(pStr, "%s\"%w\" = ?", n > (p->nTtl > 0) ? ", " : "",
                        cqColumnName(p, iCol));
    rc = cqPutValue(p, iCol, apCol[i], &buf, &an[n++]);
  }
  sqlite3_str_appendf(pStr, " WHERE %s", p->zKeyWhere);
  if( rc == SQLITE_OK && n > (p->nTtl > 0) ){
    rc = keyArgs(p, pKey, p->nKey, aVal, &buf, an + n);
    n += p->nKey;
  }
  if( rc == SQLITE_OK ){
    const char *zIf = rowCondition(p, pKey, &buf, &an[n], &cas);
    if( zIf[0] ){
      sqlite3_str_appendall(pStr, zIf);
      newStamp(p, apCol, &cas);
      n += an[n] > 0;
      /* Its old entries go after its answer, only if it was applied. */
      bNow = bNow || p->pS->nIndex > 0;
    }
  }
  p->bSeen = 0;
  zCql = sqlite3_str_finish(pStr);
  if( rc == SQLITE_OK && zCql == 0 ) rc = SQLITE_NOMEM;
  if( rc == SQLITE_OK && n > (p->nTtl > 0) + p->nKey ){
    rc = runWrite(p, zCql, &buf, an, n, bNow, &cas, pKey);
  }
  if( rc == SQLITE_NOTFOUND ) rc = SQLITE_OK;
  wcBufFree(&buf);
  sqlite3_free(an);
  sqlite3_free(zCql);
  return rc;
}

int cqUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
             sqlite3_int64 *piRowid){
  CqTable *p = (CqTable*)pVtab;
  WcValue *aVal = sqlite3_malloc64(sizeof(WcValue) * CQ_NCOL(p->pS));
  int eConflict = sqlite3_vtab_on_conflict(p->pShared->db);
  /* OR FAIL: the core's INSERT_NOW and UPDATE_NOW, answered at once. */
  int bNow = eConflict == SQLITE_FAIL, rc;
  (void)piRowid;
  if( aVal == 0 ) return SQLITE_NOMEM;
  memset(aVal, 0, sizeof(WcValue) * CQ_NCOL(p->pS));
  /* argv[2] the key, then the CQL table's columns (an index entry's
  ** rowkey first). */
  if( argc == 1 ){
    rc = writeDelete(p, argv[0], aVal, bNow);
  }else if( sqlite3_value_type(argv[0]) == SQLITE_NULL ){
    /* An index entry's key ends with its row's: an entry written again is
    ** the same entry, an upsert (no lightweight transaction), which can
    ** go in its row's LOGGED BATCH. */
    rc = writeInsert(p, argv[2], &argv[3],
                     eConflict == SQLITE_REPLACE || p->iIndex >= 0, bNow);
  }else{
    rc = writeUpdate(p, argv[0], &argv[3], aVal, bNow);
  }
  sqlite3_free(aVal);
  return rc;
}

/* The transaction's end: its writes answered, the first failure its;
** then its DDL (CqShared.ddl, which cq_table.c fills): the DROPs at
** COMMIT, the CREATEs undone at ROLLBACK. */
int cqBegin(sqlite3_vtab *pVtab){
  CqShared *pSh = ((CqTable*)pVtab)->pShared;
  /* Each table of the transaction begins it; the first says it began. */
  if( !pSh->bOpen ){
    pSh->bOpen = 1;
    pSh->nSavepoint = 0;
  }
  return SQLITE_OK;
}

int cqSync(sqlite3_vtab *pVtab){
  CqTable *p = (CqTable*)pVtab;
  int rc = cqWritesDone(p);
  if( rc == SQLITE_OK && p->pShared->ddl.pFirst ){
    char *zErr = 0;
    rc = scDdlCommit(&p->pShared->ddl, &zErr);
    if( rc != SQLITE_OK ){
      /* The message names the dropped table already. */
      sqlite3_free(p->base.zErrMsg);
      p->base.zErrMsg = zErr ? zErr : sqlite3_mprintf("%s", sqlite3_errstr(rc));
    }
  }
  return rc;
}

int cqCommit(sqlite3_vtab *pVtab){
  CqShared *pSh = ((CqTable*)pVtab)->pShared;
  scDdlUndo(&pSh->ddl, 0, 0);
  pSh->bOpen = 0;
  return SQLITE_OK;
}

/* Nothing sent can be taken back: the writes in flight are let finish. */
int cqRollback(sqlite3_vtab *pVtab){
  CqShared *pSh = ((CqTable*)pVtab)->pShared;
  cqWritesForget(pSh);
  scDdlUndo(&pSh->ddl, 0, 1);
  pSh->bOpen = 0;
  return SQLITE_OK;
}

/* Savepoints: the DDL after one is undone by a ROLLBACK TO it (writes are
** not: they are Cassandra's once sent). */
int cqSavepoint(sqlite3_vtab *pVtab, int iSavepoint){
  CqTable *p = (CqTable*)pVtab;
  CqShared *pSh = p->pShared;
  wcAssert( iSavepoint >= 0 && pSh->nSavepoint <= CQ_MAX_SAVEPOINT );
  if( iSavepoint >= CQ_MAX_SAVEPOINT ){
    return cqTableError(p, SQLITE_ERROR, "more than %d nested savepoints",
                        CQ_MAX_SAVEPOINT);
  }
  /* The first table to open a savepoint says where it began. */
  while( pSh->nSavepoint <= iSavepoint ){
    pSh->aiSavepoint[pSh->nSavepoint++] = pSh->iDdlSeq;
  }
  return SQLITE_OK;
}

int cqRelease(sqlite3_vtab *pVtab, int iSavepoint){
  CqShared *pSh = ((CqTable*)pVtab)->pShared;
  if( iSavepoint < pSh->nSavepoint ) pSh->nSavepoint = iSavepoint;
  return SQLITE_OK;
}

int cqRollbackTo(sqlite3_vtab *pVtab, int iSavepoint){
  CqShared *pSh = ((CqTable*)pVtab)->pShared;
  wcAssert( iSavepoint >= 0 && pSh->nSavepoint <= CQ_MAX_SAVEPOINT );
  if( iSavepoint < pSh->nSavepoint ){
    scDdlUndo(&pSh->ddl, pSh->aiSavepoint[iSavepoint], 1);
  }
  return SQLITE_OK;
}
