// Random, valid tile programs for differential fuzzing (engine/tools/fuzz/DiffFuzz.cpp): TileLang text in
// the subset the engine accepts, built from one of a few program shapes (elementwise tiles, a pipelined
// GEMM with an epilogue, reductions along either dim, a GEMM followed by a row softmax), each with
// random dtypes, problem sizes (often ragged), tile sizes, thread counts, warp policies, transposes,
// pipeline depths (1-4 stages), copy offsets, swizzles, layout annotations and T.Parallel bodies with
// casts and math.
//
// Every random decision is one pick from a ChoiceSource, and the list of picks reproduces the program:
// a seed gives a fresh list, and a list edited by the reducer (a pick set to 0, "the simplest option", or
// dropped) replays into a smaller program. Programs write each output element from one block only, so
// the order in which blocks run cannot matter (except through atomics, which the generator does not use).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb::fuzz {

class ChoiceSource {
public:
    explicit ChoiceSource(uint64_t seed);                // fresh random picks
    explicit ChoiceSource(std::vector<uint32_t> replay); // replays picks; past the end every pick is 0

    // A value in [0, count); 0 is by convention the simplest option.
    int pick(int count);
    bool coin(int percentTrue);
    const std::vector<uint32_t>& picks() const { return m_picks; }

private:
    bool m_replaying = false;
    uint64_t m_state = 0;
    std::vector<uint32_t> m_replay;
    size_t m_next = 0;
    std::vector<uint32_t> m_picks;
};

struct GeneratorOptions {
    // Only what both GPU backends plan (float16/bfloat16 gemm inputs, tile sizes multiple of 16,
    // 128 or 256 threads): for GPU-vs-CPU runs.
    bool gpuSafe = false;
};

struct GeneratedProgram {
    std::string text;
    std::string kind;            // "elementwise", "gemm", "reduce", "gemm_softmax"
    std::vector<uint32_t> picks; // replaying these gives `text` again
};

GeneratedProgram generateProgram(ChoiceSource& choices, const GeneratorOptions& options);
GeneratedProgram generateProgram(uint64_t seed, const GeneratorOptions& options);

} // namespace tb::fuzz
