// Word and bank helpers, the lane -> banks map, opcode names, and the access check's diagnostics.
#include "engine/layout/bank/SharedAccess.h"

#include <array>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>

namespace tb {
namespace {

TEST(SharedAccess, BankOfFloorsNegativeOffsets) {
    EXPECT_EQ(bankOf(0), 0);
    EXPECT_EQ(bankOf(3), 0);
    EXPECT_EQ(bankOf(4), 1);
    EXPECT_EQ(bankOf(124), 31);
    EXPECT_EQ(bankOf(128), 0);
    EXPECT_EQ(bankOf(-1), 31);
    EXPECT_EQ(bankOf(-4), 31);
    EXPECT_EQ(bankOf(-5), 30);
    EXPECT_EQ(wordOf(-1), -1);
    EXPECT_EQ(bankOfWord(-33), 31);
}

TEST(SharedAccess, BankMapListsTheBanksOfEachLane) {
    WarpAccess access;
    access.kind = SharedAccessKind::Load;
    access.widthBytes = 16;
    for (int lane = 0; lane < 32; ++lane)
        access.address[lane] = 16 * lane;
    access.activeMask = 0xfffffffeu;
    std::array<uint32_t, 32> map = bankMap(access);
    EXPECT_EQ(map[0], 0u); // inactive
    EXPECT_EQ(map[1], 0x000000f0u);
    EXPECT_EQ(map[7], 0xf0000000u);
    EXPECT_EQ(map[8], 0x0000000fu);
    access.widthBytes = 2; // two halves share a word
    access.address[3] = 2;
    EXPECT_EQ(bankMap(access)[3], 0x1u);
}

TEST(SharedAccess, MatrixAccessesUseTheirRowLanes) {
    WarpAccess access;
    access.kind = SharedAccessKind::StMatrix;
    access.matrices = 2;
    access.activeMask = 0x1u;
    EXPECT_EQ(participatingLanes(access), 0x0000ffffu);
    EXPECT_EQ(laneBytes(access), 16);
    access.matrices = 4;
    EXPECT_EQ(participatingLanes(access), 0xffffffffu);
}

TEST(SharedAccess, OpcodeNames) {
    EXPECT_STREQ(sassOpcodeName(SharedAccessKind::Load, 16, 1, false), "LDS.128");
    EXPECT_STREQ(sassOpcodeName(SharedAccessKind::Store, 4, 1, false), "STS");
    EXPECT_STREQ(sassOpcodeName(SharedAccessKind::LdMatrix, 16, 4, true), "LDSM.16.MT88.4");
    EXPECT_STREQ(sassOpcodeName(SharedAccessKind::StMatrix, 16, 1, false), "STSM.16.M88");
    EXPECT_STREQ(sassOpcodeName(SharedAccessKind::CpAsyncCa, 8, 1, false), "LDGSTS.E.64");
    EXPECT_STREQ(sassOpcodeName(SharedAccessKind::CpAsyncCg, 16, 1, false), "LDGSTS.E.BYPASS.128");
    EXPECT_STREQ(sharedAccessKindName(SharedAccessKind::CpAsyncCg), "cp.async.cg");
}

TEST(SharedAccess, CheckReportsImpossibleAccesses) {
    WarpAccess access;
    access.kind = SharedAccessKind::Load;
    access.widthBytes = 4;
    for (int lane = 0; lane < 32; ++lane)
        access.address[lane] = 4 * lane;
    {
        DiagnosticEngine diagnostics;
        EXPECT_TRUE(checkWarpAccess(access, diagnostics));
        EXPECT_TRUE(diagnostics.diagnostics().empty());
    }
    {
        WarpAccess bad = access;
        bad.widthBytes = 12;
        DiagnosticEngine diagnostics;
        EXPECT_FALSE(checkWarpAccess(bad, diagnostics));
        ASSERT_EQ(diagnostics.diagnostics().size(), 1u);
        EXPECT_EQ(diagnostics.diagnostics()[0].code, "shared-access-width");
        EXPECT_NE(diagnostics.diagnostics()[0].message.find("12"), std::string::npos);
    }
    {
        WarpAccess bad = access;
        bad.kind = SharedAccessKind::CpAsyncCg;
        bad.widthBytes = 8;
        DiagnosticEngine diagnostics;
        EXPECT_FALSE(checkWarpAccess(bad, diagnostics));
        EXPECT_EQ(diagnostics.diagnostics()[0].code, "shared-access-width");
    }
    {
        WarpAccess bad = access;
        bad.kind = SharedAccessKind::LdMatrix;
        bad.matrices = 3;
        DiagnosticEngine diagnostics;
        EXPECT_FALSE(checkWarpAccess(bad, diagnostics));
        EXPECT_EQ(diagnostics.diagnostics()[0].code, "shared-access-matrices");
    }
    {
        WarpAccess bad = access;
        bad.widthBytes = 16;
        DiagnosticEngine diagnostics;
        EXPECT_FALSE(checkWarpAccess(bad, diagnostics)); // lane 1 at byte 4
        EXPECT_EQ(diagnostics.diagnostics()[0].code, "shared-access-misaligned");
        EXPECT_NE(diagnostics.diagnostics()[0].message.find("lane 1"), std::string::npos);
        bad.activeMask = 0x11111111u; // lanes 0, 4, 8, ... are 16-byte aligned
        DiagnosticEngine again;
        EXPECT_TRUE(checkWarpAccess(bad, again));
    }
}

} // namespace
} // namespace tb
