/*
** wc_decode.h: a row key read back into the values of its fields, the
** codec's inverse (wc_decode.c).
**
** widecol keeps every column of a row, so it never needs this for its own
** tables; a table it did not write (STORAGE ... EXISTING) holds only the
** key and the cells, so the key's fields are read from the key itself.  A
** key is a key of the design only if its fields, written again by the
** codec, make exactly that key: anything else (another layout, a value
** the design cannot hold, a salt that is not the hash of its fields) does
** not decode, and the caller says so rather than guessing.
*/
#ifndef WIDECOL_WC_DECODE_H
#define WIDECOL_WC_DECODE_H

#include "key/wc_codec.h"
#include "key/rk_hash.h"

/* Decodes aKey[0..nKey) under design pS: aOut[iCol] for every column an
** element of the key is (the other entries are left as they are), their
** bytes held in *pBuf (aOut points into it until pBuf changes).  Returns
** WC_OK, WC_NOFIT if the key is not a key of the design (*pzErr, if not
** NULL, says why, from sqlite3_mprintf()), or WC_NOMEM / WC_ERROR. */
int wcDecodeKey(const WcSchema *pS, RkHasher *pHasher,
                const unsigned char *aKey, int64_t nKey, WcValue *aOut,
                WcBuf *pBuf, char **pzErr);

/* The first elements of a key, or of a scan bound that may stop inside an
** element: up to nElem elements (at most the design's), as many as
** aKey[0..nKey) holds whole, in
** *pnElem, the bytes they take in *pnUsed, their columns' values in aOut
** as wcDecodeKey() gives them.  Not checked by writing them again: the
** caller compares keys.  WC_OK, WC_NOFIT (an element's bytes are no value
** of its column) or WC_NOMEM. */
int wcDecodePrefix(const WcSchema *pS, const unsigned char *aKey,
                   int64_t nKey, int nElem, WcValue *aOut, WcBuf *pBuf,
                   int *pnElem, int64_t *pnUsed);

#endif /* WIDECOL_WC_DECODE_H */
