/*
** widecol.h: the public interface of widecol, installed with the
** libraries (make install).  widecol is an SQLite extension for
** prototyping wide-column row-key designs; everything it offers is SQL
** (docs/reference.md).  This header gives its version and its one entry
** point.
**
** As a loadable extension:
**     .load /usr/local/lib/widecol                      (the sqlite3 shell)
**     sqlite3_load_extension(db, "/usr/local/lib/widecol", 0, &zErr);
**
** Embedded: link libwidecol.a (pkg-config --libs widecol), which is built
** with SQLITE_CORE defined, as SQLite's own extensions are when compiled
** into an application, and register it for every connection opened after:
**     sqlite3_auto_extension((void(*)(void))sqlite3_widecol_init);
** (examples/embed.c).
*/
#ifndef WIDECOL_H
#define WIDECOL_H

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version, semantic versioning (CHANGELOG.md).  This is the one
** place it is written: widecol_version(), the Python package and
** `make dist` read it from here. */
#define WIDECOL_VERSION "1.1.1"

/* Registers widecol's functions and modules on db.  pApi is the table a
** loader passes; embedded (SQLITE_CORE), it is not used and may be 0. */
int sqlite3_widecol_init(sqlite3 *db, char **pzErrMsg,
                         const sqlite3_api_routines *pApi);

#ifdef __cplusplus
}
#endif

#endif /* WIDECOL_H */
