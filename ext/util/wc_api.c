/*
** wc_api.c: the one definition of sqlite3_api, the table of SQLite's
** routines a loadable library calls through (wc_api.h).
**
** It lives at the bottom layer, not in an entry point, so that every file
** of a library reaches it downwards: widecol.so and widecol_bigtable.so
** each link this file once and their entry points fill the table
** (SQLITE_EXTENSION_INIT2).  Built with SQLITE_CORE it defines nothing.
*/
#include "util/wc_api.h"

SQLITE_EXTENSION_INIT1
