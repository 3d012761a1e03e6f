# varscope - why some requests are slow.
#
#   make            build ./varscope, libvarscope.so, libvarscope.a, examples
#   make test       build and run the whole test suite (bats + C unit tests);
#                   T='t0000 unit' runs the tests whose names start so
#   make demo       record an example workload and print its report
#   make doc        the man pages, into build/man (asciidoctor)
#   make install    PREFIX=/usr/local DESTDIR= (binary, library, header,
#                   pkg-config file, man pages, bash completion)
#   make fuzz       libFuzzer targets: the trace reader and each command
#                   that reads traces (clang, into build-fuzz)
#   make bench      build and run every benchmark under bench/
#   make SANITIZE=1 build with -fsanitize=address,undefined into build-asan
#                   (binary build-asan/varscope); with test, tests that one
#
# Sources are found by wildcard: a new .c in cmd/, core/ (or a folder of
# it), arch/x86/, ui/, lib/, examples/, t/unit/ or bench/ needs no Makefile
# change.
# Missing Debian packages are installed on the first build (as root) by
# scripts/install-deps.sh, again whenever that script changes.

VERSION    := 0.1
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

CFLAGS     ?= -O2 -g
WERROR     := -Werror
WARN        = -Wall -Wextra $(WERROR) -Wno-unused-parameter
# Includes are root-relative, "core/trace/trace.h", "ui/json.h",
# "arch/x86/regs.h" (-I.); the public API is <varscope.h> (-Iinclude), as
# its users write it; the generated BPF skeletons "core/record/NAME.skel.h"
# come from -I$(BUILD).
ALL_CFLAGS  = $(CFLAGS) $(SAN_FLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE \
	      -I. -Iinclude -DVARSCOPE_VERSION='"$(VERSION)"' $(DEP_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(SAN_FLAGS)

# The normal build leaves its products at the top; the sanitizer build
# keeps everything in build-asan so that both can live side by side.  It
# uses clang: with gcc's runtimes UBSan ignores log_path and its reports
# would hide in the stderr of a test that expects a failure.  Warnings
# are the normal (gcc) build's job: clang's own do not stop this one.
ifeq ($(SANITIZE),1)
ifeq ($(origin CC),default)
CC         := clang
endif
WERROR     :=
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=undefined
BUILD      := build-asan
OUT        := build-asan/
else ifeq ($(FUZZ),1)
# The fuzz targets' build (make fuzz): clang with libFuzzer's coverage on
# every object, ASan and UBSan, and -DVS_FUZZING, which skips the CRC
# checks so that mutations reach the decoders.  Never a tool to ship.
ifeq ($(origin CC),default)
CC         := clang
endif
WERROR     :=
SAN_FLAGS  := -fsanitize=fuzzer-no-link,address,undefined \
	      -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	      -DVS_FUZZING
BUILD      := build-fuzz
OUT        := build-fuzz/
else
SAN_FLAGS  :=
BUILD      := build
OUT        :=
endif
VARSCOPE_BIN := $(OUT)varscope
LIB_SO     := $(OUT)libvarscope.so
LIB_A      := $(OUT)libvarscope.a

# Quiet by default, like the kernel's and perf's builds: V=1 shows the
# commands.
ifneq ($(V),1)
QUIET_CC   = @echo '  CC      $@';
QUIET_LINK = @echo '  LINK    $@';
QUIET_AR   = @echo '  AR      $@';
QUIET_DOC  = @echo '  DOC     $@';
QUIET_GEN  = @echo '  GEN     $@';
endif

# --- dependencies ----------------------------------------------------------
DEPS_STAMP := build/.deps-ok
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

PKGS       := libbpf libtraceevent libtracefs libelf libdw zlib ncursesw
DEP_CFLAGS  = $(LIBPERF_CFLAGS) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
DEP_LIBS    = $(LIBPERF_LIBS) $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread

# --- sources ---------------------------------------------------------------
# core/ and its sub-systems, one folder deep (core/trace/, core/record/...).
# core/record/ is the recording engine: its BPF programs (NAME.bpf.c) sit
# beside their loader and are built below, not compiled as tool sources.
TOOL_SRC   := varscope.c $(filter-out %.bpf.c,$(wildcard cmd/*.c core/*.c \
	      core/*/*.c arch/x86/*.c ui/*.c))
TOOL_OBJ   := $(TOOL_SRC:%.c=$(BUILD)/%.o)
CORE_OBJ   := $(filter-out $(BUILD)/varscope.o $(BUILD)/cmd/%,$(TOOL_OBJ))
LIB_SRC    := $(wildcard lib/*.c)
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
UNIT_SRC   := $(wildcard t/unit/*.c)
UNIT_BIN   := $(UNIT_SRC:t/unit/%.c=$(BUILD)/t/%)
HELPER_SRC := $(wildcard t/helper/*.c)
HELPER_BIN := $(HELPER_SRC:t/helper/%.c=$(BUILD)/t/helper/%)
EXAMPLE_SRC:= $(wildcard examples/*.c)
EXAMPLE_BIN:= $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)
BENCH_SRC  := $(wildcard bench/*.c)
BENCH_BIN  := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# Man pages: Documentation/NAME.txt whose title line is "NAME(SECTION)";
# asciidoctor adds a link page for every other name in its NAME section.
MAN_SRC    := $(shell grep -l -m1 -E '^[a-z_-]+\([0-9]\)$$' Documentation/*.txt 2>/dev/null)

all: $(VARSCOPE_BIN) $(LIB_SO) $(LIB_A) examples

$(DEPS_STAMP): scripts/install-deps.sh
	@scripts/install-deps.sh
	@mkdir -p $(dir $@) && touch $@

build/libperf/libperf.a: | $(DEPS_STAMP)
	+@scripts/build-libperf.sh build/libperf

# --- BPF programs ------------------------------------------------------------
# core/record/NAME.bpf.c -> $(BUILD)/core/record/NAME.bpf.o (clang -target
# bpf, CO-RE against build/vmlinux.h, which bpftool dumps from the running
# kernel's BTF at build time) -> $(BUILD)/core/record/NAME.skel.h (bpftool
# gen skeleton), which the loader beside it includes as
# "core/record/NAME.skel.h".  The objects of core/record/ wait for the
# skeletons; libbpf (pkg-config) is linked into everything that links core/.
BPFTOOL    ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
BPF_CLANG  ?= clang
BPF_SRC    := $(wildcard core/record/*.bpf.c)
BPF_OBJ    := $(BPF_SRC:%.bpf.c=$(BUILD)/%.bpf.o)
BPF_SKEL   := $(BPF_SRC:%.bpf.c=$(BUILD)/%.skel.h)
VMLINUX_H  := build/vmlinux.h
ALL_CFLAGS += -I$(BUILD)

$(VMLINUX_H): | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@test -r /sys/kernel/btf/vmlinux || { echo "varscope: the build needs the kernel's BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)" >&2; exit 1; }
	$(QUIET_GEN)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: %.bpf.c $(VMLINUX_H) $(wildcard core/record/*.h) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall \
		-Werror -I. -I$(dir $(VMLINUX_H)) -c -o $@ $<

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(QUIET_GEN)$(BPFTOOL) gen skeleton $< name $(subst -,_,$(notdir $*)) > $@.tmp && mv $@.tmp $@

$(filter $(BUILD)/core/record/%,$(TOOL_OBJ)): $(BPF_SKEL)
.SECONDARY: $(BPF_OBJ)

# Every object waits for the dependencies (headers of libperf & co).
$(BUILD)/%.o: %.c | $(DEPS_STAMP) $(LIBPERF)
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/pic/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c -o $@ $<

$(VARSCOPE_BIN): $(TOOL_OBJ) $(LIBPERF)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $(TOOL_OBJ) $(DEP_LIBS)

# libvarscope.so carries the soname libvarscope.so.0; the link next to it
# lets programs linked in the tree run with LD_LIBRARY_PATH set to it.
$(LIB_SO): $(LIB_OBJ)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libvarscope.so.0 \
		-o $@ $(LIB_OBJ) -lpthread
	@ln -sf libvarscope.so $@.0

$(LIB_A): $(LIB_OBJ)
	$(QUIET_AR)rm -f $@ && ar rcs $@ $(LIB_OBJ)

# Examples link the annotation library statically so they run anywhere.
$(BUILD)/examples/%: examples/%.c $(LIB_A) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -fno-omit-frame-pointer -MMD -MP -o $@ $< \
		$(LIB_A) -lpthread -lm

examples: $(EXAMPLE_BIN)

# Unit tests, test helpers and benchmarks are programs of one .c linked
# with the core objects (and EXTRA, libvarscope.a for benchmarks).
define link_with_core
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(CORE_OBJ) $(1) $(DEP_LIBS)
endef

# C unit tests: each t/unit/NAME.c.
$(BUILD)/t/%: t/unit/%.c $(CORE_OBJ) $(LIBPERF)
	$(call link_with_core)

# Test helpers (t/helper/NAME.c -> build/t/helper/NAME) link the same way,
# with the annotation library for the ones that play a traced program.
$(BUILD)/t/helper/%: t/helper/%.c $(CORE_OBJ) $(LIB_A) $(LIBPERF)
	$(call link_with_core,$(LIB_A))

unit: $(UNIT_BIN) $(HELPER_BIN)

# Benchmarks: bench/NAME.c, also linked with the annotation library.
$(BUILD)/bench/%: bench/%.c $(CORE_OBJ) $(LIB_A) $(LIBPERF)
	$(call link_with_core,$(LIB_A))

# t2500's annotated memcached, made before the tests (a test fetches
# nothing): bench/memcached/build.sh gets Debian's source package (apt-get
# source) and builds it against the plain libvarscope.a, under SANITIZE=1
# too.  It needs root (a deb-src entry, packages), as t2500 does; the
# script does nothing while its binary is up to date.
test-setup: | $(DEPS_STAMP)
	@if [ "$$(id -u)" = 0 ]; then \
		$(MAKE) --no-print-directory SANITIZE= FUZZ= libvarscope.a && \
		bench/memcached/build.sh; \
	fi

test: all unit doc test-setup
	@VS_BUILD=$(BUILD) VARSCOPE=$(VARSCOPE_BIN) VS_CC="$(CC)" t/run-tests.sh $(T)

# Every executable in bench/ (scripts) and every bench/NAME.c, one after
# the other; each prints its own numbers.  Never part of make test.
bench: all $(BENCH_BIN)
	@scripts/install-deps.sh --bench
	@set -e; for b in $(BENCH_BIN) $$(find bench -maxdepth 1 -type f -perm -u+x 2>/dev/null | sort); do \
		echo "== $$b"; VS_BUILD=$(CURDIR)/$(BUILD) VARSCOPE=$(CURDIR)/$(VARSCOPE_BIN) $$b; \
	done

# libFuzzer targets (fuzz/): the trace reader (fuzz-reader.c) and, through
# fuzz-cmd.c, each command that reads a trace, as a user runs it: report,
# report --tree, diff, segments and signature infer.  They are built by a
# make of their own with FUZZ=1 (build-fuzz, above) and run one after
# the other, FUZZ_SECONDS in all divided among them.  New inputs go to
# build-fuzz/corpus/NAME; the seeds in fuzz/corpus stay as committed.
FUZZ_SECONDS ?= 60
FUZZ_CMDS    := report tree diff segments signature
FUZZ_BIN     := $(BUILD)/fuzz/fuzz-reader $(FUZZ_CMDS:%=$(BUILD)/fuzz/fuzz-%)
FUZZ_EACH     = $$(( $(FUZZ_SECONDS) / $(words $(FUZZ_BIN)) + 1 ))
CMD_OBJ      := $(filter $(BUILD)/cmd/%,$(TOOL_OBJ))

$(BUILD)/fuzz/fuzz-reader: fuzz/fuzz-reader.c $(CORE_OBJ) $(LIBPERF)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(CORE_OBJ) $(DEP_LIBS)

$(BUILD)/fuzz/fuzz-%: fuzz/fuzz-cmd.c $(CORE_OBJ) $(CMD_OBJ) $(LIBPERF)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer \
		-DVS_FUZZ_CMD='"$*"' -o $@ $< $(CORE_OBJ) $(CMD_OBJ) $(DEP_LIBS)

ifeq ($(FUZZ),1)
fuzz: $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do \
		n=$$(basename $$f); mkdir -p $(BUILD)/corpus/$$n; \
		echo "== $$n: $(FUZZ_EACH) s"; \
		$$f -max_total_time=$(FUZZ_EACH) -timeout=10 \
			-rss_limit_mb=2048 -max_len=65536 -close_fd_mask=3 \
			-print_final_stats=1 -artifact_prefix=$(BUILD)/$$n- \
			$(BUILD)/corpus/$$n fuzz/corpus; \
	done
else
fuzz: | $(DEPS_STAMP) $(LIBPERF)
	+@$(MAKE) --no-print-directory FUZZ=1 fuzz
endif

demo: all
	@scripts/demo.sh

# --- documentation -----------------------------------------------------------
MAN_OUT := $(foreach f,$(MAN_SRC),build/man/man$(shell sed -n '1s/.*(\([0-9]\))$$/\1/p' $(f))/$(notdir $(f:.txt=)).$(shell sed -n '1s/.*(\([0-9]\))$$/\1/p' $(f)))

doc: $(MAN_OUT)

build/man/man%: | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(QUIET_DOC)asciidoctor -b manpage -a mansource=varscope -a manversion=$(VERSION) \
		-a manmanual='varscope Manual' -o $@ \
		Documentation/$(basename $(notdir $@)).txt

$(foreach f,$(MAN_OUT),$(eval $(f): Documentation/$(basename $(notdir $(f))).txt))

# Generated at every install: it holds that install's PREFIX.
$(BUILD)/varscope.pc: varscope.pc.in
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    varscope.pc.in >$@

install: all doc $(BUILD)/varscope.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(COMPLETIONDIR)
	install -m 755 $(VARSCOPE_BIN) $(DESTDIR)$(BINDIR)/varscope
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libvarscope.so.0
	ln -sf libvarscope.so.0 $(DESTDIR)$(LIBDIR)/libvarscope.so
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libvarscope.a
	install -m 644 include/varscope.h $(DESTDIR)$(INCLUDEDIR)/varscope.h
	install -m 644 $(BUILD)/varscope.pc $(DESTDIR)$(LIBDIR)/pkgconfig/varscope.pc
	install -m 644 contrib/completion/varscope.bash \
		$(DESTDIR)$(COMPLETIONDIR)/varscope
	@set -e; for m in build/man/man*/*; do \
		d=$(DESTDIR)$(MANDIR)/$$(basename $$(dirname $$m)); \
		install -d $$d && install -m 644 $$m $$d/; \
	done
	@# the dynamic linker finds the new libvarscope.so.0 at once, and
	@# whatis, apropos and man -k the new pages
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig > /dev/null; then \
		ldconfig; fi
	@if [ -z "$(DESTDIR)" ] && command -v mandb > /dev/null; then \
		mandb -q $(MANDIR) 2>/dev/null || true; fi

.PHONY: all examples unit test test-setup clean install demo doc bench \
	deps fuzz $(BUILD)/varscope.pc

deps: $(DEPS_STAMP) $(LIBPERF)

clean:
	rm -rf build build-asan build-fuzz varscope libvarscope.so libvarscope.so.0 \
		libvarscope.a

# Only our own dependency files (objects, examples): build/ also holds
# foreign trees (bench/memcached's source) with files named *.d.
-include $(TOOL_OBJ:.o=.d) $(LIB_OBJ:.o=.d) $(EXAMPLE_BIN:=.d)
