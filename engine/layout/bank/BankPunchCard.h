// The punch-card view model of one warp-level shared-memory access: a 32-lane x 32-bank matrix saying, for
// each lane and bank, which 4-byte word the lane touches there, which phase of the chosen model serves it
// and in which of the instruction's wavefronts. Pure data, computed from BankCost; the views draw it.
#pragma once

#include "engine/layout/bank/BankCost.h"

#include <array>
#include <cstdint>

namespace tb {

struct BankPunchCell {
    int64_t word = -1; // the word index (byte address / 4) this lane touches in this bank; -1: none
    int phase = -1;    // index into BankCost::phases; -1: none
    // 0-based wavefront of the whole instruction that serves this word: the phase's first wavefront plus the
    // word's rank among the distinct words in (phase, bank), words in ascending order (cp.async under the
    // hardware rule: lanes in lane order, as equal destinations are not merged). The hardware's real order
    // inside a phase is not observable; only the count per phase is.
    int wavefront = -1;
    bool conflicted = false; // the bank holds more than one word (lane) in this phase
};

struct BankPunchCard {
    BankModelKind model = BankModelKind::Hardware;
    BankCost cost;
    std::array<std::array<BankPunchCell, kSharedBanks>, kWarpLanes> cells{}; // [lane][bank]
    std::array<int, kWarpLanes> phaseOfLane{};                               // -1 for lanes that take no part
    std::array<int, kSharedBanks> wordsPerBank{}; // max over phases of BankPhase::perBank, for bank headers
};

// Example: LDS.32 at 128*l (stride 32 words): every lane's only cell is in bank 0, phase 0, and lane l's
// word is served in wavefront l; cost.wavefronts = 32.
BankPunchCard makeBankPunchCard(const WarpAccess& access, BankModelKind model = BankModelKind::Hardware);

} // namespace tb
