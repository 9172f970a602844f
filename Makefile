# Top-level entry points. CMake does the building; this file installs what is missing and
# chains the steps. `make demo` and `make check` work on a fresh Debian 12 machine.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 300
PREFIX ?= /usr/local
JOBS ?= 2
CMAKE_FLAGS ?=
MAKEFLAGS += --no-print-directory

.PHONY: all deps test-deps build check check-fast check-asan check-fuzz fuzz fuzz-build demo install bench format clean

all: build

deps:
	@sh scripts/deps.sh

test-deps:
	@sh scripts/deps.sh test

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

# The whole suite: a normal build, then the same suite with memspy's tools under ASan+UBSan,
# then a few seconds of fuzzing of each reader from the fixed corpus (tests/fuzz).
check: check-fast check-asan check-fuzz

check-fast: test-deps build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

check-asan: test-deps
	cmake -S . -B $(ASAN_BUILD) -DMEMSPY_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(JOBS)

# The readers' libFuzzer targets (clang): raw profile, result JSON, recorded stream.
fuzz-build: test-deps
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DMEMSPY_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target fuzz_raw fuzz_json fuzz_stream

check-fuzz: fuzz-build
	sh tests/fuzz/run.sh $(FUZZ_BUILD) 5

# Longer: FUZZ_SECONDS per reader (default 300).
fuzz: fuzz-build
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The MemSpy paper's Figure 1: blocked matrix multiply, N=295, B=64, on its 32 KiB cache.
demo: build
	@mkdir -p $(BUILD)/demo
	$(BUILD)/bin/memspy-cc -O2 -o $(BUILD)/demo/blkmatmul examples/blkmatmul/blkmatmul.c
	cd $(BUILD)/demo && ../bin/memspy run --preset memspy92 --no-report -- ./blkmatmul 295 64
	@echo
	cd $(BUILD)/demo && ../bin/memspy report
	@echo
	@echo "Detail of the top bin:"
	cd $(BUILD)/demo && ../bin/memspy show --code BlkMultiply --data 'double*.Y'

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: test-deps build
	sh bench/accuracy/run.sh $(BUILD)
	sh bench/overhead/run.sh $(BUILD)
	sh bench/capture/run.sh $(BUILD)
	sh bench/stages/run.sh $(BUILD)
	sh bench/threads/run.sh $(BUILD)

# Format memspy's C sources and tests with the root .clang-format (clang-format-14).
CLANG_FORMAT ?= clang-format-14
format:
	@command -v $(CLANG_FORMAT) >/dev/null || sh scripts/deps.sh format
	find src tests/unit \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cpp' \) | sort | xargs $(CLANG_FORMAT) -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
