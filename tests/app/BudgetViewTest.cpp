// The shared-memory budget view in the window: occupancy by the engine's one rule
// (engine/target/Occupancy.h), with ptxas's registers once NVRTC has compiled the kernel (its button asks
// for that compile while the PTX dock is hidden).
#include "AppTestSupport.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>

namespace tb::app {

namespace {
struct BudgetFixture : test::WindowFixture {};
} // namespace

TEST_F(BudgetFixture, FlashAttentionOccupancyFromSharedMemoryThenRegisters) {
    ASSERT_TRUE(window->openSample("flash_attention"));
    ASSERT_TRUE(window->compileNow());
    const views::BudgetViewModel& m = window->canvases().budgetModel();
    // Not 7 (the per-block opt-in limit as the SM's capacity, no reservation): 6, by shared memory.
    EXPECT_NE(m.summary().find("6 blocks/SM (limited by shared memory)"), std::string::npos) << m.summary();
#if TILEBENCH_HAS_NVRTC
    window->codeViews().requestMachineCode(); // what the view's "ask ptxas" button does
    ASSERT_TRUE(window->codeViews().waitForIdle(120000));
    ASSERT_NE(window->codeViews().machineCode(), nullptr);
    const int registers = window->codeViews().machineCode()->kernels.at(0).registers;
    ASSERT_GT(registers, 0);
    ASSERT_TRUE(m.occupancy.registersKnown()) << m.summary();
    EXPECT_EQ(m.occupancy.registersPerThread, registers);
    // 65536 registers per SM; each warp of the 4 gets registers x 32 rounded up to 256.
    const int64_t perWarp = (int64_t(registers) * 32 + 255) / 256 * 256;
    const int64_t byRegisters = 65536 / (perWarp * 4);
    EXPECT_EQ(m.occupancy.byRegisters, byRegisters);
    EXPECT_EQ(m.occupancy.blocks, std::min<int64_t>(byRegisters, 6));
    if (byRegisters < 6) {
        EXPECT_NE(m.summary().find("limited by registers: " + std::to_string(registers) + " per thread"),
                  std::string::npos)
            << m.summary();
    }
#endif
}

} // namespace tb::app
