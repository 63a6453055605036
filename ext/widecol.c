/*
** widecol.c: entry point of the widecol SQLite extension.
**
** widecol prototypes wide-column (HBase, Cassandra, Lindorm, MapR-DB)
** row-key designs in plain SQL.  Everything it adds to a connection is
** listed here, in aFunc[] and aMod[], and registered by
** sqlite3_widecol_init(); `.load ./widecol` in the sqlite3 shell finds
** that entry point by the library's file name.
**
** Shared state: none between tables, connections or loads.  The only
** objects a registration owns are the MD5 contexts of the rk_* functions
** that hash (one per function, freed by SQLite when the function is
** replaced or the connection closes).  The tools find a table by schema
** and name through SQL (wc_table.h), so loading the extension again on a
** connection replaces the registrations and every function keeps working.
*/
#include "widecol.h"
#include "rk_functions.h"
#include "rk_hash.h"
#include "wc_table.h"
#include "wc_tvf.h"
#include "wc_vtab.h"

#include <stddef.h>

SQLITE_EXTENSION_INIT1

/* Pure functions: the same arguments always give the same result. */
#define WC_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
/* Functions that find tables by name and run SQL on them. */
#define WC_DIRECT (SQLITE_UTF8 | SQLITE_DIRECTONLY)

static const struct {
  const char *zName;
  signed char nArg;
  int eFlags;
  unsigned char bHash;      /* Needs an MD5 context as its user data */
  void (*xFunc)(sqlite3_context*, int, sqlite3_value**);
} aFunc[] = {
  { "rk_pad",          2, WC_PURE,   0, rkPadFunc       },
  { "rk_pad",          3, WC_PURE,   0, rkPadFunc       },
  { "rk_desc",         1, WC_PURE,   0, rkDescFunc      },
  { "rk_desc",         2, WC_PURE,   0, rkDescFunc      },
  { "rk_undesc",       1, WC_PURE,   0, rkUndescFunc    },
  { "rk_salt",         2, WC_PURE,   1, rkSaltFunc      },
  { "rk_unsalt",       2, WC_PURE,   1, rkUnsaltFunc    },
  { "rk_bucket",       2, WC_PURE,   1, rkBucketFunc    },
  { "rk_md5",          1, WC_PURE,   1, rkMd5Func       },
  { "rk_reverse",      1, WC_PURE,   0, rkReverseFunc   },
  { "rk_join",        -1, WC_PURE,   0, rkJoinFunc      },
  { "rk_part",         3, WC_PURE,   0, rkPartFunc      },
  { "rk_prefix_end",   1, WC_PURE,   0, rkPrefixEndFunc },
  { "widecol_version", 0, WC_PURE,   0, rkVersionFunc   },
  { "widecol_stats",   1, WC_DIRECT, 0, wcStatsFunc     },
  { "widecol_stats",   2, WC_DIRECT, 0, wcStatsFunc     },
  { WC_TABLE_FUNC,     2, WC_DIRECT, 0, wcTableFunc     },
};

static const struct {
  const char *zName;
  const sqlite3_module *pModule;
  const void *pAux;         /* The module's client data */
} aMod[] = {
  { "widecol",         &wcModule,    0             },
  { "widecol_check",   &wcTvfModule, &wcCheckDef   },
  { "widecol_lint",    &wcTvfModule, &wcLintDef    },
  { "widecol_regions", &wcTvfModule, &wcRegionsDef },
};

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_widecol_init(sqlite3 *db, char **pzErrMsg,
                         const sqlite3_api_routines *pApi){
  size_t i;
  int rc = SQLITE_OK;
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  for(i = 0; rc == SQLITE_OK && i < sizeof(aFunc) / sizeof(aFunc[0]); i++){
    /* Without MD5 (OpenSSL in FIPS mode) the function loads and says so
    ** when called, so that the others stay usable. */
    RkHasher *pHasher = aFunc[i].bHash ? rkHasherNew() : 0;
    rc = sqlite3_create_function_v2(db, aFunc[i].zName, aFunc[i].nArg,
                                    aFunc[i].eFlags, pHasher, aFunc[i].xFunc,
                                    0, 0, pHasher ? rkHasherFree : 0);
  }
  for(i = 0; rc == SQLITE_OK && i < sizeof(aMod) / sizeof(aMod[0]); i++){
    rc = sqlite3_create_module_v2(db, aMod[i].zName, aMod[i].pModule,
                                  (void*)aMod[i].pAux, 0);
  }
  return rc;
}
