# widecol: a SQLite loadable extension for wide-column row-key designs.
#
#   make            build widecol.so, widecol_bigtable.so (where gRPC is
#                   installed; else skipped, saying so), libwidecol.a (to
#                   embed: SQLITE_CORE) and widecol.pc
#   make test       every test: make check-packaging, check-stores, check
#   make check      the core's tests: layers, sqllogictest scripts, corpus
#                   replays, the differential test, the Python harnesses
#   make check-stores    the Bigtable store on its emulator, the HBase
#                   store on HBase's mini cluster, widecol's Cassandra
#                   predictions on Cassandra 5.0; loading
#   make check-packaging install, dist, the embedding example, the docs
#   make install    the libraries, widecol.h, widecol.pc, docs and sql/
#                   examples under PREFIX (/usr/local), staged in DESTDIR;
#                   make uninstall removes them
#   make examples   examples/embed, widecol linked into a program
#   make dist       widecol-<version>.tar.gz, the version from ext/widecol.h
#   make distcheck  that tarball unpacked elsewhere, built, its make check run
#   make asan       the same tests with AddressSanitizer + UBSan
#   make demo       run sql/demo.sql in the sqlite3 shell
#   make bigtable   build widecol_bigtable.so, the Bigtable store (gRPC,
#                   protobuf-c); `make` builds it too
#   make bigtable-demo  the payments design on Google's Bigtable emulator
#                   (sql/bigtable/demo.sh starts and stops it)
#   make hbase      build widecol_hbase.so, the HBase store (HBase's own
#                   RPC, or its Thrift2 gateway; protobuf-c); `make` builds
#                   it too
#   make hbase-demo the payments design on a real HBase
#                   (sql/hbase/demo.sh starts and stops it)
#   make cassandra  build widecol_cassandra.so, the Cassandra store
#   make cassandra-demo  the eBay and GeminiDB scripts on a real Cassandra
#                   (sql/cassandra/demo.sh starts and stops it)
#   make bench      widecol against SQLite's own B-tree (bench/bench.c) at
#                   100,000 and 1,000,000 rows; BENCH_10M=1 adds 10,000,000
#   make compare    1,000,000 orders under a sequential, a reversed and a
#                   salted key: write skew and scan cost side by side, and
#                   docs/regions.svg (bench/compare.py; COMPARE_ROWS=n)
#   make bench-more salted and bucketed keys (bench/skip.py), queries by
#                   INDEX and write cost per index (bench/index.py), reads
#                   and writes of versions (bench/versions.py), TOKEN and
#                   RANDOM designs (bench/token.py, bench/randomkey.py),
#                   widecol_advise over 1,000,000 rows (bench/advise.py)
#   make bench-cassandra  1,000,000 likes on Cassandra against its Java and
#                   Python drivers and cqlsh's COPY FROM, on 3 nodes, then
#                   on one (bench/cassandra_scale.py, bench/cassandra/)
#   make valgrind   the sqllogictest scripts and corpus replays under valgrind
#   make fuzz       each libFuzzer target (tests/fuzz/) for FUZZ_SECONDS (60),
#                   growing its corpus in tests/fuzz/corpus/<target>
#   make soak       the differential test on new seeds for SOAK_SECONDS (600),
#                   100 crashes per journal mode, 8 concurrent writers
#   make clean

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
EXTFLAGS = -fPIC -fvisibility=hidden
LDLIBS   = -lcrypto -lm

# The sources, by layer (docs/architecture.md): each folder's files are
# found by glob, so a new file needs no line here.  Calls point down only:
# tools -> vtab -> store -> key -> util (tests/layers.py checks it).
LAYERS   = util key store vtab tools
EXT_SRC  = ext/widecol.c $(foreach d,$(LAYERS),$(wildcard ext/$(d)/*.c))
EXT_HDR  = ext/widecol.h $(foreach d,$(LAYERS),$(wildcard ext/$(d)/*.h))

# The store wing (ext/stores/, docs/architecture.md): each store a library
# of its own, which links util/ and the wing's shared pieces and nothing
# else of the core (store/'s side of the contract is a header): the
# contract read once (stores/contract/), an arena and sockets
# (stores/common/), the engine-neutral cell store (stores/cells/) under a
# transport.
#   widecol_bigtable.so  the cell store over Bigtable's gRPC transport
#                        (messages generated from our own bt_wire.proto,
#                        with protobuf-c)
#   widecol_hbase.so     the cell store over HBase's own RPC (messages
#                        generated from our own hb_wire.proto, with
#                        protobuf-c) or its Thrift2 gateway
#   widecol_cassandra.so rows as CQL tables; it uses key/'s codec too, a
#                        CQL table's typed columns made from row keys
# Cassandra's needs nothing more than widecol.so does.
STORE_SRC = $(wildcard ext/util/*.c) $(wildcard ext/stores/common/*.c) \
            $(wildcard ext/stores/contract/*.c)
CELLS_SRC = $(STORE_SRC) $(wildcard ext/stores/cells/*.c)
BT_SRC    = $(CELLS_SRC) $(wildcard ext/stores/bigtable/*.c)
HB_SRC    = $(CELLS_SRC) $(wildcard ext/stores/hbase/*.c)
CQ_SRC    = $(STORE_SRC) $(wildcard ext/key/*.c) \
            $(wildcard ext/stores/cassandra/*.c)
BT_CFLAGS = $(shell pkg-config --cflags grpc libprotobuf-c 2>/dev/null)
BT_LIBS   = $(shell pkg-config --libs grpc libprotobuf-c 2>/dev/null)
# Without gRPC's C core, protobuf-c and protoc-c, `make` builds the rest
# and says how to get the Bigtable store (make HAVE_BT= pretends so).
HAVE_BT  := $(shell pkg-config --exists grpc libprotobuf-c 2>/dev/null && \
              command -v protoc-c >/dev/null 2>&1 && echo 1)
BT_SO     = $(if $(HAVE_BT),widecol_bigtable.so)
BT_NEEDS  = it needs gRPC's C core, protobuf-c and protoc-c (apt-get \
            install libgrpc-dev libprotobuf-c-dev protobuf-c-compiler, \
            then make)
HB_CFLAGS = $(shell pkg-config --cflags libprotobuf-c 2>/dev/null)
HB_LIBS   = $(shell pkg-config --libs libprotobuf-c 2>/dev/null)
# Without protobuf-c and protoc-c, `make` builds the rest and says how to
# get the HBase store.
HAVE_HB  := $(shell pkg-config --exists libprotobuf-c 2>/dev/null && \
              command -v protoc-c >/dev/null 2>&1 && echo 1)
HB_SO     = $(if $(HAVE_HB),widecol_hbase.so)
HB_NEEDS  = it needs protobuf-c and protoc-c (apt-get install \
            libprotobuf-c-dev protobuf-c-compiler, then make)
TESTS    = $(sort $(wildcard tests/logic/*.test))

# Sanitizer builds live in their own directory so they never mix with the
# release objects.
ASAN_DIR   = build/asan
ASAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
             -fno-sanitize-recover=all -DWC_DEBUG

.PHONY: all test check check-stores check-packaging asan valgrind pyclient demo bench bench-more compare soak fuzz clean \
  report report-screenshots bench-report \
        bigtable bigtable-demo test-bigtable hbase hbase-demo bench-hbase cassandra cassandra-demo \
        bench-cassandra examples install \
        uninstall dist \
        distcheck

all: widecol.so $(BT_SO) $(HB_SO) widecol_cassandra.so libwidecol.a
ifeq ($(HAVE_BT),)
	@echo "widecol: built widecol.so, $(HB_SO) widecol_cassandra.so and libwidecol.a; widecol_bigtable.so, the Bigtable store, was skipped: $(BT_NEEDS)"
endif
ifeq ($(HAVE_HB),)
	@echo "widecol: widecol_hbase.so, the HBase store, was skipped: $(HB_NEEDS)"
endif

# The version, read from its one place: the public header.
VERSION := $(shell sed -n 's/^\#define WIDECOL_VERSION "\(.*\)"/\1/p' ext/widecol.h)

# GNU installation directories; DESTDIR stages an install elsewhere.
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
libdir      ?= $(prefix)/lib
includedir  ?= $(prefix)/include
datadir     ?= $(prefix)/share
docdir      ?= $(datadir)/doc/widecol
pkgconfigdir ?= $(libdir)/pkgconfig
INSTALL     ?= install

# Objects, one tree per build: build/pic for the loadable libraries,
# build/lib for the static library (compiled with SQLITE_CORE, as SQLite's
# own extensions are when built into an application: widecol.h,
# examples/embed.c), build/asan/pic and build/asan/lib for the sanitizer
# build, build/fuzz/lib for libFuzzer's (its coverage instrumentation).  -MMD -MP
# write each object's header dependencies beside it (.d), so a change to
# one header rebuilds the objects that include it and no more.
DEPFLAGS = -Iext -MMD -MP
PIC_OBJ  = $(EXT_SRC:ext/%.c=build/pic/%.o)
LIB_OBJ  = $(EXT_SRC:ext/%.c=build/lib/%.o)
ASAN_OBJ = $(EXT_SRC:ext/%.c=$(ASAN_DIR)/pic/%.o)
ASAN_LIB_OBJ = $(EXT_SRC:ext/%.c=$(ASAN_DIR)/lib/%.o)
FUZZ_LIB_OBJ = $(EXT_SRC:ext/%.c=build/fuzz/lib/%.o)
BT_OBJ      = $(BT_SRC:ext/%.c=build/pic/%.o)
BT_ASAN_OBJ = $(BT_SRC:ext/%.c=$(ASAN_DIR)/pic/%.o)
HB_OBJ      = $(HB_SRC:ext/%.c=build/pic/%.o)
HB_ASAN_OBJ = $(HB_SRC:ext/%.c=$(ASAN_DIR)/pic/%.o)
CQ_OBJ      = $(CQ_SRC:ext/%.c=build/pic/%.o)
CQ_ASAN_OBJ = $(CQ_SRC:ext/%.c=$(ASAN_DIR)/pic/%.o)

build/pic/%.o: ext/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(EXTFLAGS) $(DEPFLAGS) $(PB_INC) -c -o $@ $<

build/lib/%.o: ext/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(DEPFLAGS) -DSQLITE_CORE -c -o $@ $<

$(ASAN_DIR)/pic/%.o: ext/%.c
	@mkdir -p $(@D)
	$(CC) $(ASAN_FLAGS) $(WARN) $(EXTFLAGS) $(DEPFLAGS) $(PB_INC) -c -o $@ $<

$(ASAN_DIR)/lib/%.o: ext/%.c
	@mkdir -p $(@D)
	$(CC) $(ASAN_FLAGS) $(WARN) $(DEPFLAGS) -DSQLITE_CORE -c -o $@ $<

build/fuzz/lib/%.o: ext/%.c
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -DSQLITE_CORE \
	  -c -o $@ $<

# The Bigtable transport's files see the generated messages and gRPC's
# headers.
build/pic/stores/bigtable/%.o $(ASAN_DIR)/pic/stores/bigtable/%.o: \
  PB_INC = -Ibuild/bt $(BT_CFLAGS)
$(filter build/pic/stores/bigtable/% $(ASAN_DIR)/pic/stores/bigtable/%,\
  $(BT_OBJ) $(BT_ASAN_OBJ)): | build/bt/bt_wire.pb-c.h
# The HBase transports' files see the generated messages.
build/pic/stores/hbase/%.o $(ASAN_DIR)/pic/stores/hbase/%.o: \
  PB_INC = -Ibuild/hb $(HB_CFLAGS)
$(filter build/pic/stores/hbase/% $(ASAN_DIR)/pic/stores/hbase/%,\
  $(HB_OBJ) $(HB_ASAN_OBJ)): | build/hb/hb_wire.pb-c.h

-include $(wildcard $(foreach t,build/pic build/lib $(ASAN_DIR)/pic \
  $(ASAN_DIR)/lib build/fuzz/lib,$(t)/*.d $(t)/*/*.d $(t)/*/*/*.d))

libwidecol.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

$(ASAN_DIR)/libwidecol.a: $(ASAN_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $(ASAN_LIB_OBJ)

build/fuzz/libwidecol.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $(FUZZ_LIB_OBJ)

examples: examples/embed

examples/embed: examples/embed.c libwidecol.a ext/widecol.h
	$(CC) $(CFLAGS) $(WARN) -Iext -o $@ examples/embed.c libwidecol.a \
	  -lsqlite3 $(LDLIBS)

# make install [PREFIX=/usr/local] [DESTDIR=/tmp/stage].  The docs keep
# the tree's layout, so their links hold; the sql/ examples load the
# installed library; widecol.pc names the installed paths.
# Installed docs keep their links: the files they link to that a user of
# the installed tree needs are installed beside them; a link to a file of
# the source tree only (tests/, ext/, bench/, Makefile) becomes its text
# and the path, "(tests/x.py in the source tarball)".
SRC_ONLY     = \(\(tests\|ext\|bench\)/[^)\#]*\|Makefile\)
DOC_SRC_LINK = -e 's@\[`\($(SRC_ONLY)\)`\](\(\.\./\)*\1)@`\1` (in the source tarball)@g' \
               -e 's@\[\([^]]*\)\](\(\.\./\)*$(SRC_ONLY)[^)]*)@\1 (\3 in the source tarball)@g'

install: all
	$(INSTALL) -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) \
	  $(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(docdir)/docs \
	  $(DESTDIR)$(docdir)/docs/report \
	  $(DESTDIR)$(docdir)/sql/bigtable $(DESTDIR)$(docdir)/sql/hbase \
	  $(DESTDIR)$(docdir)/sql/cassandra $(DESTDIR)$(docdir)/examples \
	  $(DESTDIR)$(docdir)/servers/hbase/src/main/java \
	  $(DESTDIR)$(docdir)/servers/cassandra \
	  $(DESTDIR)$(docdir)/python
	$(INSTALL) -m 755 widecol.so $(BT_SO) $(HB_SO) widecol_cassandra.so $(DESTDIR)$(libdir)
	$(INSTALL) -m 644 libwidecol.a $(DESTDIR)$(libdir)
	$(INSTALL) -m 644 ext/widecol.h $(DESTDIR)$(includedir)
	sed -e 's|@VERSION@|$(VERSION)|' -e 's|@prefix@|$(prefix)|' \
	    -e 's|@libdir@|$(libdir)|' -e 's|@includedir@|$(includedir)|' \
	    widecol.pc.in > $(DESTDIR)$(pkgconfigdir)/widecol.pc
	$(INSTALL) -m 644 LICENSE $(DESTDIR)$(docdir)
	for f in README.md CHANGELOG.md DEVELOPERS.md docs/*.md python/README.md; do \
	  sed $(DOC_SRC_LINK) $$f > $(DESTDIR)$(docdir)/$$f || exit 1; \
	done
	$(INSTALL) -m 644 docs/*.svg $(DESTDIR)$(docdir)/docs
	$(INSTALL) -m 644 docs/report/*.png $(DESTDIR)$(docdir)/docs/report
	$(INSTALL) -m 644 examples/embed.c $(DESTDIR)$(docdir)/examples
	for f in sql/*.sql sql/bigtable/*.sql sql/hbase/*.sql; do \
	  sed -e 's|^\.load \./widecol$$|.load $(libdir)/widecol|' \
	      -e 's|^\.load \./widecol_bigtable$$|.load $(libdir)/widecol_bigtable|' \
	      -e 's|^\.load \./widecol_hbase$$|.load $(libdir)/widecol_hbase|' \
	      $$f > $(DESTDIR)$(docdir)/$$f || exit 1; \
	done
	$(INSTALL) -m 755 sql/bigtable/demo.sh sql/bigtable/existing.sh sql/bigtable/emulator.sh \
	  $(DESTDIR)$(docdir)/sql/bigtable
	$(INSTALL) -m 755 sql/hbase/demo.sh $(DESTDIR)$(docdir)/sql/hbase
	$(INSTALL) -m 755 sql/cassandra/demo.sh sql/cassandra/on_cassandra.py \
	  $(DESTDIR)$(docdir)/sql/cassandra
	$(INSTALL) -m 644 tests/servers/java.sh tests/servers/hbase.sh \
	  tests/servers/cassandra.sh $(DESTDIR)$(docdir)/servers
	$(INSTALL) -m 644 tests/servers/hbase/pom.xml tests/servers/hbase/create.rb \
	  $(DESTDIR)$(docdir)/servers/hbase
	$(INSTALL) -m 644 tests/servers/hbase/src/main/java/WidecolHBase.java \
	  $(DESTDIR)$(docdir)/servers/hbase/src/main/java
	$(INSTALL) -m 644 tests/servers/cassandra/pom.xml $(DESTDIR)$(docdir)/servers/cassandra

uninstall:
	rm -f $(DESTDIR)$(libdir)/widecol.so $(DESTDIR)$(libdir)/widecol_bigtable.so \
	  $(DESTDIR)$(libdir)/widecol_hbase.so $(DESTDIR)$(libdir)/widecol_cassandra.so \
	  $(DESTDIR)$(libdir)/libwidecol.a $(DESTDIR)$(includedir)/widecol.h \
	  $(DESTDIR)$(pkgconfigdir)/widecol.pc
	rm -rf $(DESTDIR)$(docdir)

# make dist: widecol-<version>.tar.gz of the files in git, which builds
# and passes its tests unpacked (tests/packaging/dist_check.sh).
dist:
	git archive --format=tar.gz --prefix=widecol-$(VERSION)/ \
	  -o widecol-$(VERSION).tar.gz HEAD
	@echo "widecol-$(VERSION).tar.gz"

# make distcheck: the release tarball unpacked in a directory of its own,
# built, and its make check run there, as a user who downloads it would
# (CI runs it; the stores and packaging checks run from the tree).
distcheck: dist
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  tar -xzf widecol-$(VERSION).tar.gz -C "$$tmp" && \
	  rm -f widecol-$(VERSION).tar.gz && \
	  $(MAKE) -C "$$tmp/widecol-$(VERSION)" -s && \
	  $(MAKE) -C "$$tmp/widecol-$(VERSION)" check && \
	  echo "distcheck: widecol-$(VERSION).tar.gz builds and its make check passes unpacked"

ifneq ($(HAVE_BT),)
build/bt/bt_wire.pb-c.c build/bt/bt_wire.pb-c.h: ext/stores/bigtable/bt_wire.proto
	@mkdir -p build/bt
	protoc-c --c_out=build/bt -Iext/stores/bigtable ext/stores/bigtable/bt_wire.proto

# Generated code: compiled without our warning flags, its symbols hidden
# as ours are (the library exports its entry point alone).
build/bt/bt_wire.pb-c.o: build/bt/bt_wire.pb-c.c build/bt/bt_wire.pb-c.h
	$(CC) $(CFLAGS) $(EXTFLAGS) $(BT_CFLAGS) -c -o $@ build/bt/bt_wire.pb-c.c
endif

ifeq ($(HAVE_HB),)
hbase widecol_hbase.so $(ASAN_DIR)/widecol_hbase.so:
	@echo "widecol: widecol_hbase.so, the HBase store, cannot be built here: $(HB_NEEDS)"; exit 1
else
hbase: widecol_hbase.so

build/hb/hb_wire.pb-c.c build/hb/hb_wire.pb-c.h: ext/stores/hbase/hb_wire.proto
	@mkdir -p build/hb
	protoc-c --c_out=build/hb -Iext/stores/hbase ext/stores/hbase/hb_wire.proto

# Generated code: compiled without our warning flags, its symbols hidden
# as ours are (the library exports its entry point alone).
build/hb/hb_wire.pb-c.o: build/hb/hb_wire.pb-c.c build/hb/hb_wire.pb-c.h
	$(CC) $(CFLAGS) $(EXTFLAGS) $(HB_CFLAGS) -c -o $@ build/hb/hb_wire.pb-c.c

widecol_hbase.so: $(HB_OBJ) build/hb/hb_wire.pb-c.o
	$(CC) $(CFLAGS) -shared -o $@ $(HB_OBJ) build/hb/hb_wire.pb-c.o \
	  $(LDLIBS) $(HB_LIBS)

$(ASAN_DIR)/widecol_hbase.so: $(HB_ASAN_OBJ) build/hb/hb_wire.pb-c.o
	$(CC) $(ASAN_FLAGS) -shared -o $@ $(HB_ASAN_OBJ) build/hb/hb_wire.pb-c.o \
	  $(LDLIBS) $(HB_LIBS)
endif

ifeq ($(HAVE_BT),)
bigtable widecol_bigtable.so $(ASAN_DIR)/widecol_bigtable.so:
	@echo "widecol: widecol_bigtable.so, the Bigtable store, cannot be built here: $(BT_NEEDS)"; exit 1
else
bigtable: widecol_bigtable.so

widecol_bigtable.so: $(BT_OBJ) build/bt/bt_wire.pb-c.o
	$(CC) $(CFLAGS) -shared -o $@ $(BT_OBJ) build/bt/bt_wire.pb-c.o $(BT_LIBS)

$(ASAN_DIR)/widecol_bigtable.so: $(BT_ASAN_OBJ) build/bt/bt_wire.pb-c.o
	$(CC) $(ASAN_FLAGS) -shared -o $@ $(BT_ASAN_OBJ) build/bt/bt_wire.pb-c.o \
	  $(BT_LIBS)
endif

widecol.so: $(PIC_OBJ)
	$(CC) $(CFLAGS) -shared -o $@ $(PIC_OBJ) $(LDLIBS)

cassandra: widecol_cassandra.so

cassandra-demo: widecol.so widecol_cassandra.so
	@sh sql/cassandra/demo.sh

widecol_cassandra.so: $(CQ_OBJ)
	$(CC) $(CFLAGS) -shared -o $@ $(CQ_OBJ) $(LDLIBS)

$(ASAN_DIR)/widecol_cassandra.so: $(CQ_ASAN_OBJ)
	$(CC) $(ASAN_FLAGS) -shared -o $@ $(CQ_ASAN_OBJ) $(LDLIBS)

build/slt: tests/logic/slt.c
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -o $@ tests/logic/slt.c -lsqlite3 -lcrypto

# Statements per design for the differential test in `make test`.
DIFF_CASES = 300

# Fuzz targets: libFuzzer binaries (clang) for `make fuzz`, and replays of
# their corpora (any compiler) for `make test` and `make asan`.  Each links
# the static library of its build (libwidecol.a, build/asan/libwidecol.a,
# build/fuzz/libwidecol.a), as an application that embeds widecol does.
FUZZ_TARGETS = schema codec functions
FUZZ_DIR     = build/fuzz
FUZZ_SECONDS = 60
FUZZ_CORPUS  = tests/fuzz/corpus
FUZZ_FLAGS   = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_DEPS    = tests/fuzz/fuzz_common.h
REPLAY       = $(FUZZ_TARGETS:%=build/replay/%)
ASAN_REPLAY  = $(FUZZ_TARGETS:%=$(ASAN_DIR)/replay_%)

$(FUZZ_DIR)/%: tests/fuzz/fuzz_%.c $(FUZZ_DEPS) build/fuzz/libwidecol.a
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -Iext -DSQLITE_CORE -o $@ $< \
	  build/fuzz/libwidecol.a -lsqlite3 $(LDLIBS)

build/replay/%: tests/fuzz/fuzz_%.c tests/fuzz/standalone.c $(FUZZ_DEPS) libwidecol.a
	@mkdir -p build/replay
	$(CC) $(CFLAGS) -Iext -DSQLITE_CORE -o $@ $< tests/fuzz/standalone.c libwidecol.a \
	  -lsqlite3 $(LDLIBS)

$(ASAN_DIR)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/standalone.c $(FUZZ_DEPS) \
  $(ASAN_DIR)/libwidecol.a
	@mkdir -p $(ASAN_DIR)
	$(CC) $(ASAN_FLAGS) -Iext -DSQLITE_CORE -o $@ $< tests/fuzz/standalone.c \
	  $(ASAN_DIR)/libwidecol.a -lsqlite3 $(LDLIBS)

fuzz: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_CORPUS)/$$t; \
	  $(FUZZ_DIR)/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=512 \
	    -print_final_stats=1 $(FUZZ_CORPUS)/$$t 2>&1 | grep -E 'stat::|ERROR|SUMMARY|Done' ; \
	done

# make test runs the three groups below; each runs alone too:
#   make check-packaging  each library's exports, the embedding example,
#                         make install, the release tarball, the docs (their links, runnable blocks,
#                         the tutorial, quoted figures)
#   make check-stores     the Bigtable store on Google's emulator, the
#                         HBase store on HBase's mini cluster, the
#                         Cassandra store on Cassandra 5.0, and loading
#                         the libraries the ways users do
#   make check            the core: the layers check, the sqllogictest
#                         scripts, the corpus replays, the differential
#                         test and the Python harnesses
# tests/run.sh runs the steps: each runs even when another failed, and
# the last line is always the count, "N passed, N failed".
RUN_TESTS = LAYER_OBJS="$(sort $(PIC_OBJ) $(if $(HAVE_BT),$(BT_OBJ)) $(HB_OBJ) $(CQ_OBJ))" \
  FUZZ_TARGETS="$(FUZZ_TARGETS)" DIFF_CASES=$(DIFF_CASES) TESTS="$(TESTS)" \
  BT_SO="$(BT_SO)" bash tests/run.sh
CHECK_DEPS = widecol.so $(BT_SO) $(HB_SO) widecol_cassandra.so build/slt

test: $(CHECK_DEPS) libwidecol.a examples/embed $(REPLAY)
	@$(RUN_TESTS) packaging stores core

check-packaging: $(CHECK_DEPS) libwidecol.a examples/embed
	@$(RUN_TESTS) packaging

check-stores: $(CHECK_DEPS)
	@$(RUN_TESTS) stores

check: $(CHECK_DEPS) $(REPLAY)
	@$(RUN_TESTS) core

$(ASAN_DIR)/widecol.so: $(ASAN_OBJ)
	$(CC) $(ASAN_FLAGS) -shared -o $@ $(ASAN_OBJ) $(LDLIBS)

$(ASAN_DIR)/slt: tests/logic/slt.c
	@mkdir -p $(ASAN_DIR)
	$(CC) $(ASAN_FLAGS) $(WARN) -o $@ tests/logic/slt.c -lsqlite3 -lcrypto

# Google's Bigtable emulator (google-cloud-cli-bigtable-emulator), if here.
BT_EMULATOR = $(shell command -v cbtemulator 2>/dev/null || dpkg -L \
  google-cloud-cli-bigtable-emulator 2>/dev/null | grep '/cbtemulator$$' | head -n 1)

# python3 is not built with the sanitizers, so their runtimes are preloaded
# for the differential test (leaks are checked by the slt run instead).
SAN_PRELOAD = $(shell $(CC) -print-file-name=libasan.so) \
              $(shell $(CC) -print-file-name=libubsan.so)

asan: $(ASAN_DIR)/widecol.so $(BT_SO:%=$(ASAN_DIR)/%) $(HB_SO:%=$(ASAN_DIR)/%) \
      $(ASAN_DIR)/widecol_cassandra.so $(ASAN_DIR)/slt $(ASAN_REPLAY)
	@sh tests/logic/selftest.sh $(ASAN_DIR)/slt
	@st=0; for s in hbase cassandra bigtable; do \
	  ASAN_OPTIONS=detect_leaks=1 STORE_SLT=$(ASAN_DIR)/slt STORE_LIB=$(ASAN_DIR) \
	  STORE_SCRIPTS_ONLY=1 STORE_PRELOAD="$(SAN_PRELOAD)" \
	  WIDECOL_CASSANDRA_DIR=build/cassandra-asan sh tests/stores/$$s/run.sh \
	  || st=1; done; exit $$st
	@if command -v cbt >/dev/null 2>&1 && [ -x "$(BT_EMULATOR)" ] \
	  && [ -f $(ASAN_DIR)/widecol_bigtable.so ]; then \
	  LD_PRELOAD="$(SAN_PRELOAD)" ASAN_OPTIONS=detect_leaks=0 \
	  timeout 900 /usr/bin/python3 tests/stores/bigtable/reliability.py \
	  --emulator "$(BT_EMULATOR)" --extension $(ASAN_DIR)/widecol \
	  --bigtable $(ASAN_DIR)/widecol_bigtable; fi
	@for t in $(FUZZ_TARGETS); do \
	  ASAN_OPTIONS=detect_leaks=1 $(ASAN_DIR)/replay_$$t $(FUZZ_CORPUS)/$$t; done
	@LD_PRELOAD="$(SAN_PRELOAD)" ASAN_OPTIONS=detect_leaks=0 \
	  /usr/bin/python3 tests/harness/differential.py \
	  --extension $(ASAN_DIR)/widecol --cases $(DIFF_CASES)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(ASAN_DIR)/slt --defensive --extension $(ASAN_DIR)/widecol.so $(TESTS)

# `make soak SOAK_SECONDS=3600`: new seeds, 20 random designs each, until
# the time is up (a mismatch prints a shrunk script that reproduces it),
# then 100 kills per journal mode and a longer concurrent write.
SOAK_SECONDS = 600
SOAK_SEED = $(shell date +%s)

soak: widecol.so
	/usr/bin/python3 tests/harness/differential.py --extension ./widecol \
	  --seed $(SOAK_SEED) --cases 1000 --random 20 --seconds $(SOAK_SECONDS)
	/usr/bin/python3 tests/harness/crash.py --extension ./widecol --iterations 100 \
	  --seed $(SOAK_SEED)
	/usr/bin/python3 tests/harness/concurrency.py --extension ./widecol --procs 8 --txns 500

VALGRIND = valgrind -q --error-exitcode=1 --leak-check=full \
           --errors-for-leak-kinds=definite

valgrind: widecol.so build/slt $(REPLAY)
	@for t in $(FUZZ_TARGETS); do \
	  $(VALGRIND) build/replay/$$t $(FUZZ_CORPUS)/$$t || exit 1; done
	@$(VALGRIND) build/slt --defensive --extension ./widecol.so $(TESTS)

# Google's Python client for Bigtable (google-cloud-bigtable), in a Python
# of its own over Debian's (whose sqlite3 loads extensions): the other
# application of tests/stores/bigtable/existing.py and a baseline of
# bench/bigtable.py.  .ci/run makes it; WIDECOL_PY names another.
PYCLIENT_DIR = /opt/widecol-py

pyclient:
	@/usr/bin/python3 -m venv --system-site-packages $(PYCLIENT_DIR)
	@$(PYCLIENT_DIR)/bin/pip install -q --disable-pip-version-check \
	  google-cloud-bigtable==2.50.2

demo: all
	sqlite3 :memory: < sql/demo.sql

bigtable-demo: widecol.so widecol_bigtable.so
	sh sql/bigtable/demo.sh

hbase-demo: widecol.so widecol_hbase.so
	sh sql/hbase/demo.sh

bench/bench: bench/bench.c
	$(CC) $(CFLAGS) $(WARN) -o $@ bench/bench.c -lsqlite3

BENCH_ROWS = --rows 100000 --rows 1000000 $(if $(BENCH_10M),--rows 10000000)
BENCH_DIR  = /tmp

bench: widecol.so bench/bench
	bench/bench $(BENCH_ROWS) --dir $(BENCH_DIR) --extension ./widecol

bench-more: widecol.so
	/usr/bin/python3 bench/skip.py --extension ./widecol
	/usr/bin/python3 bench/index.py --extension ./widecol
	/usr/bin/python3 bench/versions.py --extension ./widecol
	/usr/bin/python3 bench/ring.py --extension ./widecol
	/usr/bin/python3 bench/token.py --extension ./widecol
	/usr/bin/python3 bench/randomkey.py --extension ./widecol
	/usr/bin/python3 bench/advise.py --extension ./widecol

# widecol on HBase against HBase's Java client (starts HBase itself).
bench-hbase: widecol.so widecol_hbase.so
	/usr/bin/python3 bench/hbase_scale.py --extension ./widecol --hbase ./widecol_hbase

bench-cassandra: widecol.so widecol_cassandra.so
	/usr/bin/python3 bench/cassandra_scale.py --nodes 3 --extension ./widecol --cassandra ./widecol_cassandra
	/usr/bin/python3 bench/cassandra_scale.py --nodes 1 --extension ./widecol --cassandra ./widecol_cassandra

# widecol_report's page of every widecol table of the sql/ examples, in
# build/report/ (sql/report.sh).
report: widecol.so
	@sh sql/report.sh ./widecol build/report

# The screenshots the README and docs/design-tools.md show, made by the
# browser test from its compare page.
report-screenshots: widecol.so
	@mkdir -p docs/report
	@/usr/bin/python3 tests/harness/report_browser.py --extension ./widecol \
	  --screenshot docs/report/report.png --sections docs/report
	@/usr/bin/python3 tests/harness/one_voice.py --extension ./widecol \
	  --screenshot docs/report/iot.png

# widecol_report on 1,000,000 rows: time against a full scan, page size,
# Chromium's render time (bench/report.py).
bench-report: widecol.so
	/usr/bin/python3 bench/report.py --extension ./widecol

COMPARE_ROWS = 1000000
compare: widecol.so
	/usr/bin/python3 bench/compare.py --extension ./widecol \
	  --rows $(COMPARE_ROWS) --svg docs/regions.svg

clean:
	rm -rf widecol.so widecol_bigtable.so widecol_hbase.so widecol_cassandra.so libwidecol.a \
	  examples/embed bench/bench build widecol-*.tar.gz
