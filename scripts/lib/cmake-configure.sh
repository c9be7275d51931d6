# Sourced by scripts/build and scripts/sanitize: configure_build DIR ARGS...
# configures DIR with Ninja (when installed, and DIR is new or already
# Ninja's: CMake cannot switch an existing build directory's generator) and
# ccache as the compiler launcher (when installed; SYNERGY_CCACHE=0 turns it
# off), then ARGS. Quiet unless CMake fails. ccache sees paths relative to
# the checkout (CCACHE_BASEDIR) and leaves the working directory out of its
# hash, so another checkout of the same sources (a fresh CI clone) hits the
# objects an earlier one left in ~/.cache/ccache. Unity builds (CMake's
# CMAKE_UNITY_BUILD: a target's sources compiled eight to a translation
# unit) take a third less compiler time, as the heavy headers (gRPC,
# protobuf's generated code, gtest) are read once a batch; SYNERGY_UNITY=0
# compiles file by file (quicker to rebuild after a one-file edit).
configure_build() {
  local dir=$1
  shift
  local args=()
  if command -v ninja >/dev/null &&
    { [[ ! -f $dir/CMakeCache.txt ]] || grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; }; then
    args+=(-G Ninja)
  fi
  if [[ ${SYNERGY_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
    args+=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$root;CCACHE_NOHASHDIR=true;ccache")
  else
    args+=(-UCMAKE_CXX_COMPILER_LAUNCHER)
  fi
  if [[ ${SYNERGY_UNITY:-1} != 0 ]]; then
    args+=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
  else
    args+=(-DCMAKE_UNITY_BUILD=OFF)
  fi
  mkdir -p "$dir"
  cmake -S "$root" -B "$dir" "${args[@]}" "$@" >"$dir/configure.log" 2>&1 || {
    cat "$dir/configure.log" >&2
    return 1
  }
}
