/*
** wc_anatomy.h: a stored key taken apart, for widecol_report's key
** anatomy (wc_anatomy.c): where each element's bytes are, and the SQL a
** user would write to make them with the rk_* functions.
*/
#ifndef WIDECOL_WC_ANATOMY_H
#define WIDECOL_WC_ANATOMY_H

#include "util/wc_api.h"
#include "key/wc_schema.h"

/* The SQL expression over the table's columns whose value has the bytes
** element iElem of key pS writes in TEXT encoding (rk_pad, rk_desc,
** rk_reverse, rk_salt, rk_bucket, rk_token), delimiter not included.
** NULL in BINARY encoding, which no rk_* function writes, and on OOM
** (*pbOom set).  From sqlite3_mprintf(). */
char *wcElementSql(const WcSchema *pS, int iElem, int *pbOom);

/* The SQL of a RANDOM(n) suffix: a number below n in its digits, drawn
** at write time.  From sqlite3_mprintf(). */
char *wcRandomSql(const WcSchema *pS);

/* A key's parts: part i is aPart[i].n bytes from the previous part's
** end, of kind aPart[i].eKind. */
#define WC_PART_ELEMENT   1   /* Element iElem's value */
#define WC_PART_DELIMITER 2   /* The delimiter after element iElem */
#define WC_PART_RANDOM    3   /* RANDOM(n)'s digits */
#define WC_PART_REST      4   /* Bytes no element of the design reads */
typedef struct WcKeyPart WcKeyPart;
struct WcKeyPart {
  int eKind;
  int iElem;
  int64_t n;
};

/* Splits aKey[0..nKey), a stored key of pS, into at most nMax parts in
** aPart; returns how many. */
int wcKeyParts(const WcSchema *pS, const unsigned char *aKey, int64_t nKey,
               WcKeyPart *aPart, int nMax);

#endif /* WIDECOL_WC_ANATOMY_H */
