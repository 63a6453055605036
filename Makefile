# widecol: a SQLite loadable extension for wide-column row-key designs.
#
#   make            build widecol.so
#   make test       run every tests/*.test script (sqllogictest format)
#   make asan       the same tests with AddressSanitizer + UBSan
#   make demo       run sql/demo.sql in the sqlite3 shell
#   make bench      1% range queries on 1,000,000 rows: plain keys (bench/range.py),
#                   salted and bucketed keys (bench/skip.py), queries
#                   by INDEX and write cost per index (bench/index.py)
#   make soak       the differential test on new seeds for SOAK_SECONDS (600),
#                   100 crashes per journal mode, 8 concurrent writers
#   make clean

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
EXTFLAGS = -fPIC -fvisibility=hidden
LDLIBS   = -lcrypto -lm

EXT_SRC  = ext/widecol.c ext/rk_functions.c ext/rk_bytes.c ext/rk_hash.c \
           ext/wc_schema.c ext/wc_codec.c ext/wc_store.c ext/wc_plan.c \
           ext/wc_range.c ext/wc_scan.c ext/wc_vtab.c ext/wc_write.c \
           ext/wc_check.c
EXT_HDR  = $(wildcard ext/*.h)
TESTS    = $(sort $(wildcard tests/*.test))

# Sanitizer builds live in their own directory so they never mix with the
# release objects.
ASAN_DIR   = build/asan
ASAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
             -fno-sanitize-recover=all

.PHONY: all test asan demo bench soak clean

all: widecol.so

widecol.so: $(EXT_SRC) $(EXT_HDR)
	$(CC) $(CFLAGS) $(WARN) $(EXTFLAGS) -shared -o $@ $(EXT_SRC) $(LDLIBS)

tests/slt: tests/slt.c
	$(CC) $(CFLAGS) $(WARN) -o $@ tests/slt.c -lsqlite3 -lcrypto

# Statements per design for the differential test in `make test`.
DIFF_CASES = 300

test: widecol.so tests/slt
	@sh tests/load_check.sh
	@sh tests/examples.sh
	@sh tests/selftest.sh tests/slt
	@/usr/bin/python3 tests/differential.py --extension ./widecol --cases $(DIFF_CASES)
	@/usr/bin/python3 tests/crash.py --extension ./widecol --iterations 4
	@/usr/bin/python3 tests/concurrency.py --extension ./widecol
	@tests/slt --defensive --extension ./widecol.so $(TESTS)

$(ASAN_DIR)/widecol.so: $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(ASAN_DIR)
	$(CC) $(ASAN_FLAGS) $(WARN) $(EXTFLAGS) -shared -o $@ $(EXT_SRC) $(LDLIBS)

$(ASAN_DIR)/slt: tests/slt.c
	@mkdir -p $(ASAN_DIR)
	$(CC) $(ASAN_FLAGS) $(WARN) -o $@ tests/slt.c -lsqlite3 -lcrypto

# python3 is not built with the sanitizers, so their runtimes are preloaded
# for the differential test (leaks are checked by the slt run instead).
SAN_PRELOAD = $(shell $(CC) -print-file-name=libasan.so) \
              $(shell $(CC) -print-file-name=libubsan.so)

asan: $(ASAN_DIR)/widecol.so $(ASAN_DIR)/slt
	@sh tests/selftest.sh $(ASAN_DIR)/slt
	@LD_PRELOAD="$(SAN_PRELOAD)" ASAN_OPTIONS=detect_leaks=0 \
	  /usr/bin/python3 tests/differential.py \
	  --extension $(ASAN_DIR)/widecol --cases $(DIFF_CASES)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(ASAN_DIR)/slt --defensive --extension $(ASAN_DIR)/widecol.so $(TESTS)

# `make soak SOAK_SECONDS=3600`: new seeds, 20 random designs each, until
# the time is up (a mismatch prints a shrunk script that reproduces it),
# then 100 kills per journal mode and a longer concurrent write.
SOAK_SECONDS = 600
SOAK_SEED = $(shell date +%s)

soak: widecol.so
	/usr/bin/python3 tests/differential.py --extension ./widecol \
	  --seed $(SOAK_SEED) --cases 1000 --random 20 --seconds $(SOAK_SECONDS)
	/usr/bin/python3 tests/crash.py --extension ./widecol --iterations 100 \
	  --seed $(SOAK_SEED)
	/usr/bin/python3 tests/concurrency.py --extension ./widecol --procs 8 --txns 500

demo: widecol.so
	sqlite3 :memory: < sql/demo.sql

bench: widecol.so
	/usr/bin/python3 bench/range.py --extension ./widecol
	/usr/bin/python3 bench/skip.py --extension ./widecol
	/usr/bin/python3 bench/index.py --extension ./widecol

clean:
	rm -rf widecol.so tests/slt build
