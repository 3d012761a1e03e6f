# varscope - why some requests are slow.
#
#   make            build ./varscope, libvarscope.so and libvarscope.a
#   make test       build and run the whole test suite (bats + C unit tests)
#   make demo       record an example workload and print its report
#   make install    PREFIX=/usr/local DESTDIR=
#   make fuzz       libFuzzer target for the trace reader (clang)
#   make bench      the benchmarks under bench/
#   make SANITIZE=1 build with -fsanitize=address,undefined
#
# Sources are found by wildcard: a new file in cmd/, core/, arch/x86/, ui/
# or lib/ needs no Makefile change.

VERSION    := 0.1
PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= build

CC         ?= cc
CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Werror -Wno-unused-parameter
ALL_CFLAGS  = $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -I. -Iinclude \
	      -DVARSCOPE_VERSION='"$(VERSION)"' $(DEP_CFLAGS)
LDLIBS_ALL  =

ifeq ($(SANITIZE),1)
CFLAGS     += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=address,undefined
BUILD      := build-asan
endif

# --- dependencies ----------------------------------------------------------
DEPS_STAMP := $(BUILD)/.deps-ok
HAVE_SYSTEM_LIBPERF := $(shell pkg-config --exists libperf 2>/dev/null && echo 1)
ifeq ($(HAVE_SYSTEM_LIBPERF),1)
LIBPERF_CFLAGS := $(shell pkg-config --cflags libperf)
LIBPERF_LIBS   := $(shell pkg-config --libs libperf)
LIBPERF        :=
else
LIBPERF_DIR    := build/libperf
LIBPERF        := $(LIBPERF_DIR)/libperf.a
LIBPERF_CFLAGS := -I$(LIBPERF_DIR)/include
LIBPERF_LIBS   := $(LIBPERF_DIR)/libperf.a $(LIBPERF_DIR)/libapi.a
endif

PKGS       := libtraceevent libtracefs libelf zlib ncursesw
DEP_CFLAGS  = $(LIBPERF_CFLAGS) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
DEP_LIBS    = $(LIBPERF_LIBS) $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread

# --- sources ---------------------------------------------------------------
TOOL_SRC   := varscope.c $(wildcard cmd/*.c core/*.c arch/x86/*.c ui/*.c)
TOOL_OBJ   := $(TOOL_SRC:%.c=$(BUILD)/%.o)
CORE_OBJ   := $(filter-out $(BUILD)/varscope.o $(BUILD)/cmd/%,$(TOOL_OBJ))
LIB_SRC    := $(wildcard lib/*.c)
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
UNIT_SRC   := $(wildcard t/unit/*.c)
UNIT_BIN   := $(UNIT_SRC:t/unit/%.c=$(BUILD)/t/%)
EXAMPLE_SRC:= $(wildcard examples/*.c)
EXAMPLE_BIN:= $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)

all: varscope libvarscope.so libvarscope.a examples

$(DEPS_STAMP):
	@scripts/install-deps.sh
	@mkdir -p $(dir $@) && touch $@

build/libperf/libperf.a: | $(DEPS_STAMP)
	@scripts/build-libperf.sh build/libperf

# Every object waits for the dependencies (headers of libperf & co).
$(BUILD)/%.o: %.c | $(DEPS_STAMP) $(LIBPERF)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/pic/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c -o $@ $<

varscope: $(TOOL_OBJ) $(LIBPERF)
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(DEP_LIBS)

libvarscope.so: $(LIB_OBJ)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libvarscope.so.0 -o $@ $(LIB_OBJ) -lpthread

libvarscope.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $(LIB_OBJ)

# Examples link the annotation library statically so they run anywhere.
$(BUILD)/examples/%: examples/%.c libvarscope.a | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fno-omit-frame-pointer -o $@ $< libvarscope.a -lpthread -lm

examples: $(EXAMPLE_BIN)

# C unit tests: each t/unit/NAME.c links the core objects.
$(BUILD)/t/%: t/unit/%.c $(CORE_OBJ) $(LIBPERF)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(DEP_LIBS)

unit: $(UNIT_BIN)

test: all unit
	@t/run-tests.sh

.PHONY: all examples unit test clean install demo fuzz bench deps

deps: $(DEPS_STAMP) $(LIBPERF)

clean:
	rm -rf build build-asan varscope libvarscope.so libvarscope.a

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
