// Input of bench/runtime-bench.sh's third program: `clang-22 -std=c++20
// -fsyntax-only` on this file parses a good part of the C++ standard
// library (about 340,000 allocation calls, heaptrack's count).
#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>
#include <string>
#include <iostream>
#include <sstream>
#include <regex>
#include <functional>
#include <memory>
#include <set>
#include <thread>
#include <future>
#include <variant>
#include <optional>
#include <filesystem>
#include <chrono>
#include <random>
