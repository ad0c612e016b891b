// The hardware rule and NVIDIA's SASS-metric model for the wavefronts of one warp-level shared-memory
// access. Both split the active lanes into phases and charge each phase the largest number of distinct
// words (or lanes, for cp.async under the hardware rule) that fall in one bank; they differ in how they
// split. docs/bank-model.md gives the rules with the measured cases that pin them.
#include "engine/layout/bank/BankCost.h"

#include <algorithm>
#include <bit>

namespace tb {

const char* bankModelKindName(BankModelKind kind) {
    switch (kind) {
    case BankModelKind::Hardware:
        return "hardware";
    case BankModelKind::SassMetric:
        return "sass-metric";
    }
    return "?";
}

namespace {

constexpr int kPhaseBytes = 128; // one wavefront moves at most 32 banks x 4 bytes

uint32_t laneRange(int first, int count) {
    uint32_t ones = count >= 32 ? 0xffffffffu : (1u << count) - 1u;
    return ones << first;
}

// Cost of serving `lanes` together. Distinct words per bank, unless `countLanes`: then every lane's word
// counts, as cp.async does not merge equal destinations (rule 5, seen in timing).
BankPhase makePhase(const WarpAccess& access, uint32_t lanes, bool countLanes) {
    BankPhase phase;
    phase.lanes = lanes;
    int bytes = laneBytes(access);
    std::array<std::vector<int64_t>, kSharedBanks> words;
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        if (!((lanes >> lane) & 1u))
            continue;
        int64_t first = wordOf(access.address[lane]);
        int64_t last = wordOf(access.address[lane] + bytes - 1); // at most 5 words: bytes <= 16
        for (int64_t word = first; word <= last; ++word)
            words[bankOfWord(word)].push_back(word);
    }
    for (int bank = 0; bank < kSharedBanks; ++bank) {
        std::vector<int64_t>& list = words[bank];
        if (!countLanes) {
            std::sort(list.begin(), list.end());
            list.erase(std::unique(list.begin(), list.end()), list.end());
        }
        phase.perBank[bank] = static_cast<int>(list.size());
        phase.wavefronts = std::max(phase.wavefronts, phase.perBank[bank]);
    }
    return phase;
}

// Rule 3's pairing over the whole warp: every active lane whose partner lane^x is active has the partner's
// address; inactive partners are ignored. Needs at least one active lane.
bool pairsUpIgnoringInactive(const WarpAccess& access, uint32_t active, int x) {
    if (active == 0)
        return false;
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        int partner = lane ^ x;
        if (((active >> lane) & 1u) && ((active >> partner) & 1u) &&
            access.address[lane] != access.address[partner])
            return false;
    }
    return true;
}

// The SASS model's pairing within one unit: every active lane has an active partner lane^x with the same
// address (an inactive partner breaks it, unlike the hardware: ld128_pairs_lane1_off).
bool pairsUpFully(const WarpAccess& access, uint32_t unitLanes, int x) {
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        if (!((unitLanes >> lane) & 1u))
            continue;
        int partner = lane ^ x;
        if (!((unitLanes >> partner) & 1u) || access.address[lane] != access.address[partner])
            return false;
    }
    return true;
}

void addPhase(BankCost& cost, BankPhase phase) {
    cost.wavefronts += phase.wavefronts;
    cost.conflictWays = std::max(cost.conflictWays, phase.wavefronts);
    cost.phases.push_back(phase);
}

// Lanes per 128-byte phase for a plain access of `bytes` per lane: the warp (<= 4 B), half-warps (8 B),
// quarter-warps (16 B).
int lanesPerPhase(int bytes) {
    if (bytes <= 4)
        return 32;
    return bytes <= 8 ? 16 : 8;
}

// Rule 6: a cp.async.cg quarter-warp spreading over several 128-byte destination rows.
bool rowSpread(const WarpAccess& access, uint32_t active) {
    for (int quarter = 0; quarter < 4; ++quarter) {
        bool seen = false;
        int64_t row = 0;
        for (int lane = 8 * quarter; lane < 8 * quarter + 8; ++lane) {
            if (!((active >> lane) & 1u))
                continue;
            int64_t address = access.address[lane];
            int64_t laneRow = address / kPhaseBytes - (address % kPhaseBytes < 0 ? 1 : 0); // floor
            if (seen && laneRow != row)
                return true;
            seen = true;
            row = laneRow;
        }
    }
    return false;
}

} // namespace

BankCost hardwareCost(const WarpAccess& access) {
    BankCost cost;
    uint32_t active = participatingLanes(access);
    int bytes = laneBytes(access);
    int perPhase = isMatrixAccess(access.kind) ? 8 : lanesPerPhase(bytes);
    // Rule 3: only loads (LDS.64/LDS.128) pair up, with lane^1 or lane^2, all or nothing over the warp.
    if (access.kind == SharedAccessKind::Load && bytes > 4 &&
        (pairsUpIgnoringInactive(access, active, 1) || pairsUpIgnoringInactive(access, active, 2))) {
        cost.pairedLoad = true;
        perPhase *= 2;
    }
    bool countLanes = isCpAsyncAccess(access.kind);
    for (int first = 0; first < kWarpLanes; first += perPhase) {
        uint32_t lanes = active & laneRange(first, perPhase);
        if (lanes != 0)
            addPhase(cost, makePhase(access, lanes, countLanes));
    }
    cost.idealWavefronts = static_cast<int>(cost.phases.size());
    if (access.kind == SharedAccessKind::CpAsyncCg)
        cost.cpAsyncCgRowSpread = rowSpread(access, active);
    return cost;
}

BankCost sassMetricCost(const WarpAccess& access) {
    BankCost cost;
    uint32_t active = participatingLanes(access);
    int bytes = laneBytes(access);
    int64_t idealBytes = 0; // bytes the ideal has to move; a merged unit counts at most one wavefront
    if (isMatrixAccess(access.kind) || bytes <= 4) {
        int perPhase = isMatrixAccess(access.kind) ? 8 : 32;
        for (int first = 0; first < kWarpLanes; first += perPhase) {
            uint32_t lanes = active & laneRange(first, perPhase);
            if (lanes != 0)
                addPhase(cost, makePhase(access, lanes, /*countLanes=*/false));
        }
        idealBytes = static_cast<int64_t>(std::popcount(active)) * bytes;
    } else {
        int perPhase = lanesPerPhase(bytes);
        int perUnit = 2 * perPhase; // LDS.64: the warp; LDS.128: a half-warp
        for (int first = 0; first < kWarpLanes; first += perUnit) {
            uint32_t unitLanes = active & laneRange(first, perUnit);
            if (unitLanes == 0)
                continue;
            int64_t unitBytes = static_cast<int64_t>(std::popcount(unitLanes)) * bytes;
            if (access.kind == SharedAccessKind::Load) {
                BankPhase whole = makePhase(access, unitLanes, /*countLanes=*/false);
                bool merged = whole.wavefronts <= 1 &&
                              (unitBytes <= kPhaseBytes || pairsUpFully(access, unitLanes, 1) ||
                               pairsUpFully(access, unitLanes, 2));
                if (merged) {
                    addPhase(cost, whole);
                    idealBytes += std::min<int64_t>(unitBytes, kPhaseBytes);
                    continue;
                }
            }
            for (int phaseFirst = first; phaseFirst < first + perUnit; phaseFirst += perPhase) {
                uint32_t lanes = unitLanes & laneRange(phaseFirst, perPhase);
                if (lanes != 0)
                    addPhase(cost, makePhase(access, lanes, /*countLanes=*/false));
            }
            idealBytes += unitBytes;
        }
    }
    cost.idealWavefronts = static_cast<int>((idealBytes + kPhaseBytes - 1) / kPhaseBytes);
    return cost;
}

BankCost bankCost(const WarpAccess& access, BankModelKind model) {
    switch (model) {
    case BankModelKind::Hardware:
        return hardwareCost(access);
    case BankModelKind::SassMetric:
        return sassMetricCost(access);
    }
    return hardwareCost(access);
}

} // namespace tb
