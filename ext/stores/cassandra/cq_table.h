/*
** cq_table.h: the module widecol_cassandra (cq_table.c), which keeps a
** widecol table's rows in Cassandra as the CQL table its design means.
*/
#ifndef WIDECOL_CQ_TABLE_H
#define WIDECOL_CQ_TABLE_H

#include "sqlite3ext.h"

/* Registers widecol_cassandra on db, whose tables share one connection
** to the node WIDECOL_CASSANDRA names.  SQLITE_OK, or an error (*pzErrMsg
** set) where widecol is not loaded. */
int cqRegister(sqlite3 *db, char **pzErrMsg);

#endif /* WIDECOL_CQ_TABLE_H */
