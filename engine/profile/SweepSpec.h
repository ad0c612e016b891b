// Sweep parameters for `tilec sweep FILE -p num_stages=1..4 -p block_M=64,128`: each -p gives one jit
// parameter a list of values (an inclusive integer range `lo..hi`, optionally `lo..hi:step`, a comma list,
// or one value), and the sweep runs the cartesian product, first parameter outermost. Problems are
// Diagnostics (codes sweep-*), reported without a source range.
#pragma once

#include "engine/support/Diagnostics.h"

#include <string>
#include <utility>
#include <vector>

namespace tb::profile {

struct SweepAxis {
    std::string name;
    std::vector<std::string> values; // as written (Python expressions: 64, 'bfloat16')
};

// At most this many configurations in one sweep.
constexpr size_t kMaxSweepConfigurations = 4096;

// Parses one "NAME=VALUES" argument; false after reporting to `diags`.
bool parseSweepAxis(const std::string& text, SweepAxis& axis, DiagnosticEngine& diags);

// The cartesian product of the axes (a later -p of the same name replaces the earlier one). Empty after
// reporting when there are too many configurations.
std::vector<std::vector<std::pair<std::string, std::string>>>
sweepConfigurations(const std::vector<SweepAxis>& axes, DiagnosticEngine& diags);

} // namespace tb::profile
