# User-facing commands. The build itself is CMake (CMakeLists.txt); this file only
# strings the steps together. `make test` is what CI runs (.ci/run).
.PHONY: all deps build install package test test-sanitize fuzz demo bench format clean

BUILD      ?= build
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 30
# The tests run with none of seer's own environment knobs the caller's shell
# may have set (docs/recording.md, docs/runtime.md): each test sets what it needs.
TEST_ENV   := env -u SEER_RAW_SYSCALL_TRACEPOINTS -u SEER_PER_FUNCTION_UPROBES -u SEER_RT_LIBRARY -u SEER_FUZZ -u SEER_FUZZ_OUT \
              -u SEER_MERGE_NICE -u SEER_REPEAT_RUNS -u SEER_BPF_DEBUG -u SEER_TEST_SLOW_ANALYSIS_MS \
              -u SEER_RT_SHM_FD -u SEER_RT_SYNC -u SEER_RT_CHILDREN -u SEER_COMPILER -u LD_PRELOAD \
              -u SEER_WATCH_HARDWARE

all: build

deps:
	@bash tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DSEER_WERROR=ON >/dev/null
	@ninja -C $(BUILD) -j $(JOBS)

# Installs seer under PREFIX (DESTDIR stages it elsewhere): bin/seer, the compiler
# wrappers, lib/seer/ (the runtime, the clang plugin), the systemd unit (not
# enabled), the example configuration, the Grafana dashboard, manual pages
# (packaging/install.cmake). Builds only what it installs (all of it is built
# already after `make build` as yourself, then `sudo make install`).
install:
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja -DSEER_WERROR=ON >/dev/null
	@ninja -C $(BUILD) -j $(JOBS) seer_installed_files
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# The Debian package, $(BUILD)/seer_VERSION_ARCH.deb (packaging/deb.cmake), checked
# by lintian: an error fails the target. Install it with `sudo dpkg -i` (or apt).
package:
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja -DSEER_WERROR=ON >/dev/null
	@ninja -C $(BUILD) -j $(JOBS) seer_installed_files
	@bash packaging/make_deb.sh $(BUILD) $(BUILD)

# Everything CI checks: the build with warnings as errors and every test under
# ctest, the same tests again under AddressSanitizer + UndefinedBehaviorSanitizer,
# and the two fuzzers (chunk decoder, whole trace files) for a bounded time each.
# Each step prints the time it ended: the whole must stay under an hour on a
# fresh two-core machine (CI allows 90 minutes), and the log shows where it goes.
test: build
	@date -u "+make test: %T release build done"
	@cd $(BUILD) && $(TEST_ENV) ctest --output-on-failure -j $(JOBS)
	@date -u "+make test: %T release tests done"
	@$(MAKE) --no-print-directory test-sanitize
	@date -u "+make test: %T sanitizer pass done"
	@$(MAKE) --no-print-directory fuzz
	@date -u "+make test: %T fuzzing done"

# The race suite's STD round trip records every program a second time: the
# release pass runs it; the sanitizer pass keeps the recordings of the first
# test and the STD reader and writer's own tests. The sanitizer pass builds and
# runs the race suite's gcc programs only (tests/races/CMakeLists.txt).
# What the sanitizers never touch -- the runtime and the programs built with
# seer's wrappers -- the sanitizer build copies from the release build $(BUILD)
# when there is one (cmake/unsanitized_from.cmake), brought up to date there
# first; without one it builds them itself.
test-sanitize: deps
	@from=; if [ -f $(BUILD)/build.ninja ] && ! grep -q '^SEER_SANITIZE:BOOL=ON' $(BUILD)/CMakeCache.txt; then \
	  ninja -C $(BUILD) -j $(JOBS) seer_unsanitized && from=$(abspath $(BUILD)) || exit 1; fi; \
	cmake -S . -B build-asan -G Ninja -DSEER_WERROR=ON -DSEER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
	  -DSEER_RACE_SUITE_CLANG=OFF -DSEER_UNSANITIZED_FROM=$$from >/dev/null
	@ninja -C build-asan -j $(JOBS)
	@date -u "+make test: %T sanitizer build done"
	@cd build-asan && $(TEST_ENV) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE no-sanitize -E 'RaceSuiteTest\.SameResultsAfterStdRoundTrip'

fuzz: deps
	@cmake -S . -B build-fuzz -G Ninja -DSEER_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined >/dev/null
	@ninja -C build-fuzz -j $(JOBS) seer_chunk_decoder_fuzz seer_make_fuzz_corpus \
	  seer_trace_file_fuzz seer_make_trace_fuzz_corpus
	@rm -rf build-fuzz/corpus build-fuzz/trace-corpus && mkdir -p build-fuzz/corpus build-fuzz/trace-corpus
	@build-fuzz/tests/fuzz/seer_make_fuzz_corpus build-fuzz/corpus
	@build-fuzz/tests/fuzz/seer_make_trace_fuzz_corpus build-fuzz/trace-corpus tests/cli/data
	@echo "fuzz: chunk decoder for $(FUZZ_SECONDS)s"
	@build-fuzz/tests/fuzz/seer_chunk_decoder_fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 build-fuzz/corpus 2>build-fuzz/fuzz.log \
	  || { tail -50 build-fuzz/fuzz.log; exit 1; }
	@grep -E "stat::number_of_executed_units|Done" build-fuzz/fuzz.log | tail -2
	@echo "fuzz: whole trace files for $(FUZZ_SECONDS)s"
	@build-fuzz/tests/fuzz/seer_trace_file_fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 build-fuzz/trace-corpus 2>build-fuzz/trace-fuzz.log \
	  || { tail -50 build-fuzz/trace-fuzz.log; exit 1; }
	@grep -E "stat::number_of_executed_units|Done" build-fuzz/trace-fuzz.log | tail -2

demo: build
	@BUILD=$(BUILD) bash tools/demo.sh

bench: build
	@bash bench/run.sh

# Lays out every C and C++ file as .clang-format says (make test checks it).
format:
	@git ls-files -- '*.c' '*.cc' '*.h' ':!:tests/cli/data/*' | xargs clang-format --style=file -i

clean:
	rm -rf $(BUILD) build-asan build-fuzz
