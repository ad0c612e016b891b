// Delta reduction of a failing generated program: first over the generator's picks (drop runs of picks,
// set picks to 0, the simplest option, or halve them; each candidate list is replayed into a program),
// then over the text (drop single body lines). A candidate is kept when `stillFails` says it still shows
// the failure; the result is the smallest program found within the attempt budget.
#pragma once

#include "engine/tools/fuzz/ProgramGenerator.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tb::fuzz {

struct Reduction {
    std::string text;
    std::vector<uint32_t> picks;
    int attempts = 0;
};

Reduction reduceProgram(const GeneratedProgram& failing, const GeneratorOptions& options,
                        const std::function<bool(const std::string& text)>& stillFails,
                        int maxAttempts = 400);

} // namespace tb::fuzz
