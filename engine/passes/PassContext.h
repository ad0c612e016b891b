// What every layout pass is given besides the IR and the plan: the instruction target (the GPU's limits with
// the backend's instruction set), the GPU itself and the backend (so a plan can say what the hardware would
// have allowed), the options that change TileLang's choices (pass configs such as tl.disable_wgmma) and,
// optionally, the source text so that plan entries and diagnostics can say "line 30" instead of a byte
// offset.
#pragma once

#include "engine/support/SourceManager.h"
#include "engine/target/Backend.h"
#include "engine/target/Target.h"

#include <string>

namespace tb::passes {

class FragmentTableCache;

struct PassOptions {
    bool disableWgmma = false; // TileLang's tl.disable_wgmma pass config
    int maxVectorBits = 128;   // widest per-thread access (§5.5)
    bool allowCpAsync = true;  // false: global -> shared copies use plain vectorized ld/st
};

struct PassContext {
    // The instructions the plan may use: instructionTarget(device, backend).
    Target target = instructionTarget(targetSm90a(), Backend::Portable);
    Target device = targetSm90a();
    Backend backend = Backend::Portable;
    PassOptions options;
    const SourceManager* sources = nullptr; // may be null: origins then omit line numbers
    // Tables of fragments shared by the passes of one planLayouts call (set by it); may be null.
    FragmentTableCache* tables = nullptr;

    // "line 30" for a valid range when sources are known, else "" (so callers can append it).
    std::string lineOf(const SourceRange& range) const;
};

} // namespace tb::passes
