// The cost of one warp-level shared-memory access in wavefronts (one wavefront = one pass through the 32
// banks = one SM cycle of the shared-memory pipe), by two models measured on the H200 (sm_90):
//  - hardwareCost: what the hardware does (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/_op_st and
//    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_*); the truth for cost;
//  - sassMetricCost: what ncu's source view reports (smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared and
//    its _ideal); it differs for paired LDS.64/LDS.128.
// The rules, and the measured cases that pin each one, are in docs/bank-model.md.
#pragma once

#include "engine/layout/bank/SharedAccess.h"

#include <array>
#include <cstdint>
#include <vector>

namespace tb {

enum class BankModelKind { Hardware, SassMetric };

const char* bankModelKindName(BankModelKind kind); // "hardware", "sass-metric"

// A set of lanes the shared-memory pipe serves together. Its cost is the largest per-bank count.
struct BankPhase {
    uint32_t lanes = 0; // the active lanes of this phase (bit l = lane l)
    int wavefronts = 0; // max over banks of perBank
    // Per bank: the distinct 4-byte words the phase's lanes touch there (same word = broadcast, counted
    // once); for cp.async under the hardware rule, the lanes writing there (equal destinations are not
    // merged).
    std::array<int, kSharedBanks> perBank{};
};

struct BankCost {
    int wavefronts = 0;
    // Hardware: the number of phases with an active lane (so wavefronts - ideal = the hardware's
    // l1tex__data_bank_conflicts counter). SASS metric: ceil(bytes / 128) where a unit served in one
    // merged wavefront counts at most 128 bytes (= smsp__sass_..._ideal). 0 when no lane takes part.
    int idealWavefronts = 0;
    // N-way conflict: the largest per-bank count in any phase (1 = conflict-free, 0 = nothing active).
    int conflictWays = 0;
    // The phases in lane order; only phases with an active lane are listed.
    std::vector<BankPhase> phases;
    // Hardware rule 3 applied: a paired LDS.64/LDS.128 served in phases twice as long.
    bool pairedLoad = false;
    // Hardware rule 6: a cp.async.cg quarter-warp writes more than one 128-byte destination row (measured
    // 45x slower than one row per quarter-warp whatever the banks; no counter shows it).
    bool cpAsyncCgRowSpread = false;

    int bankConflicts() const { return wavefronts - idealWavefronts; }
};

// The hardware rule. Examples: LDS.32 at 4*l -> 1 wavefront; LDS.32 at 128*l -> 32 (32-way);
// LDS.128 at 0 for every lane -> 2 (paired half-warps); STS.128 at 0 -> 4; ldmatrix.x4 with rows 128 B apart
// -> 32 (4 matrices, 8-way each); cp.async.ca 16 B with all lanes at 0 -> 32 (lanes are not merged).
BankCost hardwareCost(const WarpAccess& access);
// NVIDIA's SASS-metric model. Equal to hardwareCost except for LDS.64/LDS.128 whose units (LDS.64: the
// warp, LDS.128: each half-warp) pair up or hold at most 128 bytes: such a unit costs 1 when conflict-free,
// else the sum of its 128-byte phases. Example: LDS.128, lanes l and l^1 share an address, one 2-way
// conflict in each quarter-warp -> 8 (the hardware: 4).
BankCost sassMetricCost(const WarpAccess& access);
BankCost bankCost(const WarpAccess& access, BankModelKind model);

} // namespace tb
