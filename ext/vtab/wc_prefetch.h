/*
** wc_prefetch.h: the rows a statement's writes replace, read ahead in key
** order (wc_prefetch.c), for the writer (wc_write.c).
**
** A write that must know the row it replaces (its index entries go, its
** version is stamped after it) reads it by its key: on a store whose
** reads are calls, a call a row.  A load or an UPDATE writes keys in
** order, so the prefetcher reads the rows from the key asked on, many in
** one call (WC_STMT_READ_AHEAD), and answers the keys after it from what
** it read, an empty table or the end of one at once.  What it answers is
** the store's state when it read it: each key the statement writes since
** is dirty, and read again by the caller (a read sends the writes waiting
** first, so it sees them).
**
** Owned by the writer (WcWriter); it holds copies of the rows it read.
*/
#ifndef WIDECOL_WC_PREFETCH_H
#define WIDECOL_WC_PREFETCH_H

#include "util/wc_api.h"
#include "store/wc_store.h"

typedef struct WcPrefetch WcPrefetch;

WcPrefetch *wcPrefetchNew(void);
void wcPrefetchFree(WcPrefetch *p);

/* Forgets what it read: a new statement (another client may have written
** since). */
void wcPrefetchReset(WcPrefetch *p);

/* The row of key aKey[0..nKey) as WC_STMT_READ returns it (its columns,
** in that statement's order, in *papRow; *papRow NULL if there is no such
** row), from what was read ahead, reading ahead from aKey if that does
** not tell.  *pbKnown is 0 if the caller must read the row itself (the
** statement wrote the key since it was read).  SQLITE_OK or the error of
** the read.  *papRow stays valid until the next call. */
int wcPrefetchFind(WcPrefetch *p, WcStore *pStore, const unsigned char *aKey,
                   int64_t nKey, sqlite3_value ***papRow, int *pbKnown);

/* The statement writes (or deletes) key aKey: what was read of it no
** longer holds. */
int wcPrefetchDirty(WcPrefetch *p, const unsigned char *aKey, int64_t nKey);

#endif /* WIDECOL_WC_PREFETCH_H */
