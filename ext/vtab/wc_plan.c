/*
** wc_plan.c: xBestIndex for widecol tables.
**
** Constraints on the leading elements of the row key become byte ranges,
** the way an HBase scan has a start and a stop row: '=', IS and IN on
** leading fields fix a prefix, then one range (<, <=, >, >=, BETWEEN,
** LIKE/GLOB 'prefix%') narrows the next field.  rowkey itself can be
** bounded directly.  A constraint is marked omitted only when the byte
** range enforces it exactly for every value it could be compared with;
** otherwise SQLite checks it again on each row, so a result never differs
** from an ordinary table's.  The plan reaches xFilter in idxStr, after the
** words EXPLAIN QUERY PLAN shows (see wcBestIndex below).
**
** On a versioned table, versions = n and asof = t are parameters of the
** read, passed to xFilter whatever else the plan takes; an index is read
** for them only if its key is made of row-key fields, which every version
** of a row shares (the index holds the latest version only).
*/
#include "vtab/wc_range.h"
#include "store/wc_contract.h"
#include "key/rk_bytes.h"
#include "util/wc_ask.h"

#include <math.h>
#include <string.h>

/* The usable constraints on one column, or on rowkey. */
typedef struct ColCons ColCons;
struct ColCons {
  int iEq;              /* A '=' or IS constraint (one that is not IN
                        ** preferred), or -1 */
  int bEqIn;            /* iEq is an IN */
  int bEqExact;         /* The row range enforces iEq exactly */
  int bEqAssumed;       /* iEq is a single '=' on a TEXT field whose value
                        ** is not known yet: it narrows exactly unless a
                        ** number arrives (see WcPlan.nSort) */
  int aiLo[4], nLo;     /* '>' and '>=' constraints */
  int aiHi[4], nHi;     /* '<' and '<=' constraints */
  int iLike;            /* LIKE or GLOB, or -1 */
  const char *zColl;    /* A non-BINARY collation that made a constraint
                        ** unusable, or NULL */
};

typedef struct Planner Planner;
struct Planner {
  WcVtab *pTab;
  int iPath;            /* The table scanned: 0 rows, i > 0 index i - 1 */
  const WcSchema *pS;   /* Its key */
  sqlite3_index_info *pInfo;
  ColCons *aCons;       /* One per column, then rowkey */
  WcPlan plan;
  int nArg;
  int aiArg[WC_MAX_TERM];  /* Constraint index of each plan term */
  sqlite3_str *pNote;   /* FILTER notes for EXPLAIN */
  double rSkipSeek;     /* What a skip scan's seeks cost, in rows (its
                        ** calls apart) */
  int bSkipProbe;       /* It probes for each prefix it visits */
  double nSkipPrefix;   /* The prefixes it visits, estimated */
  double nSkipOut;      /* The rows it returns, estimated */
  int bSkipEnum;        /* It is expected to enumerate field values, */
  double nSkipValues;   /* this many */
  int iLimit;           /* The LIMIT constraint, or -1 */
  double rOut;          /* Rows the plan is expected to return */
  int bEqAssumed;       /* Some column's '=' is assumed exact */
  int bInexact;         /* An '=' used so far might not narrow at run time
                        ** (a TEXT field compared with a number), so later
                        ** terms must not be omitted */
  int bVersionRead;     /* versions = n or asof = t: rows are versions, a
                        ** key's newest first */
  /* Calls, on a store that costs them (WcStoreCaps.rCallRows): */
  double rCall;         /* What one costs, in rows */
  double nCalls;        /* The plan makes about this many (a skip scan's,
                        ** an index's, EXPLAIN tells), */
  double nSkipCalls;    /* of which its skip scan's, */
  double nNoSkipCalls;  /* or one not planned would have (0: none was
                        ** turned down for its calls) */
  int nNoSkipMany;      /* A skip scan over this many leading elements was
                        ** turned down: they take more prefixes than the
                        ** store's nPrefixProbes (0: none) */
  int mReplaced;        /* WC_REPLACED_LIKE, _GLOB: the application's own
                        ** like() or glob() is called, not SQLite's */
  int rc;               /* A read planning needed failed */
};

#define WC_REPLACED_LIKE 0x01
#define WC_REPLACED_GLOB 0x02

/* True if the right-hand side of constraint i is a TEXT literal: only
** then is a TEXT field compared with it byte for byte whatever its
** affinity (a numeric operand would impose numeric affinity). */
static int rhsIsText(sqlite3_index_info *pInfo, int i){
  sqlite3_value *pVal = 0;
  return sqlite3_vtab_rhs_value(pInfo, i, &pVal) == SQLITE_OK && pVal
      && sqlite3_value_type(pVal) == SQLITE_TEXT;
}

/* True if a constraint on column iCol compares by bytes. */
static int exactFor(Planner *p, int iCol, int i){
  return p->pS->aCol[iCol].cAff != WC_AFF_TEXT
      || rhsIsText(p->pInfo, i);
}

/* Sets the '=' of column iCol exact, or assumed exact when its value comes
** later: from a parameter (typically TEXT for a TEXT field) or from another
** table. */
static void classifyEq(Planner *p, int iCol){
  ColCons *pCons = &p->aCons[iCol];
  sqlite3_value *pVal = 0;
  pCons->bEqExact = exactFor(p, iCol, pCons->iEq);
  pCons->bEqAssumed = !pCons->bEqExact && !pCons->bEqIn
      && sqlite3_vtab_rhs_value(p->pInfo, pCons->iEq, &pVal) != SQLITE_OK;
  p->bEqAssumed |= pCons->bEqAssumed;
}

static void addNote(Planner *p, int iCol, const char *zWhy){
  sqlite3_str_appendf(p->pNote, "; FILTER %s (%s)",
                      p->pS->aCol[iCol].zName, zWhy);
}

static void collectConstraints(Planner *p, int *piLimit, int *piOffset){
  sqlite3_index_info *pInfo = p->pInfo;
  const WcSchema *pS = p->pS;
  int i;
  for(i = 0; i <= pS->nCol; i++){
    p->aCons[i].iEq = -1;
    p->aCons[i].iLike = -1;
  }
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    ColCons *pCons;
    int iCol = pC->iColumn;
    if( !pC->usable ) continue;
    if( pC->op == SQLITE_INDEX_CONSTRAINT_LIMIT ){
      *piLimit = i;
      continue;
    }
    if( pC->op == SQLITE_INDEX_CONSTRAINT_OFFSET ){
      *piOffset = i;
      continue;
    }
    if( iCol < 0 || iCol > pS->nCol ) continue;
    if( iCol < pS->nCol && !pS->aCol[iCol].bKey ) continue;
    /* An index key holds the row key only as its tail. */
    if( iCol == pS->nCol && pS->bBorrowed ) continue;
    pCons = &p->aCons[iCol];
    /* A collation other than BINARY orders text otherwise than bytes.
    ** It also marks the range SQLite derives from a LIKE on any column
    ** (COLLATE NOCASE), which a number that reads as matching text
    ** ('Inf' LIKE 'i%' for a REAL) does not satisfy. */
    if( iCol < pS->nCol ){
      const char *zColl = sqlite3_vtab_collation(pInfo, i);
      if( zColl && sqlite3_stricmp(zColl, "BINARY") != 0 ){
        pCons->zColl = zColl;
        continue;
      }
    }
    switch( pC->op ){
      case SQLITE_INDEX_CONSTRAINT_EQ:
      case SQLITE_INDEX_CONSTRAINT_IS: {
        int bIn = sqlite3_vtab_in(pInfo, i, -1);
        if( pCons->iEq < 0 || (pCons->bEqIn && !bIn) ){
          pCons->iEq = i;
          pCons->bEqIn = bIn;
        }
        break;
      }
      case SQLITE_INDEX_CONSTRAINT_GT:
      case SQLITE_INDEX_CONSTRAINT_GE:
        if( pCons->nLo < 4 ) pCons->aiLo[pCons->nLo++] = i;
        break;
      case SQLITE_INDEX_CONSTRAINT_LT:
      case SQLITE_INDEX_CONSTRAINT_LE:
        if( pCons->nHi < 4 ) pCons->aiHi[pCons->nHi++] = i;
        break;
      case SQLITE_INDEX_CONSTRAINT_LIKE:
      case SQLITE_INDEX_CONSTRAINT_GLOB: {
        int bLike = pC->op == SQLITE_INDEX_CONSTRAINT_LIKE;
        if( p->mReplaced & (bLike ? WC_REPLACED_LIKE : WC_REPLACED_GLOB) ){
          /* Its matches need not share the pattern's prefix. */
          if( iCol < pS->nCol ){
            addNote(p, iCol, bLike ? "like() replaced by the application or "
                                     "PRAGMA case_sensitive_like"
                                   : "glob() replaced by the application");
          }
        }else if( iCol < pS->nCol && pS->aCol[iCol].cAff == WC_AFF_TEXT
               && pCons->iLike < 0 ){
          pCons->iLike = i;
        }
        break;
      }
      case SQLITE_INDEX_CONSTRAINT_ISNULL:
        /* Key fields are never NULL. */
        p->plan.bEmpty = 1;
        pInfo->aConstraintUsage[i].omit = 1;
        break;
      case SQLITE_INDEX_CONSTRAINT_ISNOTNULL:
        pInfo->aConstraintUsage[i].omit = 1;
        break;
    }
  }
}

/* Passes constraint i to xFilter as the next argument.  A constraint
** used twice (a SALT's column that is also a key field) is passed once,
** omitted if either use enforces it.  Returns 1 if the plan is full. */
static int addTerm(Planner *p, int i, int eOp, int bOmit){
  sqlite3_index_info *pInfo = p->pInfo;
  int j;
  bOmit = bOmit && !p->bInexact;
  for(j = 0; j < p->nArg; j++){
    if( p->aiArg[j] == i ){
      pInfo->aConstraintUsage[i].omit |= (unsigned char)bOmit;
      return 0;
    }
  }
  if( p->nArg == WC_MAX_TERM ) return 1;
  p->aiArg[p->nArg] = i;
  p->plan.aTerm[p->nArg].iCol = pInfo->aConstraint[i].iColumn;
  p->plan.aTerm[p->nArg].eOp = eOp;
  p->nArg++;
  pInfo->aConstraintUsage[i].argvIndex = p->nArg;
  pInfo->aConstraintUsage[i].omit = (unsigned char)bOmit;
  return 0;
}

static int rangeOp(int op){
  switch( op ){
    case SQLITE_INDEX_CONSTRAINT_GT: return WC_TERM_GT;
    case SQLITE_INDEX_CONSTRAINT_GE: return WC_TERM_GE;
    case SQLITE_INDEX_CONSTRAINT_LT: return WC_TERM_LT;
    case SQLITE_INDEX_CONSTRAINT_LE: return WC_TERM_LE;
    case SQLITE_INDEX_CONSTRAINT_GLOB: return WC_TERM_GLOB;
    default: return WC_TERM_LIKE;
  }
}

/* Uses the '=' / IN constraint of column iCol.  bOmit: whether the row
** range alone enforces it. */
static int useEq(Planner *p, int iCol, int bOmit){
  ColCons *pCons = &p->aCons[iCol];
  int bText = p->pS->aCol[iCol].cAff == WC_AFF_TEXT;
  int eOp = WC_TERM_EQ, rc;
  if( pCons->bEqIn ){
    bOmit = bOmit && !bText;
    if( sqlite3_vtab_in(p->pInfo, pCons->iEq, 1) ) eOp = WC_TERM_IN;
  }
  rc = addTerm(p, pCons->iEq, eOp, bOmit);
  if( bText && (pCons->bEqIn || !pCons->bEqExact) ) p->bInexact = 1;
  return rc;
}

/* A column is fixed if every row the plan returns has the same value in
** it: a single '=' that compares exactly, or is assumed to. */
static int columnFixed(Planner *p, int iCol){
  const ColCons *pCons = &p->aCons[iCol];
  return pCons->iEq >= 0 && !pCons->bEqIn
      && (pCons->bEqExact || pCons->bEqAssumed);
}

static int elementFixed(Planner *p, int iElem){
  const WcElement *pElem = &p->pS->aElem[iElem];
  int i;
  if( iElem < p->plan.nSkip || iElem >= p->plan.nSkip + p->plan.nEqElem ){
    return 0;
  }
  if( pElem->eKind == WC_ELEM_SALT ){
    for(i = 0; i < pElem->nSaltCol; i++){
      if( !columnFixed(p, pElem->aiSaltCol[i]) ) return 0;
    }
    return 1;
  }
  return columnFixed(p, pElem->iCol);
}

/* Walks the key elements: '=' on leading ones, then a range on the next. */
static void planElements(Planner *p){
  const WcSchema *pS = p->pS;
  int iElem;
  p->plan.iRangeElem = -1;
  for(iElem = p->plan.nSkip; iElem < pS->nElem; iElem++){
    const WcElement *pElem = &pS->aElem[iElem];
    if( pElem->eKind == WC_ELEM_SALT ){
      int i;
      for(i = 0; i < pElem->nSaltCol; i++){
        if( p->aCons[pElem->aiSaltCol[i]].iEq < 0 ) return;
      }
      for(i = 0; i < pElem->nSaltCol; i++){
        int iCol = pElem->aiSaltCol[i];
        classifyEq(p, iCol);
        if( useEq(p, iCol, 0) ) return;
      }
    }else{
      ColCons *pCons = &p->aCons[pElem->iCol];
      if( pCons->iEq < 0 ){
        if( pElem->eKind == WC_ELEM_COLUMN && pElem->eOrder != WC_ORDER_NONE
         && (pCons->nLo || pCons->nHi || pCons->iLike >= 0) ){
          int i;
          p->plan.iRangeElem = iElem;
          for(i = 0; i < pCons->nLo + pCons->nHi; i++){
            int iCons = i < pCons->nLo ? pCons->aiLo[i]
                                       : pCons->aiHi[i - pCons->nLo];
            /* Byte ranges are exact in every order but NONE (a PREFIX
            ** element's are computed around its out-of-place prefixes,
            ** wc_range.c) for a value of the field's own type. */
            if( addTerm(p, iCons, rangeOp(p->pInfo->aConstraint[iCons].op),
                        exactFor(p, pElem->iCol, iCons)) ){
              return;
            }
          }
          if( pCons->iLike >= 0 ){
            addTerm(p, pCons->iLike,
                    rangeOp(p->pInfo->aConstraint[pCons->iLike].op), 0);
          }
        }
        return;
      }
      classifyEq(p, pElem->iCol);
      /* The element's own '=' is exact; a BUCKET's column is not. */
      if( useEq(p, pElem->iCol, pElem->eKind == WC_ELEM_COLUMN
                                && pCons->bEqExact) ){
        return;
      }
    }
    p->plan.nEqElem++;
  }
}

/*
** Skip scans.  When the leading elements are not fixed but a later one is
** constrained, the prefixes the leading elements take can be found in the
** data and each one scanned: two seeks per prefix (find it, then its
** range) instead of reading every row.
*/

/* A seek costs about as much as reading this many rows of a full scan,
** and computing a value's prefix (an MD5 for a SALT) and seeking to it
** this many (both measured on 300,000 rows, in memory and on disk). */
#define WC_SEEK_COST 10.0
#define WC_ENUM_COST 17.0

/* Fields are counted by the store, probing up to its nPrefixProbes
** distinct prefixes (wcStorePrefixCount()).  Past that a field has too
** many values to skip over. */

/* Every value of the skipped SALTs and BUCKETs is visited, computed, when
** there are at most this many and the table has this many rows per value:
** with hashes spread evenly, fewer than a tenth of them are then expected
** to be empty (e^-2.3), and one seek per value beats two per probed one. */
#define WC_VISIT_MAX  65536.0
#define WC_VISIT_ROWS 2.3

/* True if element iElem has a usable '=' (all its columns, for a SALT). */
static int elementHasEq(Planner *p, int iElem){
  const WcElement *pElem = &p->pS->aElem[iElem];
  int i;
  if( pElem->eKind == WC_ELEM_SALT ){
    for(i = 0; i < pElem->nSaltCol; i++){
      if( p->aCons[pElem->aiSaltCol[i]].iEq < 0 ) return 0;
    }
    return 1;
  }
  return p->aCons[pElem->iCol].iEq >= 0;
}

static int elementHasRange(Planner *p, int iElem){
  const WcElement *pElem = &p->pS->aElem[iElem];
  const ColCons *pCons;
  if( pElem->eKind != WC_ELEM_COLUMN || pElem->eOrder == WC_ORDER_NONE ){
    return 0;
  }
  pCons = &p->aCons[pElem->iCol];
  return pCons->nLo || pCons->nHi || pCons->iLike >= 0;
}

/* A store's call for the plan's figures failed with rc: the plan's
** error, or, if the statement was interrupted, a plan made without them
** whose scan says so (SQLite would make SQLITE_ERROR of any error of
** xBestIndex's, where the Errors table promises SQLITE_INTERRUPT). */
static void plannerCallFailed(Planner *p, int rc){
  if( rc == SQLITE_INTERRUPT ){
    p->pTab->bPlanInterrupted = 1;
    p->plan.bInterrupted = 1;
  }else if( p->rc == SQLITE_OK ){
    p->rc = rc;
  }
}

/* The table's rows, for costs: asked of the store (wcStoreRowCount) the
** first time a plan needs them, once per connection, so that a statement
** whose plan needs none (a lookup by the whole row key) reads nothing
** for planning.  A failed read is the statement's error (p->rc). */
static double plannerRows(Planner *p){
  WcVtab *pTab = p->pTab;
  if( pTab->nRowEst < 0 ){
    int64_t nRow = 0;
    int rc = wcStoreRowCount(&pTab->store, &nRow);
    if( rc != SQLITE_OK ){
      plannerCallFailed(p, rc);
      return (double)WC_UNCOUNTED_ROWS;
    }
    pTab->nRowEst = nRow;
  }
  return (double)(pTab->nRowEst > 0 ? pTab->nRowEst : 1);
}

/* The distinct prefixes of the first k elements in the data, counted up
** to the store's nPrefixProbes (a larger result means "more than that")
** once per connection. */
static double prefixCount(Planner *p, int k){
  const WcStoreCaps *pCaps = wcStoreCaps(&p->pTab->store);
  int64_t *aCount = p->pTab->aPath[p->iPath].aPrefixCount;
  if( aCount[k] < 0 ){
    int rc;
    plannerRows(p);
    rc = p->rc != SQLITE_OK ? p->rc
       : wcStorePrefixCount(&p->pTab->store, p->iPath, k, p->pTab->nRowEst,
                            &aCount[k]);
    if( rc != SQLITE_OK ){
      plannerCallFailed(p, rc);
      aCount[k] = -1;
      return (double)pCaps->nPrefixProbes + 1.0;
    }
  }
  return aCount[k] > 0 ? (double)aCount[k] : 1.0;
}

/* How many prefixes the first k elements take: at most 16^n for a SALT
** of n digits and n for a BUCKET(n); fields are counted in the data.
** Returns -1 if there are too many to be worth skipping over. */
static double skipPrefixes(Planner *p, int k){
  WcVtab *pTab = p->pTab;
  double nRow = plannerRows(p);
  double nPrefix = 1.0;
  int i, bCounted = 0;
  for(i = 0; i < k; i++){
    const WcElement *pElem = &p->pS->aElem[i];
    if( pElem->eKind != WC_ELEM_COLUMN ){
      nPrefix *= wcDerivedDomain(p->pS, i);
    }else{
      bCounted = 1;
    }
  }
  if( bCounted ){
    nPrefix = prefixCount(p, k);
    if( nPrefix > wcStoreCaps(&pTab->store)->nPrefixProbes ) return -1.0;
  }
  return nPrefix < nRow ? nPrefix : nRow;
}

/* How many values the first k elements can take, if they are all SALTs
** and BUCKETs; -1 if one of them is a field. */
static double skipDomain(Planner *p, int k){
  double nDomain = 1.0;
  int i;
  for(i = 0; i < k; i++){
    if( p->pS->aElem[i].eKind == WC_ELEM_COLUMN ) return -1.0;
    nDomain *= (double)wcDerivedCount(p->pS, i);
  }
  return nDomain;
}

/* True if the k skipped elements are SALTs and BUCKETs of the INTEGER
** field of element k, and that field has a range: each integer in the
** range then gives its prefix outright (MapR's salted timestamps,
** [bucket][timestamp]...). */
static int skipEnumerable(Planner *p, int k){
  const WcSchema *pS = p->pS;
  const WcElement *pField = &pS->aElem[k];
  int i;
  if( pField->eKind != WC_ELEM_COLUMN || elementHasEq(p, k)
   || !elementHasRange(p, k) || pS->aCol[pField->iCol].cAff != WC_AFF_INTEGER ){
    return 0;
  }
  for(i = 0; i < k; i++){
    const WcElement *pElem = &pS->aElem[i];
    if( pElem->eKind == WC_ELEM_BUCKET ? pElem->iCol != pField->iCol
       : pElem->eKind != WC_ELEM_SALT || pElem->nSaltCol != 1
         || pElem->aiSaltCol[0] != pField->iCol ){
      return 0;
    }
  }
  return 1;
}

/* How many integers the range on column iCol holds, if its bounds are
** literals; -1 if that is not known until xFilter. */
static double literalWidth(Planner *p, int iCol){
  const ColCons *pCons = &p->aCons[iCol];
  double lo = -9223372036854775808.0, hi = 9223372036854775807.0;
  int i;
  if( pCons->nLo == 0 || pCons->nHi == 0 ) return -1.0;
  for(i = 0; i < pCons->nLo + pCons->nHi; i++){
    int iCons = i < pCons->nLo ? pCons->aiLo[i] : pCons->aiHi[i - pCons->nLo];
    int op = p->pInfo->aConstraint[iCons].op;
    sqlite3_value *pVal = 0;
    double r;
    if( sqlite3_vtab_rhs_value(p->pInfo, iCons, &pVal) != SQLITE_OK || !pVal
     || (sqlite3_value_type(pVal) != SQLITE_INTEGER
         && sqlite3_value_type(pVal) != SQLITE_FLOAT) ){
      return -1.0;
    }
    r = sqlite3_value_double(pVal);
    if( op == SQLITE_INDEX_CONSTRAINT_GT ) r = floor(r) + 1.0;
    if( op == SQLITE_INDEX_CONSTRAINT_GE ) r = ceil(r);
    if( op == SQLITE_INDEX_CONSTRAINT_LT ) r = ceil(r) - 1.0;
    if( op == SQLITE_INDEX_CONSTRAINT_LE ) r = floor(r);
    if( i < pCons->nLo ){
      if( r > lo ) lo = r;
    }else if( r < hi ){
      hi = r;
    }
  }
  return hi >= lo ? hi - lo + 1.0 : 0.0;
}

/* The rows of LIMIT constraint iCons, if a literal gives them (a
** parameter's are not known: 0). */
static double limitValue(Planner *p, int iCons){
  sqlite3_value *pVal = 0;
  if( iCons >= 0
   && sqlite3_vtab_rhs_value(p->pInfo, iCons, &pVal) == SQLITE_OK
   && pVal && sqlite3_value_type(pVal) == SQLITE_INTEGER
   && sqlite3_value_int64(pVal) > 0 ){
    return (double)sqlite3_value_int64(pVal);
  }
  return 0.0;
}

/* The rows a LIMIT the plan takes asks for (limitValue()), or 0 without
** one. */
static double planLimitRows(Planner *p){
  int i;
  for(i = 0; i < p->nArg; i++){
    int eOp = p->plan.aTerm[i].eOp;
    if( eOp == WC_TERM_LIMIT || eOp == WC_TERM_WINDOW ){
      return limitValue(p, p->aiArg[i]);
    }
  }
  return 0.0;
}

/* The calls a skip scan visiting nPrefix prefixes for nOut rows makes
** (0 on a store that makes none).  Merged (bMerge), each prefix is a read
** of its own, of at most the LIMIT's rows; else, where the prefixes are
** not probed for and the store reads sets of ranges going up, a read per
** WC_SET_MAX of them; else a read per prefix, and a probe before each
** where prefixes are probed for (bSkipProbe).  Each read in pages
** (wcStoreReadCalls).  Values enumerated (bSkipEnum) are each a read.
** nLimit: the rows a LIMIT asks for (0: none). */
static double skipCalls(Planner *p, int bMerge, double nLimit){
  WcStore *pStore = &p->pTab->store;
  double nPrefix = p->bSkipEnum ? p->nSkipValues
                 : p->nSkipPrefix > 1.0 ? p->nSkipPrefix : 1.0;
  double nPer = p->nSkipOut / nPrefix;
  if( p->rCall <= 0.0 ) return 0.0;
  if( p->bSkipEnum ){
    /* Each value's prefix is read alone, found without a probe. */
    return nPrefix * wcStoreReadCalls(pStore, nLimit > 0.0 && nLimit < nPer
                                      ? nLimit : nPer, 1.0, nLimit);
  }
  if( bMerge ){
    return nPrefix * wcStoreReadCalls(pStore, nLimit > 0.0 && nLimit < nPer
                                      ? nLimit : nPer, 1.0, nLimit);
  }
  if( !p->bSkipProbe && wcStoreCaps(pStore)->bRangeSets && !p->plan.bDesc ){
    /* Read in the store's pages whatever the LIMIT (a set is read
    ** whole), but no further than the LIMIT's rows. */
    double nSet = ceil(nPrefix / WC_SET_MAX);
    double nRows = nLimit > 0.0 && nLimit < p->nSkipOut ? nLimit
                                                        : p->nSkipOut;
    return nSet * wcStoreReadCalls(pStore, nRows / nSet, nPrefix / nSet, 0.0);
  }
  return nPrefix * (wcStoreReadCalls(pStore, nPer, 1.0, 0.0)
                    + (p->bSkipProbe ? 1.0 : 0.0));
}

/* An engine scans a range slower than it gets a row by its key (HBase
** opens a scanner on each region, Cassandra's coordinator walks the token
** ranges, Bigtable's tablets stream): a range read is priced as this many
** calls more than it makes.  Without it a full scan of a 10-row table,
** one call on Cassandra, cost a lookup's, and a 28-way join read its
** small tables whole in its outer loops: 8,000 calls where the local plan
** made 28 seeks. */
#define WC_SCAN_OPEN_CALLS 1.0

/* What reading every row costs, calls included: the plan a skip scan must
** beat. */
static double fullScanCost(Planner *p, double nRow){
  return nRow + p->rCall * (wcStoreReadCalls(&p->pTab->store, nRow, 1.0, 0.0)
                            + WC_SCAN_OPEN_CALLS);
}

/* Decides whether to skip over the leading elements: if they have no '='
** and the first element that does (or that has a range) comes after them,
** and seeking from prefix to prefix (two seeks each: find it, then its
** range; one each when every prefix is visited) costs less than reading
** every row.  On a store that costs calls, the skip scan's calls
** (skipCalls()) are weighed against a full scan's. */
static void planSkip(Planner *p){
  const WcSchema *pS = p->pS;
  double nRow, nPrefix, nDomain, nOut, rSeek, nCalls;
  int k, i;
  for(k = 0; k < pS->nElem; k++){
    if( elementHasEq(p, k) || elementHasRange(p, k) ) break;
  }
  if( k == 0 || k == pS->nElem ) return;
  nRow = plannerRows(p);
  nPrefix = skipPrefixes(p, k);
  if( nPrefix < 0 ){
    p->nNoSkipMany = k;
    return;
  }
  rSeek = 2.0 * nPrefix * WC_SEEK_COST;
  p->bSkipProbe = 1;
  nDomain = skipDomain(p, k);
  if( nDomain >= 1.0 && nDomain <= WC_VISIT_MAX
   && nRow >= nDomain * WC_VISIT_ROWS ){
    p->plan.bAllPrefixes = 1;
    p->bSkipProbe = 0;
    nPrefix = nDomain;
    rSeek = nDomain * WC_SEEK_COST;
  }
  /* Rows left: a tenth per fixed element, a third for a range. */
  nOut = nRow;
  for(i = k; i < pS->nElem && elementHasEq(p, i); i++) nOut /= 10.0;
  if( i < pS->nElem && elementHasRange(p, i) ) nOut /= 3.0;
  p->nSkipPrefix = nPrefix;
  p->nSkipOut = nOut;
  nCalls = skipCalls(p, 0, 0.0);
  if( skipEnumerable(p, k) ){
    /* Enumerating the values costs this much instead, when it is less.
    ** A range whose bounds are parameters is taken to be short (1% of
    ** the rows), as time windows are: if it is not, xFilter probes, and
    ** probing costs at most two seeks per prefix, never every row. */
    const ColCons *pCons = &p->aCons[pS->aElem[k].iCol];
    double nWidth = literalWidth(p, pS->aElem[k].iCol);
    double rValue = WC_ENUM_COST + p->rCall;
    if( nWidth < 0.0 && pCons->nLo && pCons->nHi ) nWidth = nRow / 100.0;
    p->plan.nEnumMax = (int64_t)((rSeek + nCalls * p->rCall) / rValue);
    if( nWidth >= 0.0 && nWidth * rValue < rSeek + nCalls * p->rCall ){
      p->nSkipValues = nWidth > 1.0 ? nWidth : 1.0;
      p->bSkipEnum = 1;
      nCalls = skipCalls(p, 0, 0.0);
      rSeek = p->nSkipValues * WC_ENUM_COST;
    }
  }
  if( rSeek + nCalls * p->rCall + nOut < fullScanCost(p, nRow) ){
    p->plan.nSkip = k;
    p->rSkipSeek = rSeek;
    p->nSkipCalls = nCalls;
  }else{
    if( rSeek + nOut < nRow ) p->nNoSkipCalls = nCalls;
    p->plan.nEnumMax = 0;
    p->plan.bAllPrefixes = 0;
    p->bSkipEnum = 0;
    p->bSkipProbe = 0;
  }
}

static void planRowkey(Planner *p){
  ColCons *pCons = &p->aCons[p->pS->nCol];
  int i;
  if( pCons->iEq >= 0 && !pCons->bEqIn ){
    addTerm(p, pCons->iEq, WC_TERM_EQ, 1);
  }
  for(i = 0; i < pCons->nLo + pCons->nHi; i++){
    int iCons = i < pCons->nLo ? pCons->aiLo[i] : pCons->aiHi[i - pCons->nLo];
    addTerm(p, iCons, rangeOp(p->pInfo->aConstraint[iCons].op), 1);
  }
}

/* True if a skipped SALT or BUCKET element is computed from key fields
** after the skipped prefix: rows that tie on those fields tie on it. */
static int elementDerived(Planner *p, const WcElement *pElem){
  const WcSchema *pS = p->pS;
  int j;
  if( pElem->eKind == WC_ELEM_BUCKET ){
    return pS->aCol[pElem->iCol].iElem >= p->plan.nSkip;
  }
  for(j = 0; j < pElem->nSaltCol; j++){
    if( pS->aCol[pElem->aiSaltCol[j]].iElem < p->plan.nSkip ) return 0;
  }
  return 1;
}

/* A merge hands out rows that tie on every element after the skipped
** prefix in the order their prefixes were found, which is key order in
** the scan's direction.  True if that order satisfies the ORDER BY terms
** from iTerm on: they must name the skipped fields in key order, in the
** direction *peDir (set here if it is still -1); a SALT or BUCKET of
** later fields ties anyway. */
static int prefixOrderFits(Planner *p, int iTerm, int *peDir){
  sqlite3_index_info *pInfo = p->pInfo;
  const WcSchema *pS = p->pS;
  int iElem;
  for(iElem = 0; iElem < p->plan.nSkip; iElem++){
    const WcElement *pElem = &pS->aElem[iElem];
    int bDesc;
    while( iTerm < pInfo->nOrderBy
        && pInfo->aOrderBy[iTerm].iColumn >= 0
        && pInfo->aOrderBy[iTerm].iColumn < pS->nCol
        && columnFixed(p, pInfo->aOrderBy[iTerm].iColumn) ){
      iTerm++;
    }
    if( iTerm == pInfo->nOrderBy ) return 1;
    if( pElem->eKind != WC_ELEM_COLUMN ){
      if( !elementDerived(p, pElem) ) return 0;
      continue;
    }
    if( pInfo->aOrderBy[iTerm].iColumn != pElem->iCol
     || (pElem->eOrder != WC_ORDER_ASC && pElem->eOrder != WC_ORDER_DESC) ){
      return 0;
    }
    bDesc = (pInfo->aOrderBy[iTerm].desc != 0)
          ^ (pElem->eOrder == WC_ORDER_DESC);
    if( *peDir >= 0 && *peDir != bDesc ) return 0;
    *peDir = bDesc;
    iTerm++;
  }
  /* Rows that tie on the whole key are one row. */
  return 1;
}

/* Whether the rows come out in the ORDER BY if the elements from iStart
** on are read in key order (or its reverse): columns fixed by '=' do not
** matter; the others must be the next key elements in order, each with
** bytes that order exactly.  iStart is 0 when the whole key is read in
** order, nSkip when each skipped prefix is read in order and merged.
** Returns 0 for ascending key order, 1 for descending, -1 for neither. */
/* True if the ORDER BY terms from i on leave rows that tie on the whole
** key in the order they come: any order when a key has one row; a read
** of versions gives a key's versions newest first, which is rowtime DESC
** (and a key's versions never tie on rowtime). */
static int tiesInOrder(Planner *p, int i){
  sqlite3_index_info *pInfo = p->pInfo;
  if( !p->bVersionRead || i >= pInfo->nOrderBy ) return 1;
  return pInfo->aOrderBy[i].iColumn == WC_COL_ROWTIME(p->pTab->pSchema)
      && pInfo->aOrderBy[i].desc;
}

static int orderByFrom(Planner *p, int iStart){
  sqlite3_index_info *pInfo = p->pInfo;
  const WcSchema *pS = p->pS;
  int i, iElem = iStart, eDir = -1;
  for(i = 0; i < pInfo->nOrderBy; i++){
    int iCol = pInfo->aOrderBy[i].iColumn;
    int bDesc = pInfo->aOrderBy[i].desc != 0;
    const WcElement *pElem;
    if( iCol == pS->nCol ){
      /* Across merged prefixes rowkey order is not the merge order, nor
      ** is it an index's order. */
      if( iStart > 0 || pS->bBorrowed || (eDir >= 0 && eDir != bDesc)
       || !tiesInOrder(p, i + 1) ){
        return -1;
      }
      return bDesc;     /* rowkey is unique: later terms never decide */
    }
    if( iCol < 0 ) return -1;
    if( iCol < pS->nCol ){
      /* Byte order is not a collation's order (a table created before
      ** CREATE refused COLLATE on key fields). */
      if( pS->aCol[iCol].zColl ) return -1;
      if( columnFixed(p, iCol) ) continue;
    }
    while( iElem < pS->nElem && elementFixed(p, iElem) ) iElem++;
    if( iElem == pS->nElem ){
      /* The elements after iStart are all in order.  Rows that tie on
      ** them are one row (or a row's versions), unless they come from
      ** different prefixes, or the key is an index's, which many rows
      ** can share, or it ends in RANDOM's number. */
      if( pS->bSuffix || !tiesInOrder(p, i) ) return -1;
      if( iStart > 0 && !prefixOrderFits(p, i, &eDir) ) return -1;
      break;
    }
    /* rowtime, versions, asof: no key element orders them. */
    if( iCol > pS->nCol ) return -1;
    pElem = &pS->aElem[iElem];
    if( pElem->eKind != WC_ELEM_COLUMN || pElem->iCol != iCol
     || (pElem->eOrder != WC_ORDER_ASC && pElem->eOrder != WC_ORDER_DESC) ){
      return -1;
    }
    /* An IN handled one value per xFilter call is scanned in SQLite's
    ** order of its values, not ours. */
    if( iElem >= p->plan.nSkip && iElem < p->plan.nSkip + p->plan.nEqElem
     && p->aCons[iCol].bEqIn && !sqlite3_vtab_in(pInfo, p->aCons[iCol].iEq, -1) ){
      return -1;
    }
    bDesc ^= pElem->eOrder == WC_ORDER_DESC;
    if( eDir >= 0 && eDir != bDesc ) return -1;
    eDir = bDesc;
    iElem++;
  }
  if( !tiesInOrder(p, pInfo->nOrderBy) ) return -1;
  return eDir == 1;
}

/* Rows of the range per prefix below which a merge that holds a row per
** prefix is not worth it: it reads a row of every prefix before it returns
** one, keeps them all in memory and seeks for each next row, while SQLite's
** sorter would read about as many rows and keep only LIMIT of them. */
#define WC_MERGE_ROWS 16.0

/* Whether merging beats letting SQLite sort.  With a statement per prefix
** it does, and when the field values are expected to be enumerated (they
** come in order, with no merge).  Beyond WC_MERGE_LIVE prefixes it takes
** prefixes with many rows each and a LIMIT that stops it early (a LIMIT
** that is a parameter is taken to be small). */
static int mergePays(Planner *p){
  sqlite3_value *pVal = 0;
  if( p->rCall > 0.0 ){
    /* On a store that costs calls, a merge reads each prefix alone: it
    ** must cost less than the reads of every prefix at once and SQLite's
    ** sort of all their rows (a LIMIT stops the merge early, not them). */
    double nLimit = limitValue(p, p->iLimit);
    double nMergeRows = nLimit > 0.0 && nLimit * p->nSkipPrefix < p->nSkipOut
                      ? nLimit * p->nSkipPrefix : p->nSkipOut;
    if( skipCalls(p, 1, nLimit) * p->rCall + nMergeRows
        > skipCalls(p, 0, 0.0) * p->rCall + 2.0 * p->nSkipOut ){
      return 0;
    }
  }
  if( p->nSkipPrefix <= WC_MERGE_LIVE || p->bSkipEnum ) return 1;
  if( p->iLimit < 0 || p->nSkipOut < WC_MERGE_ROWS * p->nSkipPrefix ){
    return 0;
  }
  if( sqlite3_vtab_rhs_value(p->pInfo, p->iLimit, &pVal) != SQLITE_OK
   || pVal == 0 || sqlite3_value_type(pVal) != SQLITE_INTEGER ){
    return 1;
  }
  return (double)sqlite3_value_int64(pVal) * WC_SEEK_COST < p->nSkipOut;
}

/* Consumes the ORDER BY if the scan can give it: reading the whole key in
** order (a skip scan visits its prefixes in key order too), or else, for a
** skip scan, merging the prefixes' scans. */
static void planOrderBy(Planner *p){
  sqlite3_index_info *pInfo = p->pInfo;
  int eDir, i, bAssumed = p->bEqAssumed;
  if( pInfo->nOrderBy == 0 ) return;
  if( bAssumed && pInfo->nOrderBy > WC_MAX_SORT ) return;
  eDir = orderByFrom(p, 0);
  if( eDir < 0 && p->plan.nSkip > 0 && mergePays(p) ){
    eDir = orderByFrom(p, p->plan.nSkip);
    p->plan.bMerge = eDir >= 0;
  }
  if( eDir < 0 ) return;
  pInfo->orderByConsumed = 1;
  p->plan.bDesc = eDir;
  if( bAssumed ){
    /* xFilter sorts rows, not versions: a widened range may hold several
    ** keys that tie on the ORDER BY, whose versions it cannot order by
    ** rowtime. */
    for(i = 0; i < pInfo->nOrderBy; i++){
      if( pInfo->aOrderBy[i].iColumn > p->pS->nCol ){
        pInfo->orderByConsumed = 0;
        p->plan.bDesc = p->plan.bMerge = 0;
        return;
      }
    }
    p->plan.nSort = pInfo->nOrderBy;
    for(i = 0; i < pInfo->nOrderBy; i++){
      p->plan.aSort[i].iCol = pInfo->aOrderBy[i].iColumn;
      p->plan.aSort[i].bDesc = pInfo->aOrderBy[i].desc != 0;
    }
  }
}

/* LIMIT and OFFSET can be applied while scanning only if the scan returns
** exactly the rows, in exactly the order, that SQLite would keep: when it
** gives the ORDER BY.  Without one, SQLite stops the scan at the LIMIT
** itself; and an ORDER BY of 64 terms or more reaches xBestIndex as none
** while its LIMIT still comes (SQLite 3.40.1 drops such an ORDER BY from
** the planner, not from the LIMIT's checks), so nOrderBy == 0 cannot
** tell the scan that no order is wanted.  There the LIMIT is a window
** (WC_TERM_WINDOW): the rows read first, every row still there to read
** after them. */
static void planLimit(Planner *p, int iLimit, int iOffset){
  sqlite3_index_info *pInfo = p->pInfo;
  int i;
  if( iLimit < 0 || (pInfo->nOrderBy > 0 && !pInfo->orderByConsumed) ){
    return;
  }
  for(i = 0; i < pInfo->nConstraint; i++){
    if( i == iLimit || i == iOffset ) continue;
    if( i >= 16 || !pInfo->aConstraint[i].usable
     || !pInfo->aConstraintUsage[i].omit ){
      return;
    }
  }
  if( p->nArg + 2 > WC_MAX_TERM ) return;
  if( pInfo->nOrderBy == 0 ){
    /* Read as a window: the scan asks the store for the LIMIT's rows
    ** first (a store that reads in pages reads no more), and reads on
    ** if SQLite takes more. */
    if( iOffset < 0 ) addTerm(p, iLimit, WC_TERM_WINDOW, 0);
    return;
  }
  addTerm(p, iLimit, WC_TERM_LIMIT, 0);
  if( iOffset >= 0 ) addTerm(p, iOffset, WC_TERM_OFFSET, 1);
}

/*
** Costs.  Each '=' on a field keeps a tenth of the rows, a range a quarter
** or an eighth; a seek costs log2(rows) steps.  On a store that costs
** calls, each call the plan makes costs rCall rows more: a lookup by a
** whole key is one; a range is read in pages, a call each
** (wcStoreReadCalls); a skip scan's reads skipCalls() counts (merged, a
** read per prefix).  So a join's small tables are looked up, not read
** whole again for every row of the loop outside them: a read of ten rows
** is two calls where a lookup is one.
*/

/* The plan's cost from its rows and calls (p->nCalls, which EXPLAIN
** tells): nOut rows of nRow, after nSeek seeks (bNarrow: a range or
** lookup; else the whole table), each a lookup by key if bLookup. */
static void planCostCalls(Planner *p, double nRow, double nOut, double nSeek,
                          int bNarrow, int bLookup){
  sqlite3_index_info *pInfo = p->pInfo;
  WcStore *pStore = &p->pTab->store;
  double nLimit = planLimitRows(p);
  double nRead = nLimit > 0.0 && nLimit < nOut ? nLimit : nOut;
  if( p->plan.nSkip > 0 ){
    p->nSkipCalls = skipCalls(p, p->plan.bMerge, nLimit);
    p->nCalls = p->nSkipCalls;
    pInfo->estimatedCost = p->rSkipSeek + p->nCalls * p->rCall + nOut;
  }else if( bNarrow ){
    /* A seek's steps inside the engine are part of its call's cost; a
    ** range costs the engine a scan opened (WC_SCAN_OPEN_CALLS). */
    p->nCalls = bLookup ? nSeek
              : nSeek * wcStoreReadCalls(pStore, nRead / nSeek, 1.0, nLimit);
    pInfo->estimatedCost = (p->rCall > 0.0 ? 0.0 : nSeek * log2(nRow + 2.0))
                         + (p->nCalls + (bLookup ? 0.0 : nSeek
                                         * WC_SCAN_OPEN_CALLS)) * p->rCall
                         + nOut;
  }else{
    p->nCalls = wcStoreReadCalls(pStore, nLimit > 0.0 && nLimit < nRow
                                         ? nLimit : nRow, 1.0, nLimit);
    pInfo->estimatedCost = nRow + 10.0
                         + (p->nCalls + WC_SCAN_OPEN_CALLS) * p->rCall;
  }
}

static void planCost(Planner *p){
  sqlite3_index_info *pInfo = p->pInfo;
  const WcSchema *pS = p->pS;
  /* '=' on every element: the rows of one key (of an IN's keys, of a
  ** key's versions), whatever the table holds.  A lookup of one whole key
  ** costs about the same in any table: on a store whose reads are calls,
  ** rows are not counted for it (a table not yet counted is taken to be
  ** large), nor prefixes probed, so that the lookup is its one call, a
  ** parameter's too (whose value the plan cannot see). */
  int bWholeKey = p->plan.nSkip == 0 && p->plan.nEqElem == pS->nElem
                && !pS->bSuffix;
  int bUnique = bWholeKey;
  double nRow = bWholeKey && p->pTab->nRowEst < 0
                && wcStoreCaps(&p->pTab->store)->rCallRows > 0.0
              ? (double)WC_UNCOUNTED_ROWS : plannerRows(p);
  double nOut = nRow, nSeek = 1.0, rEq = 1.0, nKeyRows = 1.0;
  int i, bNarrow = 0, bRowkeyEq = 0;
  for(i = 0; i < p->nArg; i++){
    const WcTerm *pTerm = &p->plan.aTerm[i];
    switch( pTerm->eOp ){
      case WC_TERM_EQ:
      case WC_TERM_IN:
        if( pTerm->iCol == pS->nCol ){
          bRowkeyEq = 1;
        }else{
          rEq *= 10.0;
          /* A unique scan lets SQLite's one-pass UPDATE and DELETE stop
          ** after the first row, so only an '=' known to narrow exactly
          ** makes one: a number arriving for a TEXT field widens the
          ** range to rows SQLite then tells apart itself. */
          bUnique = bUnique && p->aCons[pTerm->iCol].bEqExact;
        }
        if( pTerm->eOp == WC_TERM_IN ){
          nSeek *= 4.0;
          nOut *= 4.0;
          nKeyRows *= 4.0;
          bUnique = 0;
        }
        bNarrow = 1;
        break;
      case WC_TERM_LIKE:
      case WC_TERM_GLOB:
        nOut /= 16.0;
        bNarrow = 1;
        break;
      case WC_TERM_GT: case WC_TERM_GE: case WC_TERM_LT: case WC_TERM_LE:
        nOut /= 3.0;
        bNarrow = 1;
        break;
      case WC_TERM_VERSIONS:
        /* Several rows per key. */
        nOut *= (double)p->pTab->pSchema->nVersions;
        nKeyRows *= (double)p->pTab->pSchema->nVersions;
        bUnique = 0;
        break;
    }
  }
  /* The prefix the '=' terms fix holds, on average, the rows over the
  ** prefixes there are: counted in the data (once per connection) up to
  ** WC_SKIP_PROBES, beyond which it is at least that many.  A tenth per
  ** '=' alone would make a lookup by a leading field of 100,000 values
  ** cost a tenth of a full scan, and SQLite would scan instead. */
  if( rEq > 1.0 && !bWholeKey && p->plan.nSkip == 0 && p->plan.nEqElem > 0 ){
    double nPrefix = prefixCount(p, p->plan.nEqElem);
    rEq = nPrefix > wcStoreCaps(&p->pTab->store)->nPrefixProbes
        ? (rEq > nPrefix ? rEq : nPrefix) : nPrefix;
  }
  nOut = bRowkeyEq ? 1.0 : bWholeKey ? nKeyRows : nOut / rEq;
  if( p->plan.bEmpty ){
    nOut = 0.0;
    bNarrow = 1;
  }else if( bUnique ){
    nOut = 1.0;
    pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }
  /* Fractions of a row still tell two narrow plans apart. */
  p->rOut = nOut;
  pInfo->estimatedRows = (sqlite3_int64)(nOut < 1.0 && !p->plan.bEmpty
                                         ? 1.0 : nOut);
  planCostCalls(p, nRow, nOut, nSeek, bNarrow, bWholeKey || bUnique);
}

/*
** The plan in words, for EXPLAIN QUERY PLAN.
*/
static const char *termText(int eOp){
  switch( eOp ){
    case WC_TERM_EQ:   return "=?";
    case WC_TERM_IN:   return " IN (...)";
    case WC_TERM_GT:   return ">?";
    case WC_TERM_GE:   return ">=?";
    case WC_TERM_LT:   return "<?";
    case WC_TERM_LE:   return "<=?";
    case WC_TERM_LIKE: return " LIKE ?";
    default:           return " GLOB ?";
  }
}

/* Notes on key-column constraints the ranges do not enforce. */
static void explainFilters(Planner *p){
  const WcSchema *pS = p->pS;
  int iCol, i;
  for(iCol = 0; iCol < pS->nCol; iCol++){
    const ColCons *pCons = &p->aCons[iCol];
    const WcElement *pElem;
    int bHas = pCons->iEq >= 0 || pCons->nLo || pCons->nHi
            || pCons->iLike >= 0;
    int bUsed = 0;
    for(i = 0; i < p->nArg; i++){
      if( p->plan.aTerm[i].iCol == iCol ) bUsed = 1;
    }
    /* SQLite adds NOCASE range terms of its own next to a LIKE; only a
    ** column with nothing else usable is worth a note. */
    if( pCons->zColl && !bUsed && !bHas ){
      char *z = sqlite3_mprintf("COLLATE %s", pCons->zColl);
      addNote(p, iCol, z ? z : "COLLATE");
      sqlite3_free(z);
      continue;
    }
    if( !bHas || pS->aCol[iCol].iElem < 0 ) continue;
    pElem = &pS->aElem[pS->aCol[iCol].iElem];
    if( pCons->iEq >= 0 && bUsed ) continue;
    if( bUsed && pCons->iLike >= 0 ){
      addNote(p, iCol, "LIKE/GLOB pattern");
    }else if( !bUsed && pElem->eOrder == WC_ORDER_NONE && pCons->iEq < 0 ){
      addNote(p, iCol, pElem->zUnordered);
    }else if( !bUsed ){
      int iPrev = pS->aCol[iCol].iElem - 1;
      const WcElement *pPrev = &pS->aElem[iPrev >= 0 ? iPrev : 0];
      char *z = pPrev->eKind == WC_ELEM_COLUMN
        ? sqlite3_mprintf("after %s, which is not fixed",
                          pS->aCol[pPrev->iCol].zName)
        : sqlite3_mprintf("after %s, which is not fixed",
                          wcDerivedName(pPrev));
      addNote(p, iCol, z ? z : "not a leading field");
      sqlite3_free(z);
    }
  }
}

/* A PREFIX element's range is read as several exact key ranges (the
** main one, and one per prefix of a bound that sorts out of place): with
** literal values, how many is known now. */
static void explainRanges(Planner *p, sqlite3_str *pStr){
  const WcPlan *pPlan = &p->plan;
  sqlite3_value *apArg[WC_MAX_TERM];
  WcRanges ranges;
  int i, bWidened = 0;
  if( pPlan->iRangeElem < 0
   || p->pS->aElem[pPlan->iRangeElem].eOrder != WC_ORDER_PREFIX ){
    return;
  }
  for(i = 0; i < pPlan->nTerm; i++){
    apArg[i] = 0;
    if( pPlan->aTerm[i].eOp == WC_TERM_IN
     || sqlite3_vtab_rhs_value(p->pInfo, p->aiArg[i], &apArg[i]) != SQLITE_OK
     || apArg[i] == 0 ){
      sqlite3_str_appendall(pStr, "; exact key ranges");
      return;
    }
  }
  memset(&ranges, 0, sizeof(ranges));
  if( wcRangesBuild(p->pTab, pPlan, apArg, &ranges, &bWidened)
      == SQLITE_OK ){
    sqlite3_str_appendf(pStr, "; %d key range%s%s", ranges.rel.n,
                        ranges.rel.n == 1 ? "" : "s",
                        pPlan->nSkip ? " per prefix" : "");
  }
  wcRangesFree(&ranges);
}

/* " 16 buckets x ts": the first k elements, as skipping names them. */
static void appendElements(sqlite3_str *pStr, const WcSchema *pS, int k){
  int i;
  for(i = 0; i < k; i++){
    const WcElement *pElem = &pS->aElem[i];
    sqlite3_str_appendall(pStr, i ? " x" : "");
    if( pElem->eKind == WC_ELEM_SALT ){
      /* A TOKEN's 2^64 values, exactly: SQLite's %f rounds past 16
      ** digits (18446744073709550000). */
      double nDomain = wcDerivedDomain(pS, i);
      if( nDomain < 9007199254740992.0 ){
        sqlite3_str_appendf(pStr, " %lld", (sqlite3_int64)nDomain);
      }else{
        int e;
        wcAssert( frexp(nDomain, &e) == 0.5 );
        frexp(nDomain, &e);
        sqlite3_str_appendf(pStr, " 2^%d", e - 1);
      }
      sqlite3_str_appendall(pStr, pElem->bToken ? " tokens" : " salts");
    }else if( pElem->eKind == WC_ELEM_BUCKET ){
      sqlite3_str_appendf(pStr, " %lld buckets", pElem->nBucket);
    }else{
      sqlite3_str_appendf(pStr, " %s", pS->aCol[pElem->iCol].zName);
    }
  }
}

static char *planText(Planner *p){
  const WcSchema *pS = p->pS;
  sqlite3_index_info *pInfo = p->pInfo;
  sqlite3_str *pStr = sqlite3_str_new(0);
  /* A partition of Cassandra's form read by its token: said in CQL's
  ** words, PARTITION and CLUSTERING. */
  int bCql = p->iPath == 0 && pS->aElem[0].bToken && p->plan.nSkip == 0
          && p->plan.nEqElem > 0;
  int i, k, nRange = 0;
  for(i = 0; i < p->nArg; i++){
    nRange += p->plan.aTerm[i].eOp < WC_TERM_LIMIT;
  }
  if( p->iPath > 0 ){
    sqlite3_str_appendf(pStr, "INDEX %s ",
                        p->pTab->aPath[p->iPath].pIndex->zName);
  }
  if( p->plan.bEmpty ){
    sqlite3_str_appendall(pStr, "EMPTY (row key fields are never NULL)");
  }else if( nRange == 0 ){
    sqlite3_str_appendall(pStr, "FULL SCAN");
  }else{
    if( p->plan.nSkip > 0 ){
      /* "SKIP SCAN over 16 buckets:", "over 65536 salts:", "over host:" */
      sqlite3_str_appendall(pStr, "SKIP SCAN over");
      appendElements(pStr, pS, p->plan.nSkip);
      if( p->plan.nEnumMax > 0 ){
        sqlite3_str_appendf(pStr, ", or over %s values if at most %lld",
                            pS->aCol[pS->aElem[p->plan.nSkip].iCol].zName,
                            p->plan.nEnumMax);
      }
      sqlite3_str_appendall(pStr, ":");
    }else if( bCql ){
      sqlite3_str_appendall(pStr, "PARTITION");
    }else{
      sqlite3_str_appendall(pStr, (pInfo->idxFlags & SQLITE_INDEX_SCAN_UNIQUE)
                                  ? "LOOKUP" : "RANGE");
    }
    /* In CQL's words: the partition's terms, then the clustering ones. */
    for(k = 0; k < (bCql ? 2 : 1); k++){
      int bFirst = 1;
      for(i = 0; i < p->nArg; i++){
        const WcTerm *pTerm = &p->plan.aTerm[i];
        if( pTerm->eOp >= WC_TERM_LIMIT ) continue;
        if( bCql && wcPartitionColumn(pS, pTerm->iCol) != (k == 0) ) continue;
        if( k == 1 && bFirst ) sqlite3_str_appendall(pStr, "; CLUSTERING");
        bFirst = 0;
        sqlite3_str_appendf(pStr, " %s%s", pTerm->iCol == pS->nCol ? "rowkey"
                            : pS->aCol[pTerm->iCol].zName,
                            termText(pTerm->eOp));
      }
    }
  }
  explainRanges(p, pStr);
  /* A SALT or BUCKET computed from '=' values narrows to its prefix (a
  ** TOKEN says so as PARTITION). */
  for(i = p->plan.nSkip; i < p->plan.nSkip + p->plan.nEqElem && !bCql; i++){
    if( pS->aElem[i].eKind != WC_ELEM_COLUMN ){
      sqlite3_str_appendf(pStr, "; %s computed", wcDerivedName(&pS->aElem[i]));
    }
  }
  sqlite3_str_appendall(pStr, sqlite3_str_value(p->pNote)
                              ? sqlite3_str_value(p->pNote) : "");
  /* On a store that costs calls, what the skip scan's calls cost, or that
  ** they ruled one out. */
  if( (p->plan.nSkip > 0 || p->iPath > 0) && p->rCall > 0.0 ){
    sqlite3_str_appendf(pStr, "; about %.0f call%s", ceil(p->nCalls),
                        p->nCalls < 1.5 ? "" : "s");
  }else if( p->nNoSkipCalls > 0.0 ){
    sqlite3_str_appendf(pStr, "; no skip scan: it would take about %.0f "
                        "calls", p->nNoSkipCalls);
  }else if( p->nNoSkipMany > 0 ){
    /* Why a field was not skipped over: the prefixes counted. */
    sqlite3_str_appendall(pStr, "; no skip scan: more than");
    sqlite3_str_appendf(pStr, " %d prefixes of",
                        wcStoreCaps(&p->pTab->store)->nPrefixProbes);
    appendElements(pStr, pS, p->nNoSkipMany);
    if( p->rCall > 0.0 ){
      sqlite3_str_appendall(pStr, ", two calls each");
    }
  }
  if( pInfo->orderByConsumed && pInfo->nOrderBy ){
    const WcStoreCaps *pCaps = wcStoreCaps(&p->pTab->store);
    sqlite3_str_appendall(pStr, p->plan.bDesc ? "; ORDER BY key DESC"
                                              : "; ORDER BY key");
    if( p->plan.bMerge ) sqlite3_str_appendall(pStr, " (merged)");
    /* On a store that costs calls, how its calls give descending order. */
    if( p->plan.bDesc && pCaps->rCallRows > 0.0 ){
      sqlite3_str_appendall(pStr,
          pCaps->bReverseReads == WC_REVERSE_PARTITION
          ? " (reversed reads within a partition)"
          : pCaps->bReverseReads ? " (reversed reads)"
          : " (each range read whole, then sorted)");
    }
  }
  if( p->iPath > 0 ){
    sqlite3_str_appendall(pStr, wcStoreCovers(&p->pTab->store, p->iPath,
                                              p->plan.colUsed)
                          ? "; COVERING" : "; ROW LOOKUP BY rowkey");
  }
  /* Why an index that holds the columns still looks rows up. */
  if( p->pTab->pSchema->nTtl > 0 ){
    sqlite3_str_appendf(pStr, "; TTL %lld s", (long long)p->pTab->pSchema->nTtl);
  }
  for(i = 0; i < p->nArg; i++){
    if( p->plan.aTerm[i].eOp == WC_TERM_VERSIONS ){
      sqlite3_str_appendall(pStr, "; VERSIONS ?");
    }else if( p->plan.aTerm[i].eOp == WC_TERM_ASOF ){
      sqlite3_str_appendall(pStr, "; AS OF ?");
    }
  }
  for(i = 0; i < p->nArg; i++){
    if( p->plan.aTerm[i].eOp == WC_TERM_LIMIT ){
      sqlite3_str_appendall(pStr, "; LIMIT ?");
    }else if( p->plan.aTerm[i].eOp == WC_TERM_WINDOW ){
      sqlite3_str_appendall(pStr, "; LIMIT ? rows read first");
    }else if( p->plan.aTerm[i].eOp == WC_TERM_OFFSET ){
      sqlite3_str_appendall(pStr, " OFFSET ?");
    }
  }
  return sqlite3_str_finish(pStr);
}

/* Looking up a row by its key for each entry an index scan finds costs
** about this many rows of a full scan: a join inside one statement. */
#define WC_LOOKUP_COST 4.0

/* What planning one path gave: its outputs in sqlite3_index_info, the
** plan, its text, and a cost to compare paths by, which counts the sort
** SQLite adds when the plan does not give the ORDER BY. */
typedef struct Candidate Candidate;
struct Candidate {
  WcPlan plan;
  char *zText;
  double rCompare;
  double rCost;
  sqlite3_int64 nRow;
  int idxFlags;
  int orderByConsumed;
  struct sqlite3_index_constraint_usage *aUsage;
};

/* Plans a scan of path iPath into pCand; pCand->zText stays NULL if the
** path cannot help (an index that neither narrows nor orders). */
/* versions = n and asof = t: their constraints, or -1. */
typedef struct VersionTerms VersionTerms;
struct VersionTerms {
  int iVersions;
  int iAsof;
};

/* True if index iIndex's key is made of row-key fields only: every
** version of a row has its entry's key. */
static int indexKeyOnly(const WcVtab *pTab, int iIndex){
  const WcSchema *pS = pTab->pSchema;
  int i;
  for(i = 0; i < pS->nCol; i++){
    if( pS->aIndex[iIndex].pKey->aCol[i].bKey && !pS->aCol[i].bKey ) return 0;
  }
  return 1;
}

static int planPath(WcVtab *pTab, sqlite3_index_info *pInfo, int iPath,
                    const VersionTerms *pVt, int mReplaced, Candidate *pCand){
  Planner p;
  int bVersionRead = pVt->iVersions >= 0 || pVt->iAsof >= 0;
  const WcSchema *pS = pTab->aPath[iPath].pKey;
  int iLimit = -1, iOffset = -1, i, bUseful = 1;
  memset(&p, 0, sizeof(p));
  p.pTab = pTab;
  p.iPath = iPath;
  p.pS = pS;
  p.pInfo = pInfo;
  p.plan.iPath = iPath;
  p.bVersionRead = bVersionRead;
  p.rCall = wcStoreCaps(&pTab->store)->rCallRows;
  p.mReplaced = mReplaced;
  memset(pInfo->aConstraintUsage, 0,
         sizeof(pInfo->aConstraintUsage[0]) * (size_t)pInfo->nConstraint);
  pInfo->orderByConsumed = 0;
  pInfo->idxFlags = 0;
  p.aCons = sqlite3_malloc64(sizeof(ColCons) * (sqlite3_uint64)(pS->nCol + 1));
  p.pNote = sqlite3_str_new(0);
  if( p.aCons == 0 ){
    sqlite3_free(sqlite3_str_finish(p.pNote));
    return SQLITE_NOMEM;
  }
  memset(p.aCons, 0, sizeof(ColCons) * (size_t)(pS->nCol + 1));
  collectConstraints(&p, &iLimit, &iOffset);
  p.iLimit = iLimit;
  /* First, so they always fit; xFilter alone enforces them. */
  if( pVt->iVersions >= 0 ){
    addTerm(&p, pVt->iVersions, WC_TERM_VERSIONS, 1);
    pInfo->aConstraintUsage[pVt->iVersions].omit = 1;
  }
  if( pVt->iAsof >= 0 ){
    addTerm(&p, pVt->iAsof, WC_TERM_ASOF, 1);
    pInfo->aConstraintUsage[pVt->iAsof].omit = 1;
  }
  if( !p.plan.bEmpty ){
    planSkip(&p);
    planElements(&p);
    planRowkey(&p);
    planOrderBy(&p);
    planLimit(&p, iLimit, iOffset);
  }
  p.plan.nTerm = p.nArg;
  /* Scans always read the key; rowkey's bit (DELETE and UPDATE read it
  ** without setting it) does not matter. */
  p.plan.colUsed = (uint64_t)pInfo->colUsed;
  /* A sort needs the columns it sorts by. */
  for(i = 0; i < p.plan.nSort; i++){
    int iCol = p.plan.aSort[i].iCol;
    p.plan.colUsed |= (uint64_t)1 << (iCol < 63 ? iCol : 63);
  }
  /* The TTL hides rows by their rowtime; older versions are found by it. */
  if( pTab->pSchema->bVersioned && (pTab->pSchema->nTtl > 0 || bVersionRead) ){
    int iCol = WC_COL_ROWTIME(pTab->pSchema);
    p.plan.colUsed |= (uint64_t)1 << (iCol < 63 ? iCol : 63);
  }
  planCost(&p);
  if( iPath > 0 ){
    int nRange = 0;
    for(i = 0; i < p.nArg; i++) nRange += p.plan.aTerm[i].eOp < WC_TERM_LIMIT;
    bUseful = !p.plan.bEmpty && (nRange > 0 || pInfo->orderByConsumed)
           && (!bVersionRead || indexKeyOnly(pTab, iPath - 1));
    /* Entries checked against their rows where the store checks them,
    ** and a row looked up per entry: a call each where calls cost. */
    double nVerify = wcStoreVerifyCalls(&pTab->store, p.rOut);
    p.nCalls += nVerify;
    pInfo->estimatedCost += nVerify * p.rCall;
    if( !wcStoreCovers(&pTab->store, iPath, p.plan.colUsed) ){
      pInfo->estimatedCost += p.rOut * (WC_LOOKUP_COST + p.rCall);
    }
  }
  if( p.rc != SQLITE_OK ){
    sqlite3_free(sqlite3_str_finish(p.pNote));
    sqlite3_free(p.aCons);
    return p.rc;
  }
  if( bUseful ){
    double nOut = p.rOut;
    explainFilters(&p);
    pCand->zText = planText(&p);
    if( pCand->zText == 0 ){
      sqlite3_free(sqlite3_str_finish(p.pNote));
      sqlite3_free(p.aCons);
      return SQLITE_NOMEM;
    }
    pCand->plan = p.plan;
    pCand->rCost = pInfo->estimatedCost;
    pCand->rCompare = pInfo->estimatedCost;
    if( pInfo->nOrderBy > 0 && !pInfo->orderByConsumed ){
      pCand->rCompare += nOut * log2(nOut + 2.0);
    }
    pCand->nRow = pInfo->estimatedRows;
    pCand->idxFlags = pInfo->idxFlags;
    pCand->orderByConsumed = pInfo->orderByConsumed;
    memcpy(pCand->aUsage, pInfo->aConstraintUsage,
           sizeof(pInfo->aConstraintUsage[0]) * (size_t)pInfo->nConstraint);
  }
  sqlite3_free(sqlite3_str_finish(p.pNote));
  sqlite3_free(p.aCons);
  return SQLITE_OK;
}

/*
** The plan in idxStr.
**
** idxStr is "<words>\0<code>": the words are what EXPLAIN QUERY PLAN
** shows, which ends at the first NUL; SQLite hands xFilter the same
** pointer (it frees it, needToFreeIdxStr, when the statement goes), so
** the code after that NUL reaches xFilter with nothing kept in between.
** The code is ASCII, "wc1" followed by ":<decimal>" for each of:
**
**   iPath          0 the row table, i the table of INDEX i - 1
**   flags          1 bAllPrefixes, 2 bMerge, 4 bDesc, 8 bEmpty,
**                  16 bFind (a table lookup, wcTableLookup)
**   nSkip nEqElem iRangeElem nEnumMax colUsed
**   nTerm          then iCol, eOp for each argv term (WC_TERM_*)
**   nSort          then iCol, bDesc for each term xFilter sorts by
**   nUnserved      then each column ranged over without a key range
**
** idxNum is iPath, so EXPLAIN shows which table is read; xFilter ignores
** it.  A code that does not read back against the table is an internal
** error, never a guess.
*/
#define WC_PLAN_VERSION "wc1"

/* The longest code: 8 fields up to nTerm, a pair per term, nSort and a
** pair per sort term, nUnserved and its columns, each at most 21
** characters (":" and 20 digits, or "-" and 19). */
#define WC_PLAN_CODE_MAX (sizeof(WC_PLAN_VERSION) + 21 * (8 + 2 * WC_MAX_TERM \
                          + 1 + 2 * WC_MAX_SORT + 1 + WC_HISTORY_MAX_COLS))

/* Writes ":<decimal>" of v at z; returns the characters written.  Done
** here: sqlite3_str_appendf() would cost more than the rest of planning
** a lookup. */
static int codeWrite(char *z, uint64_t v, int bNeg){
  int nDigit = rkDigitCount(v), n = 1 + bNeg;
  z[0] = ':';
  if( bNeg ) z[1] = '-';
  rkPadDecimal(v, nDigit, &z[n]);
  return n + nDigit;
}

static int codeInt64(char *z, int64_t v){
  return codeWrite(z, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

static char *planEncode(const char *zText, const WcPlan *pPlan){
  char zCode[WC_PLAN_CODE_MAX];
  size_t nText = strlen(zText);
  int i, n = (int)sizeof(WC_PLAN_VERSION) - 1;
  int flags = (pPlan->bAllPrefixes ? 1 : 0) | (pPlan->bMerge ? 2 : 0)
            | (pPlan->bDesc ? 4 : 0) | (pPlan->bEmpty ? 8 : 0)
            | (pPlan->bFind ? 16 : 0) | (pPlan->bInterrupted ? 32 : 0);
  char *zOut;
  wcAssert( pPlan->nTerm >= 0 && pPlan->nTerm <= WC_MAX_TERM );
  wcAssert( pPlan->nSort >= 0 && pPlan->nSort <= WC_MAX_SORT );
  wcAssert( pPlan->nUnserved >= 0
            && pPlan->nUnserved <= WC_HISTORY_MAX_COLS );
  wcAssert( pPlan->iPath >= 0 && pPlan->nSkip >= 0 && pPlan->nEqElem >= 0 );
  memcpy(zCode, WC_PLAN_VERSION, (size_t)n);
  n += codeInt64(&zCode[n], pPlan->iPath);
  n += codeInt64(&zCode[n], flags);
  n += codeInt64(&zCode[n], pPlan->nSkip);
  n += codeInt64(&zCode[n], pPlan->nEqElem);
  n += codeInt64(&zCode[n], pPlan->iRangeElem);
  n += codeInt64(&zCode[n], pPlan->nEnumMax);
  n += codeWrite(&zCode[n], pPlan->colUsed, 0);
  n += codeInt64(&zCode[n], pPlan->nTerm);
  for(i = 0; i < pPlan->nTerm; i++){
    n += codeInt64(&zCode[n], pPlan->aTerm[i].iCol);
    n += codeInt64(&zCode[n], pPlan->aTerm[i].eOp);
  }
  n += codeInt64(&zCode[n], pPlan->nSort);
  for(i = 0; i < pPlan->nSort; i++){
    n += codeInt64(&zCode[n], pPlan->aSort[i].iCol);
    n += codeInt64(&zCode[n], pPlan->aSort[i].bDesc);
  }
  n += codeInt64(&zCode[n], pPlan->nUnserved);
  for(i = 0; i < pPlan->nUnserved; i++){
    n += codeInt64(&zCode[n], pPlan->aiUnserved[i]);
  }
  wcAssert( (size_t)n < sizeof(zCode) );
  zOut = sqlite3_malloc64(nText + 1 + (size_t)n + 1);
  if( zOut ){
    memcpy(zOut, zText, nText + 1);
    memcpy(&zOut[nText + 1], zCode, (size_t)n);
    zOut[nText + 1 + n] = 0;
  }
  return zOut;
}

/* Reads the code one ":<decimal>" at a time, within [iMin, iMax]. */
typedef struct CodeReader CodeReader;
struct CodeReader {
  const char *z;
  int bBad;
};

static uint64_t codeDigits(CodeReader *r, int *pbNeg){
  uint64_t v = 0;
  int nDigit = 0;
  *pbNeg = 0;
  if( r->bBad || *r->z != ':' ){
    r->bBad = 1;
    return 0;
  }
  r->z++;
  if( *r->z == '-' ){
    *pbNeg = 1;
    r->z++;
  }
  for(; *r->z >= '0' && *r->z <= '9'; nDigit++){
    unsigned d = (unsigned)(*r->z++ - '0');
    if( v > (UINT64_MAX - d) / 10 ) r->bBad = 1;
    v = v * 10 + d;
  }
  if( nDigit == 0 ) r->bBad = 1;
  return r->bBad ? 0 : v;
}

/* Out of range, or after an error: 0, which every field can hold, so the
** plan stays safe to look at until it is thrown away. */
static int64_t codeInt(CodeReader *r, int64_t iMin, int64_t iMax){
  int bNeg;
  uint64_t u = codeDigits(r, &bNeg);
  int64_t v;
  if( u > (uint64_t)INT64_MAX ) r->bBad = 1;
  v = bNeg ? -(int64_t)u : (int64_t)u;
  if( v < iMin || v > iMax ) r->bBad = 1;
  return r->bBad ? 0 : v;
}

/* The invariants a plan holds (wc_plan.h) over key pS of the path it
** scans, as xBestIndex makes them: the skipped, fixed and ranged elements
** in key order within the key; what only a skip scan does, only with one;
** a lookup's one term. */
static void planCheck(const WcSchema *pS, const WcPlan *pPlan){
  int i;
  (void)pS;
  wcAssert( pPlan->nSkip + pPlan->nEqElem <= pS->nElem );
  wcAssert( pPlan->iRangeElem < 0
            || pPlan->iRangeElem == pPlan->nSkip + pPlan->nEqElem );
  wcAssert( pPlan->nSkip > 0 || (!pPlan->bMerge && !pPlan->bAllPrefixes
                                 && pPlan->nEnumMax == 0) );
  wcAssert( !pPlan->bFind || pPlan->nTerm == 1 );
  for(i = 0; i < pPlan->nTerm; i++){
    wcAssert( pPlan->aTerm[i].eOp >= WC_TERM_EQ
              && pPlan->aTerm[i].eOp <= WC_TERM_WINDOW );
  }
}

int wcPlanDecode(WcVtab *pTab, const char *idxStr, WcPlan *pPlan){
  CodeReader r;
  const WcSchema *pS;
  int i, flags, bNeg;
  memset(pPlan, 0, sizeof(*pPlan));
  r.z = idxStr ? idxStr + strlen(idxStr) + 1 : "";
  r.bBad = idxStr == 0
        || strncmp(r.z, WC_PLAN_VERSION, sizeof(WC_PLAN_VERSION) - 1) != 0;
  r.z += r.bBad ? 0 : sizeof(WC_PLAN_VERSION) - 1;
  pPlan->iPath = (int)codeInt(&r, 0, pTab->nPath - 1);
  pS = pTab->aPath[pPlan->iPath].pKey;
  flags = (int)codeInt(&r, 0, 63);
  pPlan->bAllPrefixes = (flags & 1) != 0;
  pPlan->bMerge = (flags & 2) != 0;
  pPlan->bDesc = (flags & 4) != 0;
  pPlan->bEmpty = (flags & 8) != 0;
  pPlan->bFind = (flags & 16) != 0;
  pPlan->bInterrupted = (flags & 32) != 0;
  pPlan->nSkip = (int)codeInt(&r, 0, pS->nElem);
  pPlan->nEqElem = (int)codeInt(&r, 0, pS->nElem - pPlan->nSkip);
  pPlan->iRangeElem = (int)codeInt(&r, -1, pS->nElem - 1);
  pPlan->nEnumMax = codeInt(&r, 0, INT64_MAX);
  pPlan->colUsed = codeDigits(&r, &bNeg);
  if( bNeg ) r.bBad = 1;
  pPlan->nTerm = (int)codeInt(&r, 0, WC_MAX_TERM);
  for(i = 0; i < pPlan->nTerm; i++){
    pPlan->aTerm[i].iCol = (int)codeInt(&r, 0, WC_COL_ASOF(pS));
    pPlan->aTerm[i].eOp = (int)codeInt(&r, WC_TERM_EQ, WC_TERM_WINDOW);
  }
  pPlan->nSort = (int)codeInt(&r, 0, WC_MAX_SORT);
  for(i = 0; i < pPlan->nSort; i++){
    pPlan->aSort[i].iCol = (int)codeInt(&r, 0, pS->nCol);
    pPlan->aSort[i].bDesc = (int)codeInt(&r, 0, 1);
  }
  pPlan->nUnserved = (int)codeInt(&r, 0, WC_HISTORY_MAX_COLS);
  for(i = 0; i < pPlan->nUnserved; i++){
    pPlan->aiUnserved[i] = (int)codeInt(&r, 0, pS->nCol - 1);
  }
  if( r.bBad || *r.z != 0 ){
    memset(pPlan, 0, sizeof(*pPlan));
    return wcVtabError(&pTab->base, SQLITE_INTERNAL, "widecol %s: the query plan "
                       "SQLite handed to xFilter could not be read back; "
                       "please report this with the statement",
                       pTab->store.zName);
  }
  if( !pPlan->bFind ) planCheck(pS, pPlan);
  return SQLITE_OK;
}

/* The columns the statement ranges over that no key could serve, less
** those the plan narrows by after all, into the plan. */
static void planUnserved(WcPlan *pPlan, const int *aiCol, int nCol){
  int i, j;
  for(i = 0; i < nCol; i++){
    for(j = 0; j < pPlan->nTerm; j++){
      if( pPlan->aTerm[j].iCol == aiCol[i]
       && pPlan->aTerm[j].eOp >= WC_TERM_GT
       && pPlan->aTerm[j].eOp <= WC_TERM_GLOB ){
        break;
      }
    }
    if( j == pPlan->nTerm ) pPlan->aiUnserved[pPlan->nUnserved++] = aiCol[i];
  }
}

/* widecol_table(rowkey, ?1): the plan of a table lookup. */
static int planFind(sqlite3_index_info *pInfo, int iCons){
  WcPlan plan;
  memset(&plan, 0, sizeof(plan));
  plan.bFind = 1;
  plan.nTerm = 1;
  plan.aTerm[0].iCol = pInfo->aConstraint[iCons].iColumn;
  plan.aTerm[0].eOp = WC_TERM_EQ;
  plan.iRangeElem = -1;
  memset(pInfo->aConstraintUsage, 0,
         sizeof(pInfo->aConstraintUsage[0]) * (size_t)pInfo->nConstraint);
  pInfo->aConstraintUsage[iCons].argvIndex = 1;
  pInfo->aConstraintUsage[iCons].omit = 1;
  pInfo->estimatedCost = 1.0;
  pInfo->estimatedRows = 1;
  pInfo->idxNum = 0;
  pInfo->idxStr = planEncode("TABLE LOOKUP", &plan);
  pInfo->needToFreeIdxStr = 1;
  return pInfo->idxStr ? SQLITE_OK : SQLITE_NOMEM;
}

/* A constraint's operator, for a message about versions or asof; an '='
** is refused only when it is an IN. */
static const char *opText(const struct sqlite3_index_constraint *pC){
  switch( pC->op ){
    case SQLITE_INDEX_CONSTRAINT_EQ: return "IN (...)";
    case SQLITE_INDEX_CONSTRAINT_GT: return ">";
    case SQLITE_INDEX_CONSTRAINT_GE: return ">=";
    case SQLITE_INDEX_CONSTRAINT_LT: return "<";
    case SQLITE_INDEX_CONSTRAINT_LE: return "<=";
    case SQLITE_INDEX_CONSTRAINT_NE: return "!=";
    case SQLITE_INDEX_CONSTRAINT_IS: return "IS";
    case SQLITE_INDEX_CONSTRAINT_ISNOT: return "IS NOT";
    case SQLITE_INDEX_CONSTRAINT_ISNULL: return "IS NULL";
    case SQLITE_INDEX_CONSTRAINT_ISNOTNULL: return "IS NOT NULL";
    case SQLITE_INDEX_CONSTRAINT_LIKE: return "LIKE";
    case SQLITE_INDEX_CONSTRAINT_GLOB: return "GLOB";
    case SQLITE_INDEX_CONSTRAINT_REGEXP: return "REGEXP";
    case SQLITE_INDEX_CONSTRAINT_MATCH: return "MATCH";
    default: return "a function";
  }
}

/* True if colUsed has column iCol's own bit (not the one bit 63 that
** stands for every column from 63 on). */
static int usedBit(const sqlite3_index_info *pInfo, int iCol){
  return iCol < 63 && (pInfo->colUsed & ((sqlite3_uint64)1 << iCol)) != 0;
}

/* Finds versions = n and asof = t.  Any other use of them is an error
** saying how to use them; an '=' whose value SQLite cannot give yet (it
** comes from a table joined later) makes this plan impossible
** (SQLITE_CONSTRAINT), so SQLite picks an order where it can. */
static int findVersionTerms(WcVtab *pTab, sqlite3_index_info *pInfo,
                            VersionTerms *pVt){
  const WcSchema *pS = pTab->pSchema;
  int i, bWaiting = 0;
  pVt->iVersions = pVt->iAsof = -1;
  if( !pS->bVersioned ) return SQLITE_OK;
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int bVersions = pC->iColumn == WC_COL_VERSIONS(pS);
    int *piSlot = bVersions ? &pVt->iVersions : &pVt->iAsof;
    if( !bVersions && pC->iColumn != WC_COL_ASOF(pS) ) continue;
    if( pC->op != SQLITE_INDEX_CONSTRAINT_EQ || sqlite3_vtab_in(pInfo, i, -1) ){
      char *zHow = sqlite3_mprintf("not with %s", opText(pC));
      char *zMsg = zHow ? wcVersionParamMisuse(pTab->store.zName, bVersions, zHow)
                        : 0;
      sqlite3_free(zHow);
      if( zMsg == 0 ) return SQLITE_NOMEM;
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = zMsg;
      return SQLITE_ERROR;
    }
    if( !pC->usable ){
      bWaiting = 1;
    }else if( *piSlot < 0 ){
      *piSlot = i;
    }
  }
  if( bWaiting ) return SQLITE_CONSTRAINT;
  /* The statement reads versions or asof (colUsed says so) but this call
  ** has no '=' on it, yet has other constraints: one branch of an OR that
  ** SQLite would read branch by branch, keeping the first row of each
  ** primary key, which would drop versions that share a rowkey.  No
  ** plan, so SQLite reads the OR whole.  (An UPDATE reads every column;
  ** where the bits of the hidden columns are past colUsed's 63, there is
  ** nothing to tell: docs/widecol.md.) */
  if( pInfo->nConstraint > 0 && ~pInfo->colUsed != 0 ){
    if( (pVt->iVersions < 0 && usedBit(pInfo, WC_COL_VERSIONS(pS)))
     || (pVt->iAsof < 0 && usedBit(pInfo, WC_COL_ASOF(pS))) ){
      return SQLITE_CONSTRAINT;
    }
  }
  return SQLITE_OK;
}

/* True if a usable constraint, or an ORDER BY term, names a column the
** key of path iPath is made from: an index path is planned only then, as
** only then can it narrow the rows or give their order (planPath()'s
** bUseful); the others cost xBestIndex time for nothing. */
static int pathMentioned(const WcVtab *pTab, const sqlite3_index_info *pInfo,
                         int iPath){
  const WcSchema *pKey = pTab->aPath[iPath].pKey;
  int i;
  for(i = 0; i < pInfo->nConstraint; i++){
    int iCol = pInfo->aConstraint[i].iColumn;
    if( pInfo->aConstraint[i].usable && iCol >= 0 && iCol < pKey->nCol
     && pKey->aCol[iCol].bKey ){
      return 1;
    }
  }
  for(i = 0; i < pInfo->nOrderBy; i++){
    int iCol = pInfo->aOrderBy[i].iColumn;
    if( iCol >= 0 && iCol < pKey->nCol && pKey->aCol[iCol].bKey ) return 1;
  }
  return 0;
}

/* Plans a scan of the row table and of each index table; the cheapest
** wins (the row table on a tie). */
/* True if the application registered a zName() of its own (ICU's, one
** of its own, or PRAGMA case_sensitive_like's like()), which SQLite calls
** in place of its own.  SQLite then narrows no ordinary table by a LIKE or
** GLOB: the function's matches need not share the pattern's prefix.
** Where the pragma cannot say, it is assumed so. */
static int functionReplaced(sqlite3 *db, const char *zName){
  return wcAskRow(db, "SELECT 1 FROM pragma_function_list WHERE name = ?1 "
                  "COLLATE NOCASE AND builtin = 0", zName, 1);
}

/* WC_REPLACED_LIKE and WC_REPLACED_GLOB for the LIKE and GLOB
** constraints pInfo has, if their functions are the application's. */
static int replacedMatchers(sqlite3 *db, sqlite3_index_info *pInfo){
  int i, mHas = 0, mReplaced = 0;
  for(i = 0; i < pInfo->nConstraint; i++){
    int op = pInfo->aConstraint[i].op;
    if( op == SQLITE_INDEX_CONSTRAINT_LIKE ) mHas |= WC_REPLACED_LIKE;
    if( op == SQLITE_INDEX_CONSTRAINT_GLOB ) mHas |= WC_REPLACED_GLOB;
  }
  if( (mHas & WC_REPLACED_LIKE) && functionReplaced(db, "like") ){
    mReplaced |= WC_REPLACED_LIKE;
  }
  if( (mHas & WC_REPLACED_GLOB) && functionReplaced(db, "glob") ){
    mReplaced |= WC_REPLACED_GLOB;
  }
  return mReplaced;
}

int wcBestIndex(WcVtab *pTab, sqlite3_index_info *pInfo){
  size_t nUsage = sizeof(pInfo->aConstraintUsage[0])
                * (size_t)(pInfo->nConstraint + 1);
  Candidate best, cand;
  VersionTerms vt;
  int aiUnserved[WC_HISTORY_MAX_COLS];
  int iPath, i, nUnserved, mReplaced, rc = SQLITE_OK;
  for(i = 0; i < pInfo->nConstraint; i++){
    if( pInfo->aConstraint[i].op == WC_CONSTRAINT_FIND
     && pInfo->aConstraint[i].usable ){
      return planFind(pInfo, i);
    }
  }
  rc = findVersionTerms(pTab, pInfo, &vt);
  if( rc != SQLITE_OK ) return rc;
  mReplaced = replacedMatchers(pTab->store.db, pInfo);
  nUnserved = wcHistoryQuery(pTab->pHistory, pTab->pSchema, pInfo,
                             aiUnserved);
  memset(&best, 0, sizeof(best));
  memset(&cand, 0, sizeof(cand));
  best.aUsage = sqlite3_malloc64(nUsage);
  cand.aUsage = sqlite3_malloc64(nUsage);
  if( best.aUsage == 0 || cand.aUsage == 0 ) rc = SQLITE_NOMEM;
  for(iPath = 0; rc == SQLITE_OK && iPath < pTab->nPath; iPath++){
    struct sqlite3_index_constraint_usage *aSwap;
    cand.zText = 0;
    if( iPath > 0 && !pathMentioned(pTab, pInfo, iPath) ) continue;
    rc = planPath(pTab, pInfo, iPath, &vt, mReplaced, &cand);
    if( rc != SQLITE_OK || cand.zText == 0 ) continue;
    if( best.zText && cand.rCompare >= best.rCompare ){
      sqlite3_free(cand.zText);
      continue;
    }
    sqlite3_free(best.zText);
    aSwap = best.aUsage;
    best = cand;
    cand.aUsage = aSwap;
    /* One row by its whole row key: no index can read less. */
    if( iPath == 0 && (best.idxFlags & SQLITE_INDEX_SCAN_UNIQUE) ) break;
  }
  sqlite3_free(cand.aUsage);
  if( rc == SQLITE_OK ){
    memcpy(pInfo->aConstraintUsage, best.aUsage,
           sizeof(pInfo->aConstraintUsage[0]) * (size_t)pInfo->nConstraint);
    pInfo->orderByConsumed = best.orderByConsumed;
    pInfo->idxFlags = best.idxFlags;
    pInfo->estimatedCost = best.rCost;
    pInfo->estimatedRows = best.nRow;
    planUnserved(&best.plan, aiUnserved, nUnserved);
    pInfo->idxNum = best.plan.iPath;
    pInfo->idxStr = planEncode(best.zText, &best.plan);
    pInfo->needToFreeIdxStr = 1;
    if( pInfo->idxStr == 0 ) rc = SQLITE_NOMEM;
  }
  sqlite3_free(best.zText);
  sqlite3_free(best.aUsage);
  return rc;
}
