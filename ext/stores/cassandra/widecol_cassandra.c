/*
** widecol_cassandra.c: entry point of widecol_cassandra.so, widecol's
** Cassandra store.  A library of its own, as the Bigtable and HBase stores
** are; it needs nothing beyond what widecol.so does (its CQL client is
** cq_wire.c).  Load both (`.load ./widecol`, then `.load
** ./widecol_cassandra`); a widecol table with STORAGE CASSANDRA
** 'keyspace.table' then keeps its rows in the Cassandra WIDECOL_CASSANDRA
** names.
*/
#include "util/wc_api.h"
#include "stores/cassandra/cq_table.h"

int sqlite3_widecolcassandra_init(sqlite3 *db, char **pzErrMsg,
                                  const sqlite3_api_routines *pApi);

WC_EXPORT int sqlite3_widecolcassandra_init(sqlite3 *db, char **pzErrMsg,
                                            const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  return cqRegister(db, pzErrMsg);
}
