/*
** wc_cql.h: the CQL table a design means, written once: its primary key
** (the partition key, then the clustering columns, each ascending or
** descending) and each column's CQL type.  widecol_ddl() prints it
** (tools/wc_ddl.c), the statement history checks statements against
** Cassandra's rules on it (vtab/wc_history.c), and the Cassandra store
** makes it (stores/cassandra/).
*/
#ifndef WIDECOL_WC_CQL_H
#define WIDECOL_WC_CQL_H

#include "key/wc_schema.h"

/* What ends an INDEX's table's key after the index key's fields: the
** row key's fields it does not hold yet, as a user designs such a table
** (eBay's User_By_Item beside Item_By_User); or the row key's bytes, one
** blob column, as widecol's Cassandra store keeps entries (any row key
** fits it, and entries sort by it as widecol's index keys do). */
#define WC_CQL_ROW_FIELDS 0
#define WC_CQL_ROW_BYTES  1

/* Pseudo-columns of a key, beside the design's columns. */
#define WC_CQL_ROWKEY (-1)  /* An index entry's row key (WC_CQL_ROW_BYTES) */
#define WC_CQL_RANDOM (-2)  /* RANDOM's number, which the application fills */

typedef struct WcCqlKey WcCqlKey;
struct WcCqlKey {
  int nPart;            /* aiCol[0..nPart): the partition key's columns */
  int nCol;             /* aiCol[nPart..nCol): the clustering columns */
  int *aiCol;           /* Columns of the design, or WC_CQL_* */
  unsigned char *abDesc;    /* Per entry of aiCol: clustered descending */
};

/* The key of the CQL table of design pS (iIndex -1), or of its INDEX
** iIndex's table, ending as eRow says (WC_CQL_ROW_*).  The partition key
** is a leading TOKEN's columns (the PRIMARY KEY form), else the first
** field; the clustering columns are the other fields in key order, each
** once, then RANDOM's number.  SQLITE_OK or SQLITE_NOMEM;
** wcCqlKeyFree() frees what it holds. */
int wcCqlKey(const WcSchema *pS, int iIndex, int eRow, WcCqlKey *pOut);
void wcCqlKeyFree(WcCqlKey *p);

/* The CQL type of a column of affinity cAff: "bigint", "text", "double",
** "decimal" or "blob". */
const char *wcCqlType(char cAff);

/* The columns the Cassandra store adds to the design's: an index entry's
** row key, a versioned row's write time, every row's stamps. */
#define WC_CQL_ROWKEY_NAME  "rowkey"
#define WC_CQL_ROWTIME_NAME "rowtime"

/* Appends the CREATE TABLE IF NOT EXISTS zName (...) that the Cassandra
** store runs for design pS's row table (iIndex -1) or INDEX iIndex's
** table: an index's entry row key first (a blob), the columns the table
** holds, a versioned table's write time, the stamps (_stamp, a blob);
** the key wcCqlKey() gives with the row key as bytes, an index's ended by
** the stamps; clustering orders; the comment zComment (a CQL string
** literal, or NULL for none) and the TTL.  widecol_ddl(t, 'cql') prints
** what this writes, and the store runs it: one text for both. */
int wcCqlCreate(sqlite3_str *pStr, const WcSchema *pS, int iIndex,
                const char *zName, const char *zComment);

#endif /* WIDECOL_WC_CQL_H */
