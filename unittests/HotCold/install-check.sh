#!/usr/bin/env bash
# install-check.sh BUILD_DIR WORK_DIR CXX - the installed hot/cold allocator,
# used through pkg-config and through the CMake package (MemProf::HotCold): each
# program's cold-hinted block must land in the cold range.
set -euo pipefail
BUILD=$1 WORK=$2 CXX=$3
rm -rf "$WORK" && mkdir -p "$WORK/proj"
cmake --install "$BUILD" --prefix "$WORK/inst" > /dev/null
PC=$(dirname "$(find "$WORK/inst" -name memprof-hotcold.pc)")
cat > "$WORK/proj/prog.cpp" <<'EOF'
#include "memprof/HotCold/hotcold.h"
#include <cstdio>
int main() {
  void *C = ::operator new(100, static_cast<__hot_cold_t>(MEMPROF_HOTCOLD_HINT_COLD));
  void *H = ::operator new(100, static_cast<__hot_cold_t>(MEMPROF_HOTCOLD_HINT_HOT));
  std::printf("cold=%d hot=%d\n", memprof_hotcold_is_cold(C), memprof_hotcold_is_cold(H));
  ::operator delete(C);
  ::operator delete(H);
}
EOF
cd "$WORK/proj"
# shellcheck disable=SC2046
"$CXX" prog.cpp -o pc-prog $(PKG_CONFIG_PATH=$PC pkg-config --cflags --libs memprof-hotcold)
echo "pkg-config: $(./pc-prog)"
cat > CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(hotcold_consumer CXX)
find_package(MemProf REQUIRED)
add_executable(cmake-prog prog.cpp)
target_link_libraries(cmake-prog PRIVATE MemProf::HotCold)
EOF
CXX=$CXX cmake -S . -B b -G Ninja -DCMAKE_PREFIX_PATH="$WORK/inst" > /dev/null
ninja -C b > /dev/null
echo "cmake: $(./b/cmake-prog)"
