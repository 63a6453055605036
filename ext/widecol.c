/*
** widecol.c: entry point of the widecol SQLite extension.
**
** widecol prototypes wide-column (HBase, Cassandra, Lindorm, MapR-DB)
** row-key designs in plain SQL.  Everything it adds to a connection is
** listed here, in aFunc[] and aMod[], and registered by
** sqlite3_widecol_init(); `.load ./widecol` in the sqlite3 shell finds
** that entry point by the library's file name.
**
** Shared state: none between tables or connections.  The objects a
** registration owns are the MD5 contexts of the rk_* functions that hash
** (one per function, freed by SQLite when the function is replaced or the
** connection closes) and the connection's clock (wc_clock.h), which
** widecol_clock() and the widecol module share and a later load of the
** extension on the connection takes over.  The tools find a table by schema
** and name through SQL (wc_table.h), so loading the extension again on a
** connection replaces the registrations and every function keeps working.
** One setting is the process's, as standard error is: whether long
** statements print progress lines there (widecol_progress(), wc_progress.h).
*/
#include "util/wc_api.h"
#include "key/rk_functions.h"
#include "key/rk_hash.h"
#include "tools/wc_tools.h"
#include "vtab/wc_table.h"
#include "tools/wc_tvf.h"
#include "vtab/wc_clock.h"
#include "vtab/wc_module.h"
#include "util/wc_progress.h"
#include "util/wc_kind.h"

#include <stddef.h>


/* Pure functions: the same arguments always give the same result. */
#define WC_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
/* Functions that find tables by name and run SQL on them. */
#define WC_DIRECT (SQLITE_UTF8 | SQLITE_DIRECTONLY)
/* Functions that read the connection's clock: harmless anywhere, but not
** the same from call to call. */
#define WC_READS_CLOCK (SQLITE_UTF8 | SQLITE_INNOCUOUS)

/* What a registration is given as its user data (client data). */
#define WC_DATA_NONE  0
#define WC_DATA_HASH  1     /* An MD5 context of its own */
#define WC_DATA_CLOCK 2     /* The connection's clock */
#define WC_DATA_HOST  3     /* This entry point (widecol_report builds the
                            ** advisor's designs on a connection of its own) */

/* widecol_help(): the whole surface on one screen, with where to read
** more; the stores' lines come from their rows of util/wc_kind.c.
** tests/packaging/docs_check.py checks that it names every function and
** module registered below. */
static const char zHelpHead[] =
"widecol " WIDECOL_VERSION ": wide-column row-key designs (HBase, Bigtable,"
" Cassandra) in SQLite\n"
"\n"
"CREATE VIRTUAL TABLE t USING widecol(columns..., ROWKEY(element, ...), "
"option, ...)\n"
"  element  col [PAD n ['fill']] [DESC [max]] [REVERSE] | SALT(n, col, ...)"
" | BUCKET(n, col)\n"
"           | TOKEN(col, ...) | RANDOM(n), last\n"
"  or       PRIMARY KEY ((partition cols), clustering col [ASC|DESC], ...)"
" (Cassandra's form)\n"
"  option   INDEX name(element, ...) [INCLUDE (col, ...)] | FAMILY "
"name(col, ...)\n"
"           | DELIMITER 'x' | ENCODING TEXT|BINARY | VERSIONS n | TTL "
"seconds | SPLITS ('k', ...)\n";

static const char zHelpTail[] =
"  hidden   rowkey; with VERSIONS or TTL: rowtime, versions, asof, and "
"t_versions\n"
"\n"
"Row-key functions\n"
"  rk_pad(x, width[, fill])  rk_desc(x[, max])  rk_undesc(x)  "
"rk_salt(key, n)  rk_unsalt(key, n)\n"
"  rk_bucket(key, buckets)  rk_md5(x)  rk_token(v, ...)  rk_reverse(x)  "
"rk_join(delimiter, value, ...)\n"
"  rk_part(key, delimiter, n)  rk_prefix_end(prefix)\n"
"\n"
"Design tools\n"
"  widecol_advise(source, workload[, settings])  designs built and "
"measured on your rows\n"
"  widecol_lint(table)                           the guides' checklist, "
"on the data\n"
"  widecol_regions(sql, max_rows|policy[, recent])  keys through HBase "
"region splits\n"
"  widecol_ring(sql, nodes[, vnodes[, seed]])    partitions on a "
"Cassandra ring\n"
"  widecol_ddl(table, 'hbase'|'bigtable'|'cql'[, regions])   the design "
"on a cluster\n"
"  widecol_report(table[, workload[, options]])  the design as one HTML "
"page: key anatomy, heatmap, regions\n"
"  widecol_check(table)  widecol_stats(table[, reset])  "
"widecol_compact(table)\n"
"  widecol_clock([micros])  widecol_now()  widecol_progress([on])  "
"widecol_version()  widecol_help()\n"
"Docs: docs/tutorial.md (start here), docs/reference.md (every "
"signature), docs/choosing-a-design.md,\n"
"docs/widecol.md, docs/design-tools.md";

static void helpFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  sqlite3_str *pOut = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  int i;
  (void)argc;
  (void)argv;
  sqlite3_str_appendall(pOut, zHelpHead);
  wcKindAppendStorage(pOut, "  storage  STORAGE ", "\n           | STORAGE ",
                      "\n           | STORAGE ", 1);
  sqlite3_str_appendall(pOut, "\n");
  sqlite3_str_appendall(pOut, zHelpTail);
  for(i = 0; i < WC_STORE_KINDS; i++){
    if( wcKindTable[i].zWord ){
      sqlite3_str_appendf(pOut, ", %s", wcKindTable[i].zDocs);
    }
  }
  sqlite3_str_appendall(pOut, ": in the source tree, or "
                              "<prefix>/share/doc/widecol\n");
  if( sqlite3_str_errcode(pOut) ){
    sqlite3_free(sqlite3_str_finish(pOut));
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, sqlite3_str_finish(pOut), -1, sqlite3_free);
}

static const struct {
  const char *zName;
  signed char nArg;
  int eFlags;
  unsigned char eData;      /* WC_DATA_* */
  void (*xFunc)(sqlite3_context*, int, sqlite3_value**);
} aFunc[] = {
  { "rk_pad",          2, WC_PURE,   0, rkPadFunc       },
  { "rk_pad",          3, WC_PURE,   0, rkPadFunc       },
  { "rk_desc",         1, WC_PURE,   0, rkDescFunc      },
  { "rk_desc",         2, WC_PURE,   0, rkDescFunc      },
  { "rk_undesc",       1, WC_PURE,   0, rkUndescFunc    },
  { "rk_salt",         2, WC_PURE,   WC_DATA_HASH, rkSaltFunc },
  { "rk_unsalt",       2, WC_PURE,   WC_DATA_HASH, rkUnsaltFunc },
  { "rk_bucket",       2, WC_PURE,   WC_DATA_HASH, rkBucketFunc },
  { "rk_md5",          1, WC_PURE,   WC_DATA_HASH, rkMd5Func },
  { "rk_token",       -1, WC_PURE,   0, rkTokenFunc     },
  { "rk_reverse",      1, WC_PURE,   0, rkReverseFunc   },
  { "rk_join",        -1, WC_PURE,   0, rkJoinFunc      },
  { "rk_part",         3, WC_PURE,   0, rkPartFunc      },
  { "rk_prefix_end",   1, WC_PURE,   0, rkPrefixEndFunc },
  { "widecol_version", 0, WC_PURE,   0, rkVersionFunc   },
  { "widecol_help",    0, WC_PURE,   0, helpFunc        },
  { "widecol_stats",   1, WC_DIRECT, 0, wcStatsFunc     },
  { "widecol_stats",   2, WC_DIRECT, 0, wcStatsFunc     },
  { "widecol_compact", 1, WC_DIRECT, 0, wcCompactFunc   },
  { "widecol_ddl",     2, WC_DIRECT, 0, wcDdlFunc       },
  { "widecol_ddl",     3, WC_DIRECT, 0, wcDdlFunc       },
  { "widecol_report",  1, WC_DIRECT, WC_DATA_HOST, wcReportFunc },
  { "widecol_report",  2, WC_DIRECT, WC_DATA_HOST, wcReportFunc },
  { "widecol_report",  3, WC_DIRECT, WC_DATA_HOST, wcReportFunc },
  { "widecol_clock",   0, WC_DIRECT, WC_DATA_CLOCK, wcClockFunc },
  { "widecol_clock",   1, WC_DIRECT, WC_DATA_CLOCK, wcClockFunc },
  { "widecol_now",     0, WC_READS_CLOCK, WC_DATA_CLOCK, wcNowFunc },
  { "widecol_progress", 0, WC_DIRECT, 0, wcProgressFunc  },
  { "widecol_progress", 1, WC_DIRECT, 0, wcProgressFunc  },
  { WC_TABLE_FUNC,     2, WC_DIRECT, 0, wcTableFunc     },
};

/* widecol_report's user data: this entry point (wc_tools.h). */
static const WcReportHost reportHost = { sqlite3_widecol_init };

/* The tools' client data: each its definition, and this entry point for
** a tool that opens a connection of its own (wc_tvf.h). */
#define WC_TOOL(def) &(const WcTvfHost){ &def, sqlite3_widecol_init }

static const struct {
  const char *zName;
  const sqlite3_module *pModule;
  const void *pAux;         /* The module's client data, */
  unsigned char eData;      /* or WC_DATA_CLOCK */
} aMod[] = {
  { "widecol",         &wcModule,    0,                     WC_DATA_CLOCK },
  { "widecol_check",   &wcTvfModule, WC_TOOL(wcCheckDef),   WC_DATA_NONE  },
  { "widecol_lint",    &wcTvfModule, WC_TOOL(wcLintDef),    WC_DATA_NONE  },
  { "widecol_regions", &wcTvfModule, WC_TOOL(wcRegionsDef), WC_DATA_NONE  },
  { "widecol_ring",    &wcTvfModule, WC_TOOL(wcRingDef),    WC_DATA_NONE  },
  { "widecol_advise",  &wcTvfModule, WC_TOOL(wcAdviseDef),  WC_DATA_NONE  },
};

WC_EXPORT int sqlite3_widecol_init(sqlite3 *db, char **pzErrMsg,
                                   const sqlite3_api_routines *pApi){
  size_t i;
  int rc = SQLITE_OK;
  WcClock *pClock;
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  pClock = wcClockAttach(db);
  if( pClock == 0 ) return SQLITE_NOMEM;
  /* Held until the registrations below hold it. */
  wcClockRef(pClock);
  for(i = 0; rc == SQLITE_OK && i < sizeof(aFunc) / sizeof(aFunc[0]); i++){
    void *pData = 0;
    void (*xDestroy)(void*) = 0;
    if( aFunc[i].eData == WC_DATA_HASH ){
      /* Without MD5 (OpenSSL in FIPS mode) the function loads and says so
      ** when called, so that the others stay usable. */
      pData = rkHasherNew();
      xDestroy = pData ? rkHasherFree : 0;
    }else if( aFunc[i].eData == WC_DATA_HOST ){
      pData = (void*)&reportHost;
    }else if( aFunc[i].eData == WC_DATA_CLOCK ){
      wcClockRef(pClock);
      pData = pClock;
      xDestroy = wcClockUnref;
    }
    rc = sqlite3_create_function_v2(db, aFunc[i].zName, aFunc[i].nArg,
                                    aFunc[i].eFlags, pData, aFunc[i].xFunc,
                                    0, 0, xDestroy);
  }
  for(i = 0; rc == SQLITE_OK && i < sizeof(aMod) / sizeof(aMod[0]); i++){
    if( aMod[i].eData == WC_DATA_CLOCK ){
      wcClockRef(pClock);
      rc = sqlite3_create_module_v2(db, aMod[i].zName, aMod[i].pModule,
                                    pClock, wcClockUnref);
    }else{
      rc = sqlite3_create_module_v2(db, aMod[i].zName, aMod[i].pModule,
                                    (void*)aMod[i].pAux, 0);
    }
  }
  wcClockUnref(pClock);
  return rc;
}
