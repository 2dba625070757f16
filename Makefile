# SPDX-License-Identifier: Apache-2.0
# offwake-svg build: the render/ library, the BPF object and skeleton, the
# offwake-svg binary, tests, benchmark, install.

PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(PREFIX)/bin
DATADIR  := $(PREFIX)/share/offwake-svg
MANDIR   := $(PREFIX)/share/man

CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
OUT      ?= build
BIN      ?= offwake-svg
VERSION  := 0.1.0

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	    -D_GNU_SOURCE -DOFFWAKE_VERSION='"$(VERSION)"' -I$(OUT) -Irender
LDLIBS_RENDER := -lpcre2-8 -lm
LDLIBS   := -lbpf -ldw -lelf -lz -llzma -liberty $(LDLIBS_RENDER) -lpthread $(shell pkg-config --libs libxml-2.0) \
	    -lprotobuf-c -ljson-c -lmicrohttpd

ifeq ($(SANITIZE),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
endif

RENDER_SRC := $(wildcard render/*.c)
# render/base/: the few libc-only helpers render/ and src/ share (errno messages,
# the byte hash, atomic output files); they go in librender.a, which needs
# them, and src/ links them from there.
BASE_SRC   := $(wildcard render/base/*.c)
BASE_HDR   := $(wildcard render/base/*.h)
RENDER_OBJ := $(RENDER_SRC:render/%.c=$(OUT)/render/%.o) $(OUT)/render/script_js.o \
	      $(OUT)/render/heatmap_js.o \
	      $(OUT)/render/palettes_data.o $(BASE_SRC:render/base/%.c=$(OUT)/render/base/%.o)
SRC        := $(wildcard src/*.c src/*/*.c)
# pprof's and Perfetto's messages: C generated from our profile.proto and
# perfetto_trace.proto by protoc-c
PROTOS     := profile perfetto_trace
PROTO_GEN  := $(PROTOS:%=$(OUT)/gen/%.pb-c.h)
SRC_OBJ    := $(SRC:src/%.c=$(OUT)/src/%.o) $(PROTOS:%=$(OUT)/gen/%.pb-c.o) \
	      $(OUT)/src/live/page_html.o
SRC_HDR    := $(wildcard src/*.h src/*/*.h)
BPF_SRC    := $(wildcard bpf/*.bpf.c)
BPF_SKEL   := $(BPF_SRC:bpf/%.bpf.c=$(OUT)/%.skel.h)
ARCH       := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

.PHONY: all check deps build-deps test golden bench soak bench-browser fuzz install uninstall clean example

all: $(BIN)

# A fresh clone without the build dependencies stops here, naming the
# missing packages (not at a compiler error about a header); once.
# (DEPS less the test-only ones: a DEPS given on the command line is checked,
# as tests/t_build.sh does)
$(OUT)/.build-deps:
	@sh tests/deps.sh --check $(filter-out $(TEST_DEPS),$(DEPS))
	@mkdir -p $(OUT) && touch $@

$(OUT)/render $(OUT)/render/base $(OUT)/bpf: | $(OUT)/.build-deps
	mkdir -p $@

# The renderer as a library of its own (libc + pcre2 only, and render/base/).
$(OUT)/librender.a: $(RENDER_OBJ)
	$(AR) rcs $@ $^

$(OUT)/render/%.o: render/%.c render/*.h $(BASE_HDR) | $(OUT)/render
	$(CC) $(CFLAGS) -c $< -o $@
$(OUT)/render/base/%.o: render/base/%.c $(BASE_HDR) | $(OUT)/render/base
	$(CC) $(CFLAGS) -c $< -o $@

# Our JavaScript and the palette data are embedded at build time.
$(OUT)/render/script_js.c: render/script.js tests/embed.sh | $(OUT)/render
	sh tests/embed.sh fg_script_js $< > $@
$(OUT)/render/heatmap_js.c: render/heatmap.js tests/embed.sh | $(OUT)/render
	sh tests/embed.sh fg_heatmap_js $< > $@
$(OUT)/render/palettes_data.c: $(wildcard palettes/*) tests/embed.sh | $(OUT)/render
	sh tests/embed.sh --table fg_palette_files $(sort $(wildcard palettes/*.rules palettes/*.pal)) > $@
$(OUT)/render/script_js.o: $(OUT)/render/script_js.c
	$(CC) $(CFLAGS) -c $< -o $@
$(OUT)/render/heatmap_js.o: $(OUT)/render/heatmap_js.c
	$(CC) $(CFLAGS) -c $< -o $@
$(OUT)/render/palettes_data.o: $(OUT)/render/palettes_data.c
	$(CC) $(CFLAGS) -c $< -o $@

# The browser live view's page (src/live/web.c serves it).
$(OUT)/src/live/page_html.c: src/live/page.html tests/embed.sh | $(OUT)/.build-deps
	@mkdir -p $(@D)
	sh tests/embed.sh ow_live_page $< > $@
$(OUT)/src/live/page_html.o: $(OUT)/src/live/page_html.c
	$(CC) $(CFLAGS) -c $< -o $@

# Kernel side: BPF object (CO-RE, our own minimal kernel-type header) and skeleton.
$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c bpf/*.h | $(OUT)/bpf
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf -c $< -o $@
	llvm-strip -g $@ 2>/dev/null || true
$(OUT)/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

# src/ sees the renderer through render/fg.h only (tests/t_layout.sh checks).
$(OUT)/src/%.o: src/%.c $(SRC_HDR) render/*.h $(BASE_HDR) $(BPF_SKEL) $(PROTO_GEN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -Ibpf -I$(OUT)/gen $(shell pkg-config --cflags libxml-2.0) -c $< -o $@

# The pprof and Perfetto exports' .proto files, compiled by protoc-c
# (protobuf-c-compiler).
$(OUT)/gen/%.pb-c.c $(OUT)/gen/%.pb-c.h: src/export/%.proto
	@mkdir -p $(OUT)/gen
	protoc-c --proto_path=src/export --c_out=$(OUT)/gen $<
$(OUT)/gen/%.pb-c.o: $(OUT)/gen/%.pb-c.c $(PROTO_GEN)
.SECONDARY: $(PROTOS:%=$(OUT)/gen/%.pb-c.c) $(PROTO_GEN)
	$(CC) $(CFLAGS) -I$(OUT)/gen -c $< -o $@

# ncurses for the terminal live view (src/live/tui*.c): the binary only
LDLIBS_TUI := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)
$(BIN): $(SRC_OBJ) $(OUT)/librender.a
	$(CC) $(LDFLAGS) -o $@ $(SRC_OBJ) $(OUT)/librender.a $(LDLIBS) $(LDLIBS_TUI)

# Dependencies (Debian package names), installed when missing: what the
# build compiles and links against (`make`, `make example`, the README's
# list), and what only the tests use (`make check` installs both).
BUILD_DEPS := gcc make clang llvm libbpf-dev libelf-dev libxml2-dev libpcre2-dev \
	zlib1g-dev libiberty-dev bpftool pkg-config libdw-dev protobuf-c-compiler \
	libprotobuf-c-dev libjson-c-dev liblzma-dev libdebuginfod-dev libncurses-dev \
	libmicrohttpd-dev
TEST_DEPS := libxml2-utils valgrind libclang-rt-14-dev lld debuginfod \
	python3.11 python3.11-dbg
DEPS := $(BUILD_DEPS) $(TEST_DEPS)
# (python3.11-dbg: the debug file of Debian's python3.11, whose own symbol
# table is stripped: t_python names the interpreter's static functions,
# time_sleep, builtin_next, from it; a machine without it failed there)
deps:
	@sh tests/deps.sh $(DEPS)
build-deps:
	@sh tests/deps.sh $(BUILD_DEPS)

# Every test, then every test again built with ASan+UBSan (build/san).
check: deps
	$(MAKE) all test-bin
	bash tests/check.sh

TEST_SRC := $(wildcard tests/unit/*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(OUT)/tests/%)
CAP_UNIT_BIN := $(patsubst tests/unit_src/%.c,$(OUT)/tests/%,$(wildcard tests/unit_src/t_cap_*.c))
.PHONY: test-bin
test-bin: $(TEST_BIN) $(OUT)/tools/svgcheck $(OUT)/tests_src/uwdump $(OUT)/tests/t_unwind \
	  $(OUT)/tests/t_gopclntab $(OUT)/tests/t_live_tree $(OUT)/tests/t_svg_events \
	  $(OUT)/tests/t_export_events \
	  $(CAP_UNIT_BIN) $(OUT)/tests_src/offwake-svg-xw $(OUT)/tests_src/offwake-svg-xu \
	  $(OUT)/tests_src/usymname $(OUT)/tests_src/pftrace_dump

# The unwind table builder on its own: its dump tool (tests/t_unwind_tables.sh
# compares it with readelf) and its unit tests.
UW_SRC := src/unwind/native_tables.c src/unwind/go_ends.c \
	  src/symbols/gopclntab.c src/common/util.c
UW_DEP := $(UW_SRC) src/unwind/native_tables.h src/unwind/go_ends.h \
	  src/symbols/gopclntab.h src/common/util.h \
	  bpf/unwind_native.h
$(OUT)/tests_src/uwdump: tests/tools/uwdump.c $(UW_DEP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -Ibpf $(LDFLAGS) $< $(UW_SRC) -o $@ -ldw -lelf
$(OUT)/tests/t_unwind: tests/unit_src/t_unwind.c tests/unit_src/check.h $(UW_DEP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -Ibpf $(LDFLAGS) $< $(UW_SRC) -o $@ -ldw -lelf -ldl

# The capture's user-space parts on their own, without root or BPF
# (tests/unit_src/t_cap_*.c): each program links what it uses from an
# archive of their objects.  t_cap_cfi gets a fake umaps map in place of
# libbpf's map calls, t_cap_fold a kallsyms of its own (ld --wrap).
CAP_UNIT_OBJ := $(addprefix $(OUT)/src/,capture/agg.o capture/timeline.o capture/stackstore.o \
	capture/fold.o capture/locs.o unwind/native_maps.o common/htab.o \
	common/util.o common/privs.o common/safetext.o symbols/ksyms.o symbols/procmaps.o \
	symbols/usyms.o symbols/gopclntab.o symbols/perfmap.o symbols/demangle.o \
	symbols/debuginfod.o unwind/native_tables.o unwind/go_ends.o unwind/native_walk.o \
	unwind/native_defer.o unwind/table_cache.o unwind/python_names.o unwind/python_stitch.o)
$(OUT)/tests_src/libcapunits.a: $(CAP_UNIT_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(OUT)/tests/t_cap_fold: CAP_WRAP := -Wl,--wrap=ksyms_load
$(OUT)/tests/t_cap_cfi: CAP_WRAP := -Wl,--wrap=bpf_map_update_elem \
	-Wl,--wrap=bpf_map_lookup_elem -Wl,--wrap=bpf_map_delete_elem
$(OUT)/tests/t_cap_defer: CAP_WRAP := -Wl,--wrap=bpf_map_lookup_elem
$(OUT)/tests/t_cap_%: tests/unit_src/t_cap_%.c tests/unit_src/check.h \
		$(OUT)/tests_src/libcapunits.a $(OUT)/librender.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -Ibpf -I$(OUT)/gen $(LDFLAGS) $(CAP_WRAP) $< -o $@ \
		$(OUT)/tests_src/libcapunits.a $(OUT)/librender.a -ldw -lelf -lz -llzma -liberty \
		$(LDLIBS_RENDER) -ldl

# The live view's tree (src/live/tree.c) fed synthetic profiles, without
# curses or BPF (tests/unit_src/t_live_tree.c); the same objects make the
# refresh benchmark (tests/bench/live_bench.sh).
LIVE_TREE_OBJ := $(addprefix $(OUT)/src/,live/tree.o common/htab.o export/profile.o \
	common/util.o)
$(OUT)/tests/t_live_tree: tests/unit_src/t_live_tree.c tests/unit_src/check.h \
		$(LIVE_TREE_OBJ) $(OUT)/librender.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc $(LDFLAGS) $< -o $@ $(LIVE_TREE_OBJ) $(OUT)/librender.a \
		$(LDLIBS_RENDER)
$(OUT)/tests_src/live_bench: tests/bench/live_bench.c $(LIVE_TREE_OBJ) $(OUT)/librender.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc $(LDFLAGS) $< -o $@ $(LIVE_TREE_OBJ) $(OUT)/librender.a \
		$(LDLIBS_RENDER)

# The SVG writer fed a profile with events made in memory
# (tests/unit_src/t_svg_events.c; tests/t_heatmap.sh opens its SVG).
SVG_EVENTS_OBJ := $(addprefix $(OUT)/src/,export/export_svg.o export/profile.o \
	export/export_info.o common/util.o)
$(OUT)/tests/t_svg_events: tests/unit_src/t_svg_events.c tests/unit_src/check.h \
		$(SVG_EVENTS_OBJ) $(OUT)/librender.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc $(LDFLAGS) $< -o $@ $(SVG_EVENTS_OBJ) $(OUT)/librender.a \
		$(LDLIBS_RENDER)

# The writers of events (Perfetto, speedscope's evented profiles) fed
# synthetic profiles, their output decoded (tests/unit_src/t_export_events.c).
EVENTS_OBJ := $(addprefix $(OUT)/src/,export/export_perfetto.o export/export_speedscope.o \
	export/export_info.o export/frametab.o export/profile.o common/htab.o common/util.o) \
	$(OUT)/gen/perfetto_trace.pb-c.o
$(OUT)/tests/t_export_events: tests/unit_src/t_export_events.c tests/unit_src/check.h \
		$(EVENTS_OBJ) $(OUT)/librender.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -I$(OUT)/gen $(LDFLAGS) $< -o $@ $(EVENTS_OBJ) \
		$(OUT)/librender.a $(LDLIBS_RENDER) -lprotobuf-c -ljson-c

# A Perfetto trace decoded into lines a shell test asserts on
# (tests/tools/pftrace_dump.c; tests/t_timeline_trace.sh).
$(OUT)/tests_src/pftrace_dump: tests/tools/pftrace_dump.c $(OUT)/gen/perfetto_trace.pb-c.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(OUT)/gen $(LDFLAGS) $< $(OUT)/gen/perfetto_trace.pb-c.o -o $@ -lprotobuf-c

# Go function tables of each layout made in memory (src/symbols/gopclntab.c).
$(OUT)/tests/t_gopclntab: tests/unit_src/t_gopclntab.c tests/unit_src/check.h \
		$(OUT)/src/symbols/gopclntab.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc $(LDFLAGS) $< $(OUT)/src/symbols/gopclntab.o -o $@ -lelf

# User-space names of a live process's addresses, without BPF (tests/t_names.sh).
$(OUT)/tests_src/usymname: tests/tools/usymname.c $(OUT)/tests_src/libcapunits.a
	$(CC) $(CFLAGS) -Isrc $(LDFLAGS) $< -o $@ $(OUT)/tests_src/libcapunits.a \
		-lelf -lz -llzma -liberty

# A format added as one file and one row of the writers' table: offwake-svg
# with tests/unit_src/export_test.c and writers.c's OW_TEST_WRITER row
# (tests/t_writers.sh).
XW_OBJ := $(filter-out $(OUT)/src/export/writers.o,$(SRC_OBJ))
$(OUT)/tests_src/offwake-svg-xw: src/export/writers.c tests/unit_src/export_test.c $(XW_OBJ) \
		$(OUT)/librender.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DOW_TEST_WRITER -Isrc $(LDFLAGS) -o $@ src/export/writers.c \
		tests/unit_src/export_test.c $(XW_OBJ) $(OUT)/librender.a $(LDLIBS) $(LDLIBS_TUI)

# An unwinder added as one file and one row of the unwinders' table:
# offwake-svg with tests/unit_src/unwind_test.c and unwinders.c's
# OW_TEST_UNWINDER row (tests/t_unwinders.sh).
XU_OBJ := $(filter-out $(OUT)/src/unwind/unwinders.o,$(SRC_OBJ))
$(OUT)/tests_src/offwake-svg-xu: src/unwind/unwinders.c tests/unit_src/unwind_test.c \
		src/unwind/unwinder.h $(XU_OBJ) $(OUT)/librender.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DOW_TEST_UNWINDER -Isrc -Ibpf $(LDFLAGS) -o $@ src/unwind/unwinders.c \
		tests/unit_src/unwind_test.c $(XU_OBJ) $(OUT)/librender.a $(LDLIBS) $(LDLIBS_TUI)

# libxml2 checker of our SVGs, used by the hostile-input and fuzz tests
$(OUT)/tools/svgcheck: tests/tools/svgcheck.c tests/tools/svgcheck.h render/fg.h
	@mkdir -p $(OUT)/tools
	$(CC) -O2 -g -Wall -Wextra $< -o $@ $(shell pkg-config --cflags --libs libxml-2.0)
$(OUT)/tests/%: tests/unit/%.c $(OUT)/librender.a
	@mkdir -p $(OUT)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@ $(OUT)/librender.a $(LDLIBS_RENDER) $(shell pkg-config --cflags --libs libxml-2.0 2>/dev/null)

test: all test-bin
	bash tests/run.sh

FUZZ_SECONDS ?= 60
fuzz:
	bash tests/fuzz/run.sh $(FUZZ_SECONDS)

golden: offwake-svg
	bash tests/golden.sh --update

bench: offwake-svg
	bash tests/bench/bench.sh
	bash tests/bench/capture_bench.sh
	bash tests/bench/offcpu_bench.sh
	bash tests/bench/timeline_bench.sh
	bash tests/bench/startup_bench.sh
	bash tests/bench/unwind_cost.sh
	bash tests/bench/unwind_bench.sh
	bash tests/bench/live_bench.sh
	bash tests/bench/live_cost.sh
	bash tests/bench/python_bench.sh

# A 10-minute capture over a fork storm: memory bounded, nothing lost
# silently (tests/soak.sh; SOAK_SECONDS shortens it).  Not part of check.
soak: $(BIN)
	OFFWAKE=$(abspath $(BIN)) bash tests/soak.sh

# The SVG in headless Chromium: load, zoom, reset, search (issue 21); skipped
# without Chromium.  FLAMEGRAPH_PL=path adds flamegraph.pl's SVG.
bench-browser: offwake-svg
	bash tests/bench/browser_bench.sh

# The README's first command: render the bundled tar | gzip capture.
example: build-deps
	$(MAKE) offwake-svg
	./offwake-svg render --colors=chain --countname=us \
		--title="Off-Wake Time Flame Graph: tar | gzip" \
		examples/offwake-tar-gzip.folded > examples/offwake-tar-gzip.svg
	@echo "wrote examples/offwake-tar-gzip.svg"

install: $(BIN)
	install -D -m 0755 offwake-svg $(DESTDIR)$(BINDIR)/offwake-svg
	install -D -m 0644 src/offwake-svg.8 $(DESTDIR)$(MANDIR)/man8/offwake-svg.8
	install -D -m 0644 src/offwake-svg.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/offwake-svg
	install -d $(DESTDIR)$(DATADIR)/palettes
	install -m 0644 palettes/* $(DESTDIR)$(DATADIR)/palettes/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/offwake-svg $(DESTDIR)$(MANDIR)/man8/offwake-svg.8 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/offwake-svg
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf $(OUT) offwake-svg
