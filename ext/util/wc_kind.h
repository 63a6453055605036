/*
** wc_kind.h: the engines widecol keeps a table's rows in, one row of
** facts per STORAGE kind, each fact written once: the kind's word, the
** engine's name, its library, how its tables are named, and its limits.
** The design parser (key/wc_schema.c) reads the words and forms, the
** store layer's capabilities (store/wc_kinds.c) the limits, the report
** page (tools/) the limits again, and each store library its own row; so
** it sits at the bottom, where every one of them may read it.
*/
#ifndef WIDECOL_WC_KIND_H
#define WIDECOL_WC_KIND_H

#include <stdint.h>
#include <sqlite3ext.h>

/* The kinds (WcSchema.eStore), in the order of the table. */
#define WC_STORE_LOCAL    0   /* No STORAGE: SQLite's own tables */
#define WC_STORE_BIGTABLE 1   /* STORAGE BIGTABLE 'projects/p/instances/i/
                              ** tables/t' */
#define WC_STORE_HBASE    2   /* STORAGE HBASE '[namespace:]table' */
#define WC_STORE_CASSANDRA 3  /* STORAGE CASSANDRA 'keyspace.table' */
#define WC_STORE_KINDS    4

/* The longest row key widecol makes, whatever the store: HBase's limit
** (Short.MAX_VALUE), the largest of the engines', which the HBase row
** below names too. */
#define WC_MAX_KEY_BYTES 32767

/* How a store reads a range (or a set of ranges) of rows, which the
** stores do and the planner prices (store/wc_store.c): in pages asked for
** in turn, the first of nFirstPage rows, each next nPageGrowth times
** larger up to nMaxPage, a full page followed by another; a call gives
** at most nCallRows rows (0: a page), and each range of a set is a call
** of its own where bCallPerRange.  An index's entries are checked against
** their rows nVerifyRows to a call (0: not checked). */
typedef struct WcReads WcReads;
struct WcReads {
  int nFirstPage;
  int nPageGrowth;
  int nMaxPage;
  int nCallRows;
  int bCallPerRange;
  int nVerifyRows;
};

typedef struct WcKind WcKind;
struct WcKind {
  int eStore;           /* WC_STORE_* */
  const char *zWord;    /* STORAGE's word: "BIGTABLE"; 0 for the local */
  const char *zEngine;  /* The engine, for messages: "Bigtable" */
  const char *zModule;  /* The store's library and module: 0 for local */
  const char *zBuild;   /* How to build the library: "make bigtable" */
  const char *zPython;  /* How the Python package loads it */
  const char *zDocs;    /* The user's page: "docs/bigtable.md" */
  const char *zForm;    /* How a table is named, for messages */
  const char *zShape;   /* The same, short: "'[<namespace>:]<table>'" */
  const char *zTrial;   /* A name of this kind for table id %s, to check
                        ** a design without making it (wcSchemaRefusal) */
  const char *zIdAfter; /* The table's id follows this in its name
                        ** ("/tables/"); not there: the name is the id */
  int nMaxId;           /* The longest table id */
  int nMaxKey;          /* The longest row key, in bytes (0: none but
                        ** WC_MAX_KEY_BYTES), */
  int nKeyByName;       /* less the table's name and this many, if not 0
                        ** (HBase finds a row's region in hbase:meta by
                        ** "<table>,<key>,<14 digits>", itself a row key) */
  int64_t nMaxCell;     /* The largest value of a cell (0: no cells) */
  int64_t nMaxRow;      /* The largest row, if the engine has a limit */
  int64_t iTimeStep;    /* Its timestamps' step, in microseconds */
  WcReads reads;        /* How its reads go (remote kinds) */
};

/* The table, in WC_STORE_* order (a static initializer may point at a
** row), and the row of kind eStore. */
extern const WcKind wcKindTable[WC_STORE_KINDS];
const WcKind *wcKind(int eStore);
/* The remote kind whose word is z[0..n) (ASCII case aside), or 0. */
const WcKind *wcKindByWord(const char *z, int n);
/* Appends every remote kind's STORAGE word and name shape to pOut, the
** first after zFirst, the last after zLast, the others after zNext; with
** bLoad, the library to load too: "BIGTABLE '...' (load
** widecol_bigtable)". */
void wcKindAppendStorage(sqlite3_str *pOut, const char *zFirst,
                         const char *zNext, const char *zLast, int bLoad);
/* True if zName names a table as kind eStore's engine names one (zForm
** says how). */
int wcKindValidName(int eStore, const char *zName);
/* The engine's own namespace or keyspace zName (a valid name of kind
** pKind) is in, refused for widecol's tables: "hbase" (HBase's catalog),
** Cassandra's system keyspaces; 0 if it is the user's. */
const char *wcKindReserved(const WcKind *pKind, const char *zName);
/* Whose limit WC_MAX_KEY_BYTES is on a table of kind pKind, for
** messages: its engine's where the engine's limit is that ("HBase"),
** else "widecol" (its own, on every other store). */
const char *wcKindKeyLimitOwner(const WcKind *pKind);
/* The table's id in zName, a table name of kind pKind (a pointer into
** it). */
const char *wcKindTableId(const WcKind *pKind, const char *zName);

#endif /* WIDECOL_WC_KIND_H */
