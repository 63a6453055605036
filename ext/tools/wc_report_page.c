/*
** wc_report_page.c: widecol_report's page, written from a gathered Report
** (wc_report.h).  One self-contained HTML document: inline CSS and SVG,
** a few lines of JavaScript for the copy buttons, no request to anything.
**
** Each section holds one column per design, on the same scales, and
** every picture has a text alternative (a table or a sentence).  The
** figures are also in data-* attributes, so that tests can read them
** from the DOM and compare them with the SQL functions'.
*/
#include "tools/wc_report.h"
#include "tools/wc_html.h"
#include "tools/wc_anatomy.h"
#include "tools/wc_lint.h"
#include "key/wc_codec.h"
#include "store/wc_store.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define HEAT_LEVELS 8
#define HEAT_WIDTH  480
#define HEAT_HEIGHT 400
#define BAR_WIDTH   360

static const char zStyle[] =
  "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1b1b1b;"
  "background:#fff}h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;"
  "margin:28px 0 6px;border-bottom:1px solid #ddd}h3{font-size:15px;"
  "margin:10px 0 4px}.designs{display:grid;gap:24px;grid-template-columns:"
  "repeat(var(--n),minmax(0,1fr))}.design{min-width:0;overflow-x:auto}"
  ".stack{grid-template-columns:minmax(0,1fr)}.src{color:#555;"
  "font-size:12px}code,pre,.key{font-family:ui-monospace,Menlo,Consolas,"
  "monospace;font-size:12px}pre{background:#f6f6f6;padding:6px;"
  "white-space:pre-wrap;word-break:break-all;margin:4px 0}table{"
  "border-collapse:collapse;font-size:12px;margin:4px 0}td,th{border:1px "
  "solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}td.n,th.n"
  "{text-align:right}.key{display:flex;flex-wrap:wrap;gap:1px}.axkey{"
  "position:absolute;white-space:nowrap;overflow:hidden;text-overflow:"
  "ellipsis;max-width:146px;font-family:ui-monospace,Menlo,Consolas,"
  "monospace;font-size:12px}.part{"
  "padding:2px 3px;border-radius:3px;white-space:pre}.k-salt{background:"
  "#f6c85f}.k-token{background:#f4a261}.k-bucket{background:#e9c46a}"
  ".k-field{background:#8ecae6}.k-pad{background:#a8dadc}.k-desc{"
  "background:#cdb4db}.k-reverse{background:#b5e48c}.k-delimiter{"
  "background:#ddd}.k-random{background:#ffafcc}.k-rest{background:"
  "#eee}.warn{background:#fff3cd;border:1px solid #e0b400;padding:6px;"
  "margin:4px 0}.flag{color:#8a1c1c}.sev-error{color:#b00020;font-weight:"
  "600}.sev-warning{color:#a15c00;font-weight:600}.sev-advice{color:"
  "#00589b}.h1{fill:#fff5eb}.h2{fill:#fee6ce}.h3{fill:#fdd0a2}.h4{fill:"
  "#fdae6b}.h5{fill:#fd8d3c}.h6{fill:#f16913}.h7{fill:#d94801}.h8{fill:"
  "#8c2d04}.heatrow{display:flex;gap:6px;align-items:flex-start}.axis{"
  "font-size:11px;color:#444}.hot{fill:none;stroke:#0050ff;stroke-width:"
  "0.25}.bar{fill:#4e79a7}.bar2{fill:#a0cbe8}.barhot{fill:#e15759}.limit"
  "{stroke:#b00020;stroke-dasharray:4 2}button.copy{font-size:11px;"
  "margin-left:6px}details{margin:4px 0}.arc{fill:none;stroke-width:16}"
  ".node0{stroke:#4e79a7;color:#4e79a7}.node1{stroke:#f28e2b;color:#f28e2b}"
  ".node2{stroke:#59a14f;color:#59a14f}.node3{stroke:#e15759;color:#e15759}"
  ".node4{stroke:#76b7b2;color:#76b7b2}.node5{stroke:#edc948;color:#edc948}"
  ".node6{stroke:#b07aa1;color:#b07aa1}.node7{stroke:#9c755f;color:#9c755f}"
  "td[class*=node]{font-weight:700}";

static const char zScript[] =
  "document.querySelectorAll('button.copy').forEach(function(b){"
  "b.addEventListener('click',function(){var t=b.previousElementSibling;"
  "if(navigator.clipboard){navigator.clipboard.writeText(t.textContent)"
  ".catch(function(){});}});});";

/* The part of a page a section of one design writes. */
typedef void (*SectionFn)(const Report*, const ReportDesign*, sqlite3_str*);

/*
** Key anatomy.
*/

static const char *partClass(const WcSchema *pS, const WcKeyPart *pPart){
  const WcElement *pE;
  int i;
  if( pPart->eKind == WC_PART_DELIMITER ) return "k-delimiter";
  if( pPart->eKind == WC_PART_RANDOM ) return "k-random";
  if( pPart->eKind == WC_PART_REST ) return "k-rest";
  pE = &pS->aElem[pPart->iElem];
  if( pE->eKind == WC_ELEM_BUCKET ) return "k-bucket";
  if( pE->eKind == WC_ELEM_SALT ) return pE->bToken ? "k-token" : "k-salt";
  for(i = pE->nXform - 1; i >= 0; i--){
    switch( pE->aXform[i].eOp ){
      case WC_XFORM_DESC:    return "k-desc";
      case WC_XFORM_REVERSE: return "k-reverse";
      case WC_XFORM_PAD:     return "k-pad";
    }
  }
  return "k-field";
}

static const char *partName(const WcKeyPart *pPart){
  switch( pPart->eKind ){
    case WC_PART_DELIMITER: return "delimiter";
    case WC_PART_RANDOM:    return "RANDOM";
    case WC_PART_REST:      return "bytes no element reads";
    default:                return "element";
  }
}

/* The element's columns' values in the sample row, "a = 1, b = 'x'". */
static void elementValues(const ReportDesign *pD, const WcElement *pE,
                          const char *const *azRow, sqlite3_str *pOut){
  int i, n = pE->eKind == WC_ELEM_SALT ? pE->nSaltCol : 1;
  for(i = 0; i < n; i++){
    int iCol = pE->eKind == WC_ELEM_SALT ? pE->aiSaltCol[i] : pE->iCol;
    if( i ) sqlite3_str_appendall(pOut, ", ");
    wcHtmlText(pOut, pD->pS->aCol[iCol].zName);
    sqlite3_str_appendall(pOut, " = ");
    wcHtmlText(pOut, azRow[iCol + 1]);
  }
}

/* The first sample key, part by part, and a table of its parts. */
static void anatomySection(const Report *p, const ReportDesign *pD,
                           sqlite3_str *pOut){
  const WcSchema *pS = pD->pS;
  WcKeyPart aPart[2 * 64 + 2];
  const unsigned char *aKey;
  int64_t nKey, nAt = 0;
  int nPart, i;
  (void)p;
  if( pD->nRow == 0 ){
    sqlite3_str_appendall(pOut, "<p class=\"empty\">The table has no rows: "
                          "there is no key to take apart.</p>");
    return;
  }
  aKey = pD->keys.a;
  nKey = pD->aiKey[1];
  nPart = wcKeyParts(pS, aKey, nKey, aPart, (int)(sizeof(aPart)
                                                   / sizeof(aPart[0])));
  sqlite3_str_appendf(pOut, "<h3>The first key in stored order, %lld "
                      "bytes</h3><div class=\"key\" role=\"img\" "
                      "aria-label=\"the key's bytes by element, as the "
                      "table below lists them\">", (long long)nKey);
  for(i = 0; i < nPart; i++){
    sqlite3_str_appendf(pOut, "<span class=\"part %s\" title=\"%s\">",
                        partClass(pS, &aPart[i]), partName(&aPart[i]));
    wcHtmlBytes(pOut, aKey + nAt, aPart[i].n);
    sqlite3_str_appendall(pOut, "</span>");
    nAt += aPart[i].n;
  }
  sqlite3_str_appendall(pOut, "</div><table class=\"anatomy\"><tr><th>part"
                        "</th><th>as declared</th><th>bytes</th><th>SQL that "
                        "makes them</th><th>from</th></tr>");
  nAt = 0;
  for(i = 0; i < nPart; i++){
    const WcKeyPart *pPart = &aPart[i];
    char *zSql = 0;
    int bOom = 0;
    if( pPart->eKind == WC_PART_ELEMENT ){
      zSql = wcElementSql(pS, pPart->iElem, &bOom);
    }else if( pPart->eKind == WC_PART_RANDOM ){
      zSql = wcRandomSql(pS);
    }
    sqlite3_str_appendf(pOut, "<tr class=\"%s\" data-kind=\"%s\" "
                        "data-elem=\"%d\" data-hex=\"",
                        partClass(pS, pPart), partName(pPart),
                        pPart->eKind == WC_PART_ELEMENT ? pPart->iElem : -1);
    wcHtmlHex(pOut, aKey + nAt, pPart->n);
    sqlite3_str_appendall(pOut, "\" data-sql=\"");
    if( pPart->eKind == WC_PART_ELEMENT ) wcHtmlText(pOut, zSql);
    sqlite3_str_appendall(pOut, "\"><td>");
    sqlite3_str_appendall(pOut, partName(pPart));
    sqlite3_str_appendall(pOut, "</td><td><code>");
    if( pPart->eKind == WC_PART_ELEMENT ){
      char *zText = wcElementText(pS, &pS->aElem[pPart->iElem], 0);
      wcHtmlText(pOut, zText);
      sqlite3_free(zText);
    }else if( pPart->eKind == WC_PART_DELIMITER ){
      sqlite3_str_appendall(pOut, "DELIMITER ");
      wcHtmlText(pOut, pS->zDelim);
    }else if( pPart->eKind == WC_PART_RANDOM ){
      sqlite3_str_appendf(pOut, "RANDOM(%lld)", (long long)pS->nRandom);
    }
    sqlite3_str_appendall(pOut, "</code></td><td class=\"key\"><span>");
    wcHtmlBytes(pOut, aKey + nAt, pPart->n);
    sqlite3_str_appendall(pOut, "</span></td><td><code>");
    if( zSql ){
      wcHtmlText(pOut, zSql);
    }else if( pPart->eKind == WC_PART_ELEMENT ){
      sqlite3_str_appendall(pOut, "none: ENCODING BINARY writes bytes no rk_* "
                            "function makes (docs/encoding.md)");
    }
    sqlite3_str_appendall(pOut, "</code></td><td>");
    if( pPart->eKind == WC_PART_ELEMENT && pD->nSample > 0 ){
      elementValues(pD, &pS->aElem[pPart->iElem],
                    (const char *const*)pD->azSample, pOut);
    }
    sqlite3_str_appendall(pOut, "</td></tr>");
    sqlite3_free(zSql);
    nAt += pPart->n;
  }
  sqlite3_str_appendall(pOut, "</table><h3>The first rows in stored order"
                        "</h3><table class=\"sample\"><tr><th>rowkey</th>");
  for(i = 0; i < pS->nCol; i++){
    wcHtmlWrap(pOut, "<th>", pS->aCol[i].zName, "</th>");
  }
  sqlite3_str_appendall(pOut, "</tr>");
  for(i = 0; i < pD->nSample; i++){
    int k;
    sqlite3_str_appendall(pOut, "<tr><td class=\"key\"><span>");
    wcHtmlBytes(pOut, pD->keys.a + pD->aiKey[i], pD->aiKey[i + 1]
                                                 - pD->aiKey[i]);
    sqlite3_str_appendall(pOut, "</span></td>");
    for(k = 0; k < pS->nCol; k++){
      wcHtmlWrap(pOut, "<td>", pD->azSample[i * (pS->nCol + 1) + k + 1],
                 "</td>");
    }
    sqlite3_str_appendall(pOut, "</tr>");
  }
  sqlite3_str_appendall(pOut, "</table>");
}

/*
** The heatmap.
*/

static double maxOf(const double *a, int64_t n){
  double r = 0.0;
  int64_t i;
  for(i = 0; i < n; i++) if( a[i] > r ) r = a[i];
  return r;
}

/* The colour class of v on a log scale up to rMax: 1..HEAT_LEVELS, 0
** for nothing. */
static int heatLevel(double v, double rMax){
  int k;
  if( v <= 0.0 || rMax <= 0.0 ) return 0;
  k = 1 + (int)((HEAT_LEVELS - 1) * log1p(v) / log1p(rMax));
  return k > HEAT_LEVELS ? HEAT_LEVELS : k;
}

/* The largest cell over every design: one colour scale for all. */
static double heatMax(const Report *p){
  double r = 0.0;
  int d;
  for(d = 0; d < p->nDesign; d++){
    const ReportDesign *pD = &p->aDesign[d];
    double m = maxOf(pD->aCell, (int64_t)pD->nBucket * pD->nColumn);
    if( m > r ) r = m;
  }
  return r;
}

/* A bucket's first key, readable. */
static void bucketKey(const ReportDesign *pD, int b, sqlite3_str *pOut){
  int64_t i = pD->aiBucket[b];
  if( i >= pD->nRow ) return;
  wcHtmlBytes(pOut, pD->keys.a + pD->aiKey[i], pD->aiKey[i + 1] - pD->aiKey[i]);
}

/* The bytes of key i through element iElem's value (its delimiter left
** out): an axis label's prefix.  The whole key where the key has fewer. */
static int64_t keyPrefix(const ReportDesign *pD, int64_t i, int iElem){
  WcKeyPart aPart[64];
  const unsigned char *a = pD->keys.a + pD->aiKey[i];
  int64_t n = pD->aiKey[i + 1] - pD->aiKey[i], nAt = 0;
  int nPart = wcKeyParts(pD->pS, a, n, aPart, 64), k;
  for(k = 0; k < nPart; k++){
    nAt += aPart[k].n;
    if( aPart[k].eKind == WC_PART_ELEMENT && aPart[k].iElem == iElem ){
      return nAt;
    }
  }
  return n;
}

/* The element through which the axis labels run: the first whose value
** differs between the labelled buckets' keys (a time-first key's time, a
** device-first key's device), so that labels fit and say what varies. */
static int labelElement(const ReportDesign *pD, int nStep){
  int iElem, b;
  for(iElem = 0; iElem < pD->pS->nElem; iElem++){
    int64_t iFirst = -1, nFirst = 0;
    for(b = 0; b < pD->nBucket; b += nStep){
      int64_t i = pD->aiBucket[b], nPre;
      if( i >= pD->nRow ) continue;
      nPre = keyPrefix(pD, i, iElem);
      if( iFirst < 0 ){
        iFirst = i;
        nFirst = nPre;
      }else if( nPre != nFirst || memcmp(pD->keys.a + pD->aiKey[i],
                 pD->keys.a + pD->aiKey[iFirst], (size_t)nPre) != 0 ){
        return iElem;
      }
    }
  }
  return pD->pS->nElem - 1;
}

/* Bars per bucket, one SVG row each, for reads and rows read. */
static void bucketBars(const ReportDesign *pD, const double *a, double rMax,
                       const char *zLabel, sqlite3_str *pOut){
  int b;
  sqlite3_str_appendf(pOut, "<div><div class=\"axis\">%s</div><svg "
                      "viewBox=\"0 0 100 %d\" preserveAspectRatio=\"none\" "
                      "width=\"80\" height=\"%d\" role=\"img\" "
                      "aria-label=\"%s per key bucket; the table below lists "
                      "them\">", zLabel, pD->nBucket, HEAT_HEIGHT, zLabel);
  for(b = 0; b < pD->nBucket; b++){
    if( a[b] <= 0.0 || rMax <= 0.0 ) continue;
    sqlite3_str_appendf(pOut, "<rect class=\"bar\" x=\"0\" y=\"%d\" "
                        "width=\"%.2f\" height=\"1\"/>", b,
                        100.0 * a[b] / rMax);
  }
  sqlite3_str_appendall(pOut, "</svg></div>");
}

/* The strip beside the map of what the engine counted (pD->aMeasured):
** each bucket coloured by the writes counted on its region, on its own
** scale; the first bucket of the hottest region is data-hot-bucket. */
static void measuredStrip(const ReportDesign *pD, sqlite3_str *pOut){
  double rMax = maxOf(pD->aMeasured, pD->nBucket);
  int b, iHot = 0;
  for(b = 0; b < pD->nBucket; b++){
    if( pD->aMeasured[b] > pD->aMeasured[iHot] ) iHot = b;
  }
  sqlite3_str_appendf(pOut, "<div><div class=\"axis\">writes %s counted</div>"
                      "<svg class=\"heat measured\" viewBox=\"0 0 1 %d\" "
                      "preserveAspectRatio=\"none\" width=\"24\" height=\"%d\" "
                      "role=\"img\" data-hot-bucket=\"%d\" data-hot-writes="
                      "\"%.0f\" aria-label=\"writes %s counted on each "
                      "bucket's region\">", pD->zStore, pD->nBucket,
                      HEAT_HEIGHT, iHot + 1, pD->aMeasured[iHot], pD->zStore);
  for(b = 0; b < pD->nBucket; b++){
    int k = heatLevel(pD->aMeasured[b], rMax);
    if( k > 0 ){
      sqlite3_str_appendf(pOut, "<rect class=\"h%d\" x=\"0\" y=\"%d\" "
                          "width=\"1\" height=\"1\"/>", k, b);
    }
  }
  sqlite3_str_appendall(pOut, "</svg></div>");
}

/* The map's cells, a run of one colour in a bucket as one rect. */
static void heatCells(const ReportDesign *pD, double rMax, sqlite3_str *pOut){
  int b, c;
  for(b = 0; b < pD->nBucket; b++){
    const double *aRow = &pD->aCell[(int64_t)b * pD->nColumn];
    for(c = 0; c < pD->nColumn; ){
      int k = heatLevel(aRow[c], rMax), n = 1;
      while( c + n < pD->nColumn && heatLevel(aRow[c + n], rMax) == k ) n++;
      if( k > 0 ){
        sqlite3_str_appendf(pOut, "<rect class=\"h%d\" x=\"%d\" y=\"%d\" "
                            "width=\"%d\" height=\"1\"/>", k, c, b, n);
      }
      c += n;
    }
  }
}

/* The hottest cell, bucket * nColumn + column: of several as hot, the
** latest in time, then the last in key order, where a hotspot shows. */
static int64_t hottestCell(const ReportDesign *pD){
  int64_t iHot = 0;
  int b, c;
  for(c = 0; c < pD->nColumn; c++){
    for(b = 0; b < pD->nBucket; b++){
      int64_t i = (int64_t)b * pD->nColumn + c;
      if( pD->aCell[i] >= pD->aCell[iHot] ) iHot = i;
    }
  }
  return iHot;
}

static void heatmapSection(const Report *p, const ReportDesign *pD,
                           sqlite3_str *pOut){
  double rMax = heatMax(p), rRead = 0.0, rScan = 0.0;
  int64_t iHot = 0, n = (int64_t)pD->nBucket * pD->nColumn, i;
  int b, d, nStep, iLabel;
  for(d = 0; d < p->nDesign; d++){
    double r = maxOf(p->aDesign[d].aRead, p->aDesign[d].nBucket);
    double s = maxOf(p->aDesign[d].aScan, p->aDesign[d].nBucket);
    if( r > rRead ) rRead = r;
    if( s > rScan ) rScan = s;
  }
  iHot = hottestCell(pD);
  for(i = 0; i < pD->nWarn; i++){
    wcHtmlWrap(pOut, "<div class=\"warn\" data-warn=\"1\">", pD->azWarn[i],
               "</div>");
  }
  sqlite3_str_appendf(pOut, "<p class=\"src\">%lld writes of %lld rows; key "
                      "space down in %d buckets of equal row counts; time "
                      "across: ", (long long)pD->nWrite, (long long)pD->nRow,
                      pD->nBucket);
  wcHtmlText(pOut, pD->zOrderWhy);
  sqlite3_str_appendall(pOut, ".</p><div class=\"heatrow\"><div class=\"axis\" "
                        "style=\"width:150px;position:relative;height:");
  sqlite3_str_appendf(pOut, "%dpx\">", HEAT_HEIGHT);
  nStep = (pD->nBucket + 7) / 8;
  iLabel = labelElement(pD, nStep);
  for(b = 0; b < pD->nBucket; b += nStep){
    int64_t iRow = pD->aiBucket[b];
    if( iRow >= pD->nRow ) continue;
    /* The key's prefix through the element that varies; the whole key on
    ** hover, and in the table of buckets below. */
    sqlite3_str_appendf(pOut, "<div class=\"axkey\" style=\"top:%.1f%%\" "
                        "title=\"", 100.0 * b / pD->nBucket);
    bucketKey(pD, b, pOut);
    sqlite3_str_appendall(pOut, "\">");
    wcHtmlBytes(pOut, pD->keys.a + pD->aiKey[iRow],
                keyPrefix(pD, iRow, iLabel));
    sqlite3_str_appendall(pOut, "</div>");
  }
  sqlite3_str_appendf(pOut, "</div><svg class=\"heat\" viewBox=\"0 0 %d %d\" "
                      "preserveAspectRatio=\"none\" width=\"%d\" height=\"%d\" "
                      "role=\"img\" data-buckets=\"%d\" data-columns=\"%d\" "
                      "data-hot-bucket=\"%lld\" data-hot-column=\"%lld\" "
                      "data-hot-writes=\"%.0f\" aria-label=\"writes per key "
                      "bucket and time; the table below lists them\">",
                      pD->nColumn, pD->nBucket, HEAT_WIDTH, HEAT_HEIGHT,
                      pD->nBucket, pD->nColumn,
                      (long long)(n ? iHot / pD->nColumn + 1 : 0),
                      (long long)(n ? iHot % pD->nColumn + 1 : 0),
                      n ? pD->aCell[iHot] : 0.0);
  heatCells(pD, rMax, pOut);
  if( n && pD->aCell[iHot] > 0.0 ){
    sqlite3_str_appendf(pOut, "<rect class=\"hot\" x=\"%lld\" y=\"%lld\" "
                        "width=\"1\" height=\"1\"/>",
                        (long long)(iHot % pD->nColumn),
                        (long long)(iHot / pD->nColumn));
  }
  sqlite3_str_appendall(pOut, "</svg>");
  if( pD->nStmt > 0 ){
    bucketBars(pD, pD->aRead, rRead, "reads", pOut);
    bucketBars(pD, pD->aScan, rScan, "rows read", pOut);
  }
  if( pD->aMeasured ) measuredStrip(pD, pOut);
  sqlite3_str_appendall(pOut, "</div><div class=\"axis\">");
  if( pD->azColumnLabel && pD->azColumnLabel[0] ){
    wcHtmlWrap(pOut, "from ", pD->azColumnLabel[0], " (left) to ");
    wcHtmlText(pOut, pD->azColumnLabel[pD->nColumn - 1]);
    sqlite3_str_appendall(pOut, " (the last column's first write)");
  }
  sqlite3_str_appendf(pOut, "; the hottest cell is bucket %lld, column "
                      "%lld, with %.0f writes (outlined; of cells as hot, "
                      "the latest)."
                      "</div>",
                      (long long)(n ? iHot / pD->nColumn + 1 : 0),
                      (long long)(n ? iHot % pD->nColumn + 1 : 0),
                      n ? pD->aCell[iHot] : 0.0);
  if( pD->aMeasured ){
    sqlite3_str_appendf(pOut, "<p class=\"src\">Beside the map, measured: "
                        "the writes %s's servers counted on each bucket's "
                        "region since they opened it (", pD->zStore);
    wcHtmlText(pOut, pD->zMeasured);
    sqlite3_str_appendall(pOut, ", its write_requests), on a scale of its "
                          "own; the map is the prediction from the rows.</p>");
  }
  sqlite3_str_appendall(pOut, "<details><summary>The map as a table</summary>"
                        "<table class=\"buckets\"><tr><th class=\"n\">bucket"
                        "</th><th>first key</th><th class=\"n\">rows</th><th "
                        "class=\"n\">writes</th><th class=\"n\">last writes"
                        "</th><th class=\"n\">reads</th><th class=\"n\">rows "
                        "read</th></tr>");
  for(b = 0; b < pD->nBucket; b++){
    int64_t nRows = pD->aiBucket[b + 1] - pD->aiBucket[b];
    sqlite3_str_appendf(pOut, "<tr data-bucket=\"%d\" data-rows=\"%lld\" "
                        "data-writes=\"%.0f\" data-recent=\"%.0f\" "
                        "data-reads=\"%g\" data-scanned=\"%g\"", b + 1,
                        (long long)nRows, pD->aWrite[b], pD->aRecent[b],
                        pD->aRead[b], pD->aScan[b]);
    if( pD->aMeasured ){
      sqlite3_str_appendf(pOut, " data-measured=\"%.0f\"", pD->aMeasured[b]);
    }
    sqlite3_str_appendf(pOut, "><td class=\"n\">%d</td><td class=\"key\">"
                        "<span>", b + 1);
    bucketKey(pD, b, pOut);
    sqlite3_str_appendf(pOut, "</span></td><td class=\"n\">%lld</td><td "
                        "class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td "
                        "class=\"n\">%g</td><td class=\"n\">%g</td></tr>",
                        (long long)nRows, pD->aWrite[b], pD->aRecent[b],
                        pD->aRead[b], pD->aScan[b]);
  }
  sqlite3_str_appendall(pOut, "</table></details>");
}

/*
** Regions and the ring.
*/

/* Column iCol of row r of a tool's rows. */
static const char *cell(const ReportRows *pR, int r, int iCol){
  return pR->azCell[r * pR->nCol + iCol];
}

/* Key bytes given in hex (a tool's key as hex()), readable. */
static void hexBytes(sqlite3_str *pOut, const char *zHex){
  unsigned char a[256];
  int n = 0;
  if( zHex == 0 ) return;
  while( zHex[0] && zHex[1] ){
    char z[3] = { zHex[0], zHex[1], 0 };
    a[n++] = (unsigned char)strtol(z, 0, 16);
    zHex += 2;
    if( n == (int)sizeof(a) || zHex[0] == 0 ){
      wcHtmlBytes(pOut, a, n);
      n = 0;
    }
  }
}

static double cellDouble(const ReportRows *pR, int r, int iCol){
  const char *z = cell(pR, r, iCol);
  return z ? atof(z) : 0.0;
}

/* The ring: each node's token ranges as arcs of its colour, the token
** space clockwise from the top (-2^63) round to 2^63 - 1.  Rings of more
** ranges than RING_MAX_ARCS are left to the table. */
#define RING_COLOURS  8
#define RING_MAX_ARCS 4096
static void ringPicture(const ReportRows *pR, sqlite3_str *pOut){
  const double rSpace = 18446744073709551616.0, rRadius = 80.0;
  int r, nArc = 0;
  for(r = 0; r < pR->nRow; r++){
    const char *z = cell(pR, r, 6);
    while( z && (z = strchr(z, '(')) != 0 ){
      nArc++;
      z++;
    }
  }
  if( nArc == 0 || nArc > RING_MAX_ARCS ) return;
  sqlite3_str_appendf(pOut, "<svg class=\"ring\" width=\"200\" "
                      "height=\"200\" viewBox=\"-100 -100 200 200\" "
                      "role=\"img\" data-arcs=\"%d\" aria-label=\"the "
                      "ring: each node's token ranges in its colour; the "
                      "table below lists them\">", nArc);
  for(r = 0; r < pR->nRow; r++){
    const char *z = cell(pR, r, 6);
    long long a, b;
    while( z && (z = strchr(z, '(')) != 0 ){
      if( sscanf(z, "(%lld, %lld]", &a, &b) == 2 ){
        /* Angles clockwise from the top, radians. */
        double t0 = ((double)a + rSpace / 2) / rSpace * 2 * M_PI;
        double t1 = ((double)b + rSpace / 2) / rSpace * 2 * M_PI;
        sqlite3_str_appendf(pOut, "<path class=\"arc node%d\" d=\"M %.2f "
                            "%.2f A %.0f %.0f 0 %d 1 %.2f %.2f\"/>",
                            r % RING_COLOURS, rRadius * sin(t0),
                            -rRadius * cos(t0), rRadius, rRadius,
                            t1 - t0 > M_PI ? 1 : 0, rRadius * sin(t1),
                            -rRadius * cos(t1));
      }
      z++;
    }
  }
  sqlite3_str_appendall(pOut, "</svg>");
}

static void regionsSection(const Report *p, const ReportDesign *pD,
                           sqlite3_str *pOut){
  const ReportRows *pR = &pD->regions;
  double rRows = 0.0, rBytes = 0.0, rRecent = 0.0;
  int r, d, iHot = 0;
  for(d = 0; d < p->nDesign; d++){
    const ReportDesign *pO = &p->aDesign[d];
    for(r = 0; r < pO->regions.nRow; r++){
      if( cellDouble(&pO->regions, r, 3) > rRows ){
        rRows = cellDouble(&pO->regions, r, 3);
      }
      if( (double)pO->aRegionBytes[r] > rBytes ){
        rBytes = (double)pO->aRegionBytes[r];
      }
    }
  }
  for(r = 0; r < pR->nRow; r++){
    rRecent += cellDouble(pR, r, 4);
    if( cellDouble(pR, r, 4) > cellDouble(pR, iHot, 4) ) iHot = r;
  }
  sqlite3_str_appendall(pOut, "<p class=\"src\">");
  wcHtmlText(pOut, pR->zSql);
  sqlite3_str_appendf(pOut, "</p><svg width=\"%d\" height=\"%d\" role=\"img\" "
                      "data-regions=\"%d\" aria-label=\"rows (dark) and bytes "
                      "(light) per region, the hottest red; the table below "
                      "lists them\">", BAR_WIDTH, 14 * pR->nRow + 4, pR->nRow);
  for(r = 0; r < pR->nRow; r++){
    double w = rRows > 0.0 ? (BAR_WIDTH - 40) * cellDouble(pR, r, 3) / rRows
                           : 0.0;
    double wb = rBytes > 0.0 ? (BAR_WIDTH - 40) * pD->aRegionBytes[r] / rBytes
                             : 0.0;
    sqlite3_str_appendf(pOut, "<text x=\"0\" y=\"%d\" font-size=\"10\">%d"
                        "</text><rect class=\"%s\" x=\"30\" y=\"%d\" "
                        "width=\"%.1f\" height=\"6\"/><rect class=\"bar2\" "
                        "x=\"30\" y=\"%d\" width=\"%.1f\" height=\"5\"/>",
                        14 * r + 11, r + 1,
                        r == iHot && rRecent > 0.0 ? "barhot" : "bar",
                        14 * r + 2, w, 14 * r + 8, wb);
  }
  sqlite3_str_appendall(pOut, "</svg>");
  if( rRecent > 0.0 ){
    sqlite3_str_appendf(pOut, "<p>The hottest region, %d, takes %.0f%% of "
                        "the last writes (skew %s).</p>", iHot + 1,
                        100.0 * cellDouble(pR, iHot, 4) / rRecent,
                        cell(pR, iHot, 5) ? cell(pR, iHot, 5) : "");
  }
  sqlite3_str_appendall(pOut, "<table class=\"regions\"><tr><th class=\"n\">"
                        "region</th><th>start key</th><th class=\"n\">rows"
                        "</th><th class=\"n\">bytes</th><th class=\"n\">last "
                        "writes</th><th class=\"n\">skew</th></tr>");
  for(r = 0; r < pR->nRow; r++){
    sqlite3_str_appendf(pOut, "<tr data-region=\"%s\" data-rows=\"%s\" "
                        "data-recent=\"%s\"><td class=\"n\">%s</td><td "
                        "class=\"key\"><span>", cell(pR, r, 0),
                        cell(pR, r, 3), cell(pR, r, 4), cell(pR, r, 0));
    hexBytes(pOut, cell(pR, r, 1));
    sqlite3_str_appendf(pOut, "</span></td><td class=\"n\">%s</td><td "
                        "class=\"n\">", cell(pR, r, 3));
    wcHtmlSize(pOut, pD->aRegionBytes[r]);
    sqlite3_str_appendf(pOut, "</td><td class=\"n\">%s</td><td class=\"n\">"
                        "%.2f</td></tr>", cell(pR, r, 4),
                        cellDouble(pR, r, 5));
  }
  sqlite3_str_appendall(pOut, "</table>");
  if( !pD->bCassandra ) return;
  pR = &pD->ring;
  sqlite3_str_appendall(pOut, "<h3>The Cassandra ring</h3><p class=\"src\">");
  wcHtmlText(pOut, pR->zSql);
  sqlite3_str_appendall(pOut, "</p>");
  ringPicture(pR, pOut);
  sqlite3_str_appendall(pOut, "<table class=\"ring\"><tr><th class=\"n\">"
                        "node</th><th class=\"n\">owns</th><th class=\"n\">"
                        "partitions</th><th class=\"n\">rows</th><th>load"
                        "</th><th class=\"n\">skew</th><th>token ranges</th>"
                        "</tr>");
  rRows = 0.0;
  for(r = 0; r < pR->nRow; r++){
    if( cellDouble(pR, r, 3) > rRows ) rRows = cellDouble(pR, r, 3);
  }
  for(r = 0; r < pR->nRow; r++){
    sqlite3_str_appendf(pOut, "<tr data-node=\"%s\" data-rows=\"%s\" "
                        "data-partitions=\"%s\"><td class=\"n node%d\">%s"
                        "</td><td "
                        "class=\"n\">%.1f%%</td><td class=\"n\">%s</td><td "
                        "class=\"n\">%s</td><td><svg width=\"120\" "
                        "height=\"8\" aria-hidden=\"true\"><rect class=\"bar\" "
                        "x=\"0\" y=\"0\" width=\"%.1f\" height=\"8\"/></svg>"
                        "</td><td class=\"n\">%.2f</td>",
                        cell(pR, r, 0), cell(pR, r, 3), cell(pR, r, 2),
                        r % RING_COLOURS, cell(pR, r, 0),
                        100.0 * cellDouble(pR, r, 1),
                        cell(pR, r, 2), cell(pR, r, 3),
                        rRows > 0.0 ? 120.0 * cellDouble(pR, r, 3) / rRows
                                    : 0.0, cellDouble(pR, r, 5));
    wcHtmlWrap(pOut, "<td><details><summary>ranges</summary><code>",
               cell(pR, r, 6), "</code></details></td></tr>");
  }
  sqlite3_str_appendall(pOut, "</table>");
}

/*
** Per query.
*/

static void queriesSection(const Report *p, const ReportDesign *pD,
                           sqlite3_str *pOut){
  int i;
  (void)p;
  sqlite3_str_appendall(pOut, "<table class=\"queries\"><tr><th class=\"n\">#"
                        "</th><th>statement and plan</th><th class=\"n\">"
                        "weight</th><th class=\"n\">seeks</th><th class=\"n\">"
                        "rows read</th><th class=\"n\">rows returned</th><th "
                        "class=\"n\">result rows</th><th>buckets read</th>"
                        "</tr>");
  for(i = 0; i < pD->nStmt; i++){
    const ReportStmt *pSt = &pD->aStmt[i];
    sqlite3_str_appendf(pOut, "<tr data-stmt=\"%d\" data-seeks=\"%lld\" "
                        "data-read=\"%lld\" data-returned=\"%lld\" "
                        "data-result=\"%lld\" data-flagged=\"%d\" "
                        "data-skipped=\"%d\" data-draws=\"%d\" "
                        "data-read-min=\"%lld\" data-read-max=\"%lld\">"
                        "<td class=\"n\">%d</td><td><pre>", i + 1,
                        (long long)pSt->nSeek, (long long)pSt->nRead,
                        (long long)pSt->nOut, (long long)pSt->nResult,
                        pSt->zFlag != 0, pSt->zSkipped != 0, pSt->nDraw,
                        (long long)pSt->nReadMin, (long long)pSt->nReadMax,
                        i + 1);
    wcHtmlText(pOut, pSt->zSql);
    sqlite3_str_appendall(pOut, "</pre>");
    if( pSt->zSkipped ){
      wcHtmlWrap(pOut, "<p>", pSt->zSkipped, "</p></td><td class=\"n\">");
      sqlite3_str_appendf(pOut, "%g</td><td></td><td></td><td></td><td></td>"
                          "<td></td></tr>", pSt->rWeight);
      continue;
    }
    wcHtmlWrap(pOut, "<pre class=\"src\">", pSt->zPlan,
               "</pre><div class=\"src\">widecol_stats: ");
    wcHtmlText(pOut, pSt->zStats);
    sqlite3_str_appendall(pOut, "</div>");
    if( pSt->nDraw > 1 ){
      /* One draw could hit a cold or a hot value: the median, and the
      ** spread over the draws. */
      sqlite3_str_appendf(pOut, "<div class=\"src\">its parameters drawn %d "
                          "times, each run: the median run (by rows read) is "
                          "shown; rows read from %lld to %lld</div>",
                          pSt->nDraw, (long long)pSt->nReadMin,
                          (long long)pSt->nReadMax);
    }
    if( pSt->zFlag ){
      wcHtmlWrap(pOut, "<p class=\"flag\">Flagged: it ", pSt->zFlag, "</p>");
    }
    sqlite3_str_appendf(pOut, "</td><td class=\"n\">%g</td><td class=\"n\">"
                        "%lld</td><td class=\"n\">%lld</td><td class=\"n\">"
                        "%lld</td><td class=\"n\">%lld</td><td>",
                        pSt->rWeight, (long long)pSt->nSeek,
                        (long long)pSt->nRead, (long long)pSt->nOut,
                        (long long)pSt->nResult);
    if( pSt->nTouched > 0 ){
      sqlite3_str_appendf(pOut, "%d of %d, from %d to %d", pSt->nTouched,
                          pD->nBucket, pSt->iFirst + 1, pSt->iLast + 1);
    }else{
      sqlite3_str_appendall(pOut, "none");
    }
    sqlite3_str_appendall(pOut, "</td></tr>");
  }
  sqlite3_str_appendall(pOut, "</table>");
}

/*
** Sizes.
*/

/* A histogram with limit lines at aLimit[] (0 ends), labelled azLimit[];
** the bins run to the largest of nScale and the limits. */
static void histogram(const ReportHist *pH, int nBinShown, int64_t nBinMax,
                      const char *zWhat, const int64_t *aLimit,
                      const char *const *azLimit, sqlite3_str *pOut){
  int i, k;
  const int nH = 90, nW = BAR_WIDTH;
  double rBinW = (double)(nW - 10) / nBinShown;
  sqlite3_str_appendf(pOut, "<h3>%s</h3><svg width=\"%d\" height=\"%d\" "
                      "role=\"img\" aria-label=\"%s in powers of two; the "
                      "largest is %lld\" data-count=\"%lld\" "
                      "data-max=\"%lld\">",
                      zWhat, nW, nH + 30, zWhat, (long long)pH->nMax,
                      (long long)pH->nCount, (long long)pH->nMax);
  for(i = 0; i < nBinShown && i < WC_REPORT_HIST; i++){
    double h = nBinMax > 0 && pH->aBin[i] > 0
             ? 2.0 + (nH - 2) * log1p((double)pH->aBin[i])
                     / log1p((double)nBinMax) : 0.0;
    if( h > 0.0 ){
      sqlite3_str_appendf(pOut, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
                          "width=\"%.1f\" height=\"%.1f\"><title>%lld at %lld "
                          "or more</title></rect>", 5 + i * rBinW, nH - h,
                          rBinW - 1, h, (long long)pH->aBin[i],
                          i ? (long long)1 << i : 0LL);
    }
    if( i % 4 == 0 ){
      sqlite3_str_appendf(pOut, "<text x=\"%.1f\" y=\"%d\" font-size=\"9\">",
                          5 + i * rBinW, nH + 12);
      wcHtmlSize(pOut, i ? (int64_t)1 << i : 0);
      sqlite3_str_appendall(pOut, "</text>");
    }
  }
  for(k = 0; aLimit[k]; k++){
    double x = 5 + log2((double)aLimit[k]) * rBinW;
    if( x > nW ) continue;
    /* A label right of its line, or left of it near the right edge. */
    int bLeft = x > nW / 2;
    sqlite3_str_appendf(pOut, "<line class=\"limit\" x1=\"%.1f\" y1=\"0\" "
                        "x2=\"%.1f\" y2=\"%d\"/><text x=\"%.1f\" y=\"%d\" "
                        "font-size=\"9\" fill=\"#b00020\" text-anchor=\"%s\">",
                        x, x, nH, bLeft ? x - 2 : x + 2, 10 + 10 * k,
                        bLeft ? "end" : "start");
    wcHtmlText(pOut, azLimit[k]);
    sqlite3_str_appendall(pOut, "</text>");
  }
  sqlite3_str_appendall(pOut, "</svg><p class=\"src\">");
  wcHtmlInt(pOut, pH->nCount);
  sqlite3_str_appendall(pOut, " in all, the largest ");
  wcHtmlSize(pOut, pH->nMax);
  sqlite3_str_appendall(pOut, ".</p>");
}

/* The bins the designs' histograms need (their values and the limits
** drawn), and the largest bin. */
static int histBins(const Report *p, size_t iOffset, const int64_t *aLimit,
                    int64_t *pnMax){
  int d, i, nBin = 8;
  *pnMax = 0;
  for(d = 0; d < p->nDesign; d++){
    const ReportHist *pH = (const ReportHist*)((const char*)&p->aDesign[d]
                                               + iOffset);
    for(i = 0; i < WC_REPORT_HIST; i++){
      if( pH->aBin[i] > 0 && i + 1 > nBin ) nBin = i + 1;
      if( pH->aBin[i] > *pnMax ) *pnMax = pH->aBin[i];
    }
  }
  for(i = 0; aLimit[i]; i++){
    int k = (int)log2((double)aLimit[i]) + 1;
    if( k > nBin ) nBin = k;
  }
  return nBin + 1 > WC_REPORT_HIST ? WC_REPORT_HIST : nBin + 1;
}

static void sizesSection(const Report *p, const ReportDesign *pD,
                         sqlite3_str *pOut){
  /* The engines' limits (util/wc_kind.h): Bigtable's and HBase's longest
  ** key, HBase's largest cell by default and Bigtable's largest row. */
  const WcKind *pBt = wcKind(WC_STORE_BIGTABLE);
  const WcKind *pHb = wcKind(WC_STORE_HBASE);
  const int64_t aKeyLimit[] = { pBt->nMaxKey, pHb->nMaxKey, 0 };
  const int64_t aRowLimit[] = { pHb->nMaxCell, pBt->nMaxRow, 0 };
  char azKey[2][64], azRow[2][80];
  const char *azKeyLimit[2], *azRowLimit[2];
  static const int64_t aPartLimit[] = { WC_LINT_PART_BYTES, 0 };
  static const char *const azPartLimit[] = {
    "Cassandra: 100 MB a partition (eBay, GeminiDB)"
  };
  static const int64_t aNone[] = { 0 };
  int i;
  for(i = 0; i < 2; i++){
    const WcKind *pKey = i ? pHb : pBt;
    sqlite3_snprintf(sizeof(azKey[i]), azKey[i], "%s: %,d-byte key",
                     pKey->zEngine, pKey->nMaxKey);
    azKeyLimit[i] = azKey[i];
  }
  sqlite3_snprintf(sizeof(azRow[0]), azRow[0], "%s: a cell's %lld MiB "
                   "(hbase.server.keyvalue.maxsize)", pHb->zEngine,
                   (long long)(pHb->nMaxCell >> 20));
  sqlite3_snprintf(sizeof(azRow[1]), azRow[1], "%s: %lld MiB row",
                   pBt->zEngine, (long long)(pBt->nMaxRow >> 20));
  azRowLimit[0] = azRow[0];
  azRowLimit[1] = azRow[1];
  int64_t nMax;
  int nBin;
  nBin = histBins(p, offsetof(ReportDesign, keyBytes), aKeyLimit, &nMax);
  histogram(&pD->keyBytes, nBin, nMax, "Key bytes", aKeyLimit, azKeyLimit,
            pOut);
  nBin = histBins(p, offsetof(ReportDesign, rowBytes), aRowLimit, &nMax);
  histogram(&pD->rowBytes, nBin, nMax, "Row bytes (the key and every value)",
            aRowLimit, azRowLimit, pOut);
  if( !pD->bCassandra ) return;
  nBin = histBins(p, offsetof(ReportDesign, partRows), aNone, &nMax);
  histogram(&pD->partRows, nBin, nMax, "Rows per partition", aNone, 0, pOut);
  nBin = histBins(p, offsetof(ReportDesign, partBytes), aPartLimit, &nMax);
  histogram(&pD->partBytes, nBin, nMax, "Bytes per partition", aPartLimit,
            azPartLimit, pOut);
  sqlite3_str_appendf(pOut, "<p data-partition-count=\"%lld\">%lld partitions; "
                      "the largest holds %lld rows, ", (long long)
                      pD->nPartition, (long long)pD->nPartition,
                      (long long)pD->nBigPartRows);
  wcHtmlSize(pOut, pD->nBigPartBytes);
  sqlite3_str_appendf(pOut, " (Cassandra's guidance: under %d cells and "
                      "100 MB).</p>", WC_LINT_PART_CELLS);
}

/*
** Findings.
*/

/* What a lint fix replaces, said above it: the ROWKEY clause, an INDEX
** clause of the table, every key clause (a fix that changes the
** encoding), or nothing (an INDEX to add). */
static void fixLabel(const ReportDesign *pD, const char *zFix,
                     sqlite3_str *pOut){
  int i;
  if( strstr(zFix, "ENCODING BINARY") ){
    sqlite3_str_appendall(pOut, "Fix, in place of every key clause (the "
                          "ROWKEY and each INDEX), the encoding with them:");
    return;
  }
  if( strncmp(zFix, "ROWKEY(", 7) == 0 ){
    sqlite3_str_appendall(pOut, "Fix, in place of the ROWKEY(...) clause:");
    return;
  }
  for(i = 0; i < pD->pS->nIndex; i++){
    sqlite3_str *pName = sqlite3_str_new(0);
    char *zHead;
    int bSame;
    sqlite3_str_appendall(pName, "INDEX ");
    wcAppendName(pName, pD->pS->aIndex[i].zName);
    sqlite3_str_appendall(pName, "(");
    zHead = sqlite3_str_finish(pName);
    bSame = zHead && strncmp(zFix, zHead, strlen(zHead)) == 0;
    if( bSame ){
      sqlite3_str_appendall(pOut, "Fix, in place of the ");
      wcHtmlTextN(pOut, zHead, (int64_t)strlen(zHead));
      sqlite3_str_appendall(pOut, "...) clause:");
    }
    sqlite3_free(zHead);
    if( bSame ) return;
  }
  sqlite3_str_appendall(pOut, "Fix, an INDEX to add to the CREATE VIRTUAL "
                        "TABLE (its other clauses stay):");
}

static void findingsSection(const Report *p, const ReportDesign *pD,
                            sqlite3_str *pOut){
  const ReportRows *pL = &pD->lint;
  int r;
  (void)p;
  sqlite3_str_appendall(pOut, "<p class=\"src\">");
  wcHtmlText(pOut, pL->zSql);
  sqlite3_str_appendf(pOut, "</p><div class=\"findings\" data-findings=\"%d\">",
                      pL->nRow);
  if( pL->nRow == 0 ){
    sqlite3_str_appendall(pOut, "<p>No finding: the lint found nothing to "
                          "change.</p>");
  }
  for(r = 0; r < pL->nRow; r++){
    sqlite3_str_appendf(pOut, "<div class=\"finding\" data-rule=\"%s\"><p>"
                        "<span class=\"sev-%s\">%s</span> <b>%s</b> ",
                        cell(pL, r, 1), cell(pL, r, 0), cell(pL, r, 0),
                        cell(pL, r, 1));
    if( cell(pL, r, 3) ){
      wcHtmlWrap(pOut, "on <code>", cell(pL, r, 3), "</code>");
    }
    wcHtmlWrap(pOut, ": ", cell(pL, r, 4), "</p>");
    if( cell(pL, r, 5) ){
      sqlite3_str_appendall(pOut, "<div>");
      fixLabel(pD, cell(pL, r, 5), pOut);
      sqlite3_str_appendall(pOut, "<pre class=\"fix\">");
      wcHtmlText(pOut, cell(pL, r, 5));
      sqlite3_str_appendall(pOut, "</pre><button class=\"copy\" "
                            "type=\"button\">copy</button></div>");
    }
    sqlite3_str_appendall(pOut, "</div>");
  }
  sqlite3_str_appendall(pOut, "</div>");
}

/*
** The page.
*/

static void designHead(const ReportDesign *pD, sqlite3_str *pOut){
  sqlite3_str_appendf(pOut, "<p class=\"src\">stored in %s; ",
                      pD->pS->eStore == WC_STORE_LOCAL ? "this database"
                                                       : pD->zStore);
  wcHtmlInt(pOut, pD->nRow);
  sqlite3_str_appendall(pOut, " rows</p><pre>");
  wcHtmlText(pOut, pD->zCreate);
  sqlite3_str_appendall(pOut, "</pre><button class=\"copy\" type=\"button\">"
                        "copy</button>");
}

/* The width a design's column needs, in CSS pixels: its anatomy table and
** first rows without a scrollbar. */
#define WC_REPORT_DESIGN_PX 600

/* A section: its title, where its figures come from, and a column per
** design (one under another where bStack: tables too wide to share). */
static void section(const Report *p, sqlite3_str *pOut, const char *zId,
                    const char *zTitle, const char *zFrom, int bStack,
                    SectionFn xFn){
  int d;
  sqlite3_str_appendf(pOut, "<section id=\"%s\"><h2>%s</h2>", zId, zTitle);
  if( zFrom ) sqlite3_str_appendf(pOut, "<p class=\"src\">%s</p>", zFrom);
  sqlite3_str_appendf(pOut, "<div class=\"designs%s\" style=\"--n:%d\">",
                      bStack ? " stack" : "", p->nDesign);
  for(d = 0; d < p->nDesign; d++){
    wcHtmlWrap(pOut, "<div class=\"design\" data-design=\"",
               p->aDesign[d].zName,
               "\">");
    if( p->nDesign > 1 ){
      wcHtmlWrap(pOut, "<h3>", p->aDesign[d].zName, "</h3>");
    }
    xFn(p, &p->aDesign[d], pOut);
    sqlite3_str_appendall(pOut, "</div>");
  }
  sqlite3_str_appendall(pOut, "</div></section>");
}

static void headSection(const Report *p, const ReportDesign *pD,
                        sqlite3_str *pOut){
  (void)p;
  designHead(pD, pOut);
}

void wcReportPage(const Report *p, sqlite3_str *pOut){
  int d;
  sqlite3_str_appendall(pOut, "<!DOCTYPE html><html lang=\"en\"><head><meta "
                        "charset=\"utf-8\"><meta name=\"viewport\" content=\""
                        "width=device-width\"><title>widecol report: ");
  for(d = 0; d < p->nDesign; d++){
    if( d ) sqlite3_str_appendall(pOut, ", ");
    wcHtmlText(pOut, p->aDesign[d].zName);
  }
  /* Designs side by side where each has WC_REPORT_DESIGN_PX (its key
  ** anatomy and its tables fit), one under another in a narrower window. */
  sqlite3_str_appendf(pOut, "</title><style>%s@media (max-width:%dpx){"
                      ".designs{grid-template-columns:minmax(0,1fr)}}</style>"
                      "</head><body><h1>widecol report: ", zStyle,
                      p->nDesign * WC_REPORT_DESIGN_PX + 48);
  for(d = 0; d < p->nDesign; d++){
    if( d ) sqlite3_str_appendall(pOut, " beside ");
    wcHtmlText(pOut, p->aDesign[d].zName);
  }
  sqlite3_str_appendf(pOut, "</h1><p class=\"src\">widecol %s. Every figure "
                      "comes from a function you can call: each picture "
                      "names it.</p>", WIDECOL_VERSION);
  section(p, pOut, "designs", "The design", 0, 0, headSection);
  section(p, pOut, "anatomy", "Key anatomy", "The key's bytes by element: "
          "the SQL beside each makes the same bytes with the rk_* functions "
          "(docs/functions.md).", 0, anatomySection);
  section(p, pOut, "heatmap", "Key Visualizer, before the cluster",
          "Writes per key bucket and time (darker: more, on one log scale "
          "for every design); with a workload, the reads and rows read per "
          "bucket beside it, counted from the rows each statement's scans "
          "read.", 0, heatmapSection);
  section(p, pOut, "regions", "Regions", "The table's writes replayed in "
          "write order by widecol_regions (HBase's split at the middle key); "
          "bytes per region are the rows' keys and values.", 0, regionsSection);
  if( p->zWorkload ){
    section(p, pOut, "queries", "Per query", "Each read of the workload run "
            "once on the table, its counters from widecol_stats() (reset "
            "before it) and its plan from EXPLAIN QUERY PLAN.",
            1, queriesSection);
  }
  section(p, pOut, "sizes", "Sizes", "Powers of two across, counts down "
          "(log scale), the stores' limits in red.", 0, sizesSection);
  section(p, pOut, "findings", "Findings", "widecol_lint's findings, run "
          "after the workload so that its scans count; each fix is the "
          "clause to put in the CREATE statement.", 0, findingsSection);
  sqlite3_str_appendf(pOut, "<script>%s</script></body></html>\n", zScript);
}
