/*
** wc_api.h: included first by every C file of the widecol extension.
**
** Built as a loadable extension, SQLite API calls go through the
** sqlite3_api table the loader hands to sqlite3_widecol_init (defined
** once, in util/wc_api.c).  Built with SQLITE_CORE (libwidecol.a, linked
** into an application beside SQLite), sqlite3ext.h makes them direct
** calls and the table does not exist: WC_API_ROUTINES is what to hand
** sqlite3_widecol_init for a connection the extension opens itself.
*/
#ifndef WIDECOL_WC_API_H
#define WIDECOL_WC_API_H

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "widecol.h"

/* The invariants the comments state (a plan's fields in range, buffer
** sizes, reference counts), checked where WC_DEBUG is defined (make asan
** and a debug build: make CFLAGS='-O0 -g -DWC_DEBUG'), compiled out of the
** release build. */
#ifdef WC_DEBUG
# include <assert.h>
# define wcAssert(x) assert(x)
#else
# define wcAssert(x) ((void)0)
#endif

/* Marks a library's entry point, the one symbol it exports: everything
** else is compiled with -fvisibility=hidden (tests/packaging/exports.sh
** checks it). */
#ifdef _WIN32
# define WC_EXPORT __declspec(dllexport)
#else
# define WC_EXPORT __attribute__((visibility("default")))
#endif

#ifdef SQLITE_CORE
# define WC_API_ROUTINES 0
#else
# define WC_API_ROUTINES sqlite3_api
#endif

#endif /* WIDECOL_WC_API_H */
