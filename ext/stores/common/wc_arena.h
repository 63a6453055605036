/*
** wc_arena.h: an arena, memory handed out in pieces and freed at once:
** the writes of one batch (stores/cells/), a request's messages and a
** reply's values (the transports).  Its out-of-memory flag is sticky, as
** WcBuf's is, so that a caller may build a whole structure and check
** once.
*/
#ifndef WIDECOL_WC_ARENA_H
#define WIDECOL_WC_ARENA_H

#include <stddef.h>

typedef struct WcBlock WcBlock;
typedef struct WcArena WcArena;
struct WcArena {
  WcBlock *pHead;
  int bOom;             /* An allocation failed since the last free */
};

/* n bytes, zeroed, 16-byte aligned; NULL (and bOom set) on OOM. */
void *wcArenaAlloc(WcArena *p, size_t n);
/* A copy of a[0..n) (a valid pointer where n is 0); NULL on OOM. */
void *wcArenaCopy(WcArena *p, const void *a, size_t n);
/* Frees every piece, and clears bOom; the arena may be used again. */
void wcArenaFree(WcArena *p);

#endif /* WIDECOL_WC_ARENA_H */
