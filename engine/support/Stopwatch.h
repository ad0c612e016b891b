// Wall-clock milliseconds since a point on the steady clock: how compiles and benchmarks time their steps.
#pragma once

#include <chrono>

namespace tb {

inline double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace tb
