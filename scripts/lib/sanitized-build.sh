# Sourced by scripts/sanitize and scripts/fuzz: the one instrumented build,
# build-asan/ (clang++, -O1 with line tables for the reports' stacks), that
# serves both the libFuzzer targets and the sanitized test run. Every
# library carries libFuzzer's coverage, AddressSanitizer and
# UndefinedBehaviorSanitizer; no libtorch, no Python package, no benchmarks.
# Needs root, build (the directory) and configure_build
# (scripts/lib/cmake-configure.sh).
sanitized_flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

configure_sanitized() {
  if ! command -v clang++ >/dev/null; then
    echo "clang++ not found (scripts/install-deps installs clang and libclang-rt-14-dev)" >&2
    return 2
  fi
  configure_build "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DSYNERGY_FUZZ=ON -DSYNERGY_BUILD_TESTS=ON -DSYNERGY_BUILD_BENCH=OFF \
    -DSYNERGY_WITH_TORCH=OFF -DSYNERGY_WITH_PYTHON=OFF \
    -DCMAKE_CXX_FLAGS="$sanitized_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
}

# build_sanitized [TARGET...]: builds TARGETs (default: everything) quietly;
# on failure prints the errors and where the log is.
build_sanitized() {
  local jobs targets=()
  jobs=$(nproc 2>/dev/null || echo 2)
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$build" -j "$jobs" "${targets[@]}" >"$build/build.log" 2>&1 || {
    grep -E "error" "$build/build.log" | head -40 >&2
    echo "build of $build failed (log: $build/build.log)" >&2
    return 1
  }
}
