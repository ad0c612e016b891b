// The variants of a parameter sweep, compiled the one way that `tilec sweep`, the app's stage-sweep plot
// and the app's Sweep all use. A swept name that is a jit parameter becomes an override (as before); a
// name that is no jit parameter but the keyword of integer literals in the program (`num_stages=3` of a
// T.Pipelined, `threads=128` of a T.Kernel) has those literals edited in the variant's source, as a user
// would edit them, instead of giving an override that changes nothing. planSweep compiles each variant
// up to the shared-memory planning pass (no GPU) and reports its shared memory against the target and its
// occupancy; ProgramSweep times the same variants on a GPU.
#pragma once

#include "engine/pipeline/Pipeline.h"
#include "engine/profile/SweepSpec.h"
#include "engine/support/Diagnostics.h"
#include "engine/target/Occupancy.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {

// An integer literal passed as keyword `name` in a call of the program.
struct KeywordLiteral {
    std::string name;
    uint32_t begin = 0, end = 0; // the literal's byte range in the program text
    uint32_t line = 0;           // 1-based
    int64_t value = 0;
};
// Every `name=<integer literal>` keyword argument of a call in `result`'s program, in source order.
std::vector<KeywordLiteral> findKeywordLiterals(const CompileResult& result, const std::string& name);
// `text` with each literal replaced by `value` (ranges from findKeywordLiterals on the same text).
std::string withLiteralsReplaced(std::string text, const std::vector<KeywordLiteral>& literals,
                                 const std::string& value);

// What a sweep learns from one compile of the unswept program: which axis names are jit parameters and
// where the others are literals.
struct SweepBase {
    std::set<std::string> jitParameters;
    std::map<std::string, std::vector<KeywordLiteral>> literals; // axis name -> its literals (non-jit only)
    std::vector<std::string> notes; // "num_stages is the literal at line 33: each variant edits it"
};
SweepBase sweepBaseOf(const CompileResult& base, const std::vector<std::string>& axisNames);

// One variant's program: the base overrides, then the swept values (overrides or edited literals).
struct VariantProgram {
    std::string text;
    CompileOptions options;
};
VariantProgram variantProgram(const std::string& text, const SweepBase& base, const CompileOptions& options,
                              const std::vector<std::pair<std::string, std::string>>& baseOverrides,
                              const std::vector<std::pair<std::string, std::string>>& params);

// One statically planned variant.
struct PlannedVariant {
    std::vector<std::pair<std::string, std::string>> params;
    std::string paramsText; // "num_stages=2", axis order
    bool compiled = false;
    std::string message;     // the first error when it did not compile
    int64_t sharedBytes = 0; // the largest kernel's planned shared memory (the check's bytes when over)
    int64_t limitBytes = 0;  // the target's per-block limit
    bool fits = false;
    int64_t threads = 0;
    Occupancy occupancy; // of that kernel, registers unknown
};

struct SweepPlanOptions {
    CompileOptions compile;                                         // target, backend
    std::vector<std::pair<std::string, std::string>> baseOverrides; // applied before the swept values
};

struct SweepPlan {
    bool ok = false;
    std::string error; // the axes were invalid or the program does not compile at all
    std::vector<PlannedVariant> variants;
    std::vector<std::string> notes;
    std::map<std::string, std::vector<KeywordLiteral>> literals; // the axes that edit literals
};

// Compiles each configuration of `axes` as its own variant (through the shared-memory planning pass) and
// reports its shared memory; `base` may pass a compile of the same text with the base overrides (the
// app's current analysis), else it is compiled here.
SweepPlan planSweep(const std::string& fileName, const std::string& text, const std::vector<SweepAxis>& axes,
                    const SweepPlanOptions& options, const CompileResult* base = nullptr);

} // namespace tb::profile
