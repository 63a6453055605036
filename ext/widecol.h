/*
** widecol.h: declarations shared by the C files of the widecol extension.
**
** Every file that calls the SQLite API includes this header, which routes
** those calls through the sqlite3_api table the loader hands to
** sqlite3_widecol_init (defined once, in widecol.c).
*/
#ifndef WIDECOL_H
#define WIDECOL_H

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#define WIDECOL_VERSION "0.1.0"

/* The entry point `.load ./widecol` looks for. */
int sqlite3_widecol_init(sqlite3 *db, char **pzErrMsg,
                         const sqlite3_api_routines *pApi);

#endif /* WIDECOL_H */
