// Builds the punch-card matrix from an access and the phases its cost model chose.
#include "engine/layout/bank/BankPunchCard.h"

#include <algorithm>
#include <vector>

namespace tb {

BankPunchCard makeBankPunchCard(const WarpAccess& access, BankModelKind model) {
    BankPunchCard card;
    card.model = model;
    card.cost = bankCost(access, model);
    card.phaseOfLane.fill(-1);
    // Must agree with makePhase in BankCost.cpp: the hardware rule counts cp.async lanes, not words.
    bool countLanes = model == BankModelKind::Hardware && isCpAsyncAccess(access.kind);
    int bytes = laneBytes(access);
    int firstWavefront = 0;
    for (size_t p = 0; p < card.cost.phases.size(); ++p) {
        const BankPhase& phase = card.cost.phases[p];
        struct Touch {
            int64_t word;
            int lane;
        };
        std::array<std::vector<Touch>, kSharedBanks> touches;
        for (int lane = 0; lane < kWarpLanes; ++lane) {
            if (!((phase.lanes >> lane) & 1u))
                continue;
            card.phaseOfLane[lane] = static_cast<int>(p);
            int64_t first = wordOf(access.address[lane]);
            int64_t last = wordOf(access.address[lane] + bytes - 1);
            for (int64_t word = first; word <= last; ++word)
                touches[bankOfWord(word)].push_back({word, lane});
        }
        for (int bank = 0; bank < kSharedBanks; ++bank) {
            std::vector<Touch>& list = touches[bank];
            // Lane order within equal words keeps the ranks deterministic.
            std::stable_sort(list.begin(), list.end(),
                             [](const Touch& a, const Touch& b) { return a.word < b.word; });
            int rank = -1;
            for (size_t i = 0; i < list.size(); ++i) {
                if (countLanes || i == 0 || list[i].word != list[i - 1].word)
                    ++rank;
                BankPunchCell& cell = card.cells[list[i].lane][bank];
                cell.word = list[i].word;
                cell.phase = static_cast<int>(p);
                cell.wavefront = firstWavefront + rank;
                cell.conflicted = phase.perBank[bank] > 1;
            }
            card.wordsPerBank[bank] = std::max(card.wordsPerBank[bank], phase.perBank[bank]);
        }
        firstWavefront += phase.wavefronts;
    }
    return card;
}

} // namespace tb
