// Per-instruction SASS metrics attributed to source lines: each record (kernel, PC offset, counts) is
// placed on its CUDA line through the cubin's line table, then on its tile-program line through the line
// map the code generator provides (generated CUDA line -> tile-program line; a plain std::map so this
// folder does not depend on the code generator's types). Shared-memory excess wavefronts (the conflicts)
// are wavefronts - ideal, exact per instruction (unlike the hardware l1tex counter, see bank-rules.md).
#pragma once

#include "engine/gpu/CubinLineTable.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tb::profile {

struct SassRecord {
    std::string function;
    uint32_t pc = 0; // offset in the kernel's code
    uint64_t instExecuted = 0;
    uint64_t sharedWavefronts = 0;
    uint64_t sharedWavefrontsIdeal = 0;
    int cudaLine = -1; // filled by attributeSassRecords; -1 when unknown
    int tileLine = -1;

    uint64_t excessWavefronts() const {
        return sharedWavefronts > sharedWavefrontsIdeal ? sharedWavefronts - sharedWavefrontsIdeal : 0;
    }
};

struct LineTotals {
    int line = -1; // -1 collects what could not be placed
    uint64_t instExecuted = 0;
    uint64_t sharedWavefronts = 0;
    uint64_t sharedWavefrontsIdeal = 0;
    int instructions = 0; // SASS instructions on this line
    uint64_t excessWavefronts() const {
        return sharedWavefronts > sharedWavefrontsIdeal ? sharedWavefronts - sharedWavefrontsIdeal : 0;
    }
};

// Sets cudaLine and tileLine of each record. `lineMap` maps a generated CUDA line to a tile-program line;
// a CUDA line with no entry takes the nearest mapped line above it (generated statements that belong to
// the tile statement before them), or -1 when none is above.
void attributeSassRecords(std::vector<SassRecord>& records, const gpu::CubinLineTable& lines,
                          const std::map<int, int>& lineMap);

// Sums per line, sorted by line (the unplaced -1 bucket first when present).
std::vector<LineTotals> totalsByCudaLine(const std::vector<SassRecord>& records);
std::vector<LineTotals> totalsByTileLine(const std::vector<SassRecord>& records);

// Records sorted by function, then PC (deterministic output).
void sortSassRecords(std::vector<SassRecord>& records);

} // namespace tb::profile
