/*
** wc_lint.h: what other tools share with widecol_lint (wc_lint.c), so
** that widecol_report's warnings and guesses are the lint's own: its
** thresholds and its test for values that are times.
*/
#ifndef WIDECOL_WC_LINT_H
#define WIDECOL_WC_LINT_H

#define WC_LINT_SHARE     0.9      /* Share of values (or writes) a
                                   ** pattern must fit */
#define WC_LINT_PREFIXES  16       /* Salt prefixes a range may cost; the
                                   ** key ranges a hotspot's fix spreads
                                   ** writes over */
#define WC_HOT_SKEW       2.0      /* A key range, region or node taking
                                   ** this many times an even share of the
                                   ** writes (of WC_LINT_PREFIXES, or of
                                   ** the nodes) is hot: widecol_lint's
                                   ** hot-key, the report's warnings, the
                                   ** advisor's hot-entity designs */
#define WC_LINT_HOT_ROWS  1000     /* Rows a hot entity is judged on */
#define WC_LINT_PART_CELLS 100000  /* Cassandra: cells a partition should */
#define WC_LINT_PART_BYTES (100 << 20)  /* and bytes, at most hold */

/* An SQL expression over x, true where x is a time: seconds,
** milliseconds or microseconds since 1970 between 2000 and 2100,
** YYYYMMDD[hh[mm[ss]]] numbers or text, ISO dates, and day- or
** month-first dates. */
extern const char wcLintTimeTest[];
/* An SQL expression over x: the time x holds, as wcLintTimeTest reads
** times, in microseconds since 1970 (NULL for a YYYYMMDD number and any
** value that is no time): the latest a table holds is what widecol_now()
** is while the advisor or the report runs its workload. */
extern const char wcLintTimeMicros[];

#endif /* WIDECOL_WC_LINT_H */
