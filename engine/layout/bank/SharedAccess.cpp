// Lane, word and bank helpers for one warp-level shared-memory access, and the check that reports
// accesses the hardware has no instruction for.
#include "engine/layout/bank/SharedAccess.h"

#include <algorithm>
#include <string>

namespace tb {

const char* sharedAccessKindName(SharedAccessKind kind) {
    switch (kind) {
    case SharedAccessKind::Load:
        return "load";
    case SharedAccessKind::Store:
        return "store";
    case SharedAccessKind::LdMatrix:
        return "ldmatrix";
    case SharedAccessKind::StMatrix:
        return "stmatrix";
    case SharedAccessKind::CpAsyncCa:
        return "cp.async.ca";
    case SharedAccessKind::CpAsyncCg:
        return "cp.async.cg";
    }
    return "?";
}

namespace {

int clampedMatrices(int matrices) {
    if (matrices <= 1)
        return 1;
    return matrices <= 2 ? 2 : 4;
}

// Index into the per-width opcode tables: U8, U16, 32-bit, 64, 128.
int widthIndex(int widthBytes) {
    switch (widthBytes) {
    case 1:
        return 0;
    case 2:
        return 1;
    case 8:
        return 3;
    case 16:
        return 4;
    }
    return 2;
}

} // namespace

const char* sassOpcodeName(SharedAccessKind kind, int widthBytes, int matrices, bool transposed) {
    static const char* const loads[] = {"LDS.U8", "LDS.U16", "LDS", "LDS.64", "LDS.128"};
    static const char* const stores[] = {"STS.U8", "STS.U16", "STS", "STS.64", "STS.128"};
    static const char* const ldsm[2][3] = {{"LDSM.16.M88", "LDSM.16.M88.2", "LDSM.16.M88.4"},
                                           {"LDSM.16.MT88", "LDSM.16.MT88.2", "LDSM.16.MT88.4"}};
    static const char* const stsm[2][3] = {{"STSM.16.M88", "STSM.16.M88.2", "STSM.16.M88.4"},
                                           {"STSM.16.MT88", "STSM.16.MT88.2", "STSM.16.MT88.4"}};
    int width = widthIndex(widthBytes);
    int matrixIndex = clampedMatrices(matrices) == 1 ? 0 : clampedMatrices(matrices) == 2 ? 1 : 2;
    switch (kind) {
    case SharedAccessKind::Load:
        return loads[width];
    case SharedAccessKind::Store:
        return stores[width];
    case SharedAccessKind::LdMatrix:
        return ldsm[transposed ? 1 : 0][matrixIndex];
    case SharedAccessKind::StMatrix:
        return stsm[transposed ? 1 : 0][matrixIndex];
    case SharedAccessKind::CpAsyncCa:
        return widthBytes == 16 ? "LDGSTS.E.128" : widthBytes == 8 ? "LDGSTS.E.64" : "LDGSTS.E";
    case SharedAccessKind::CpAsyncCg:
        return "LDGSTS.E.BYPASS.128";
    }
    return "?";
}

bool isMatrixAccess(SharedAccessKind kind) {
    return kind == SharedAccessKind::LdMatrix || kind == SharedAccessKind::StMatrix;
}

bool isCpAsyncAccess(SharedAccessKind kind) {
    return kind == SharedAccessKind::CpAsyncCa || kind == SharedAccessKind::CpAsyncCg;
}

int laneBytes(const WarpAccess& access) {
    if (isMatrixAccess(access.kind))
        return 16;
    return std::clamp(access.widthBytes, 1, 16);
}

uint32_t participatingLanes(const WarpAccess& access) {
    if (!isMatrixAccess(access.kind))
        return access.activeMask;
    int lanes = 8 * clampedMatrices(access.matrices);
    return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u;
}

int64_t wordOf(int64_t address) {
    // Floor division: C++ truncates toward zero, which would put byte -1 in word 0.
    int64_t word = address / kBankWordBytes;
    if (address % kBankWordBytes < 0)
        --word;
    return word;
}

int bankOfWord(int64_t word) {
    int64_t bank = word % kSharedBanks;
    return static_cast<int>(bank < 0 ? bank + kSharedBanks : bank);
}

int bankOf(int64_t address) {
    return bankOfWord(wordOf(address));
}

std::array<uint32_t, kWarpLanes> bankMap(const WarpAccess& access) {
    std::array<uint32_t, kWarpLanes> banks{};
    uint32_t lanes = participatingLanes(access);
    int bytes = laneBytes(access);
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        if (!((lanes >> lane) & 1u))
            continue;
        int64_t first = wordOf(access.address[lane]);
        int64_t last = wordOf(access.address[lane] + bytes - 1);
        for (int64_t word = first; word <= last; ++word)
            banks[lane] |= 1u << bankOfWord(word);
    }
    return banks;
}

bool checkWarpAccess(const WarpAccess& access, DiagnosticEngine& diagnostics, SourceRange range) {
    bool ok = true;
    int width = access.widthBytes;
    std::string kind = sharedAccessKindName(access.kind);
    switch (access.kind) {
    case SharedAccessKind::Load:
    case SharedAccessKind::Store:
        if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) {
            diagnostics.error("shared-access-width", range,
                              "a " + kind + " of " + std::to_string(width) + " bytes per lane does not exist",
                              "shared loads and stores move 1, 2, 4, 8 or 16 bytes per lane");
            ok = false;
        }
        break;
    case SharedAccessKind::CpAsyncCa:
        if (width != 4 && width != 8 && width != 16) {
            diagnostics.error("shared-access-width", range,
                              "cp.async.ca copies 4, 8 or 16 bytes per lane, not " + std::to_string(width),
                              "use a cp-size of 4, 8 or 16");
            ok = false;
        }
        break;
    case SharedAccessKind::CpAsyncCg:
        if (width != 16) {
            diagnostics.error("shared-access-width", range,
                              "cp.async.cg copies 16 bytes per lane, not " + std::to_string(width),
                              "use cp.async.ca for 4- or 8-byte copies");
            ok = false;
        }
        break;
    case SharedAccessKind::LdMatrix:
    case SharedAccessKind::StMatrix:
        if (access.matrices != 1 && access.matrices != 2 && access.matrices != 4) {
            diagnostics.error("shared-access-matrices", range,
                              kind + " loads 1, 2 or 4 matrices, not " + std::to_string(access.matrices),
                              "use .x1, .x2 or .x4");
            ok = false;
        }
        break;
    }
    if (!ok)
        return false;
    int bytes = laneBytes(access);
    uint32_t lanes = participatingLanes(access);
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        if (!((lanes >> lane) & 1u))
            continue;
        int64_t address = access.address[lane];
        int64_t remainder = address % bytes;
        if (remainder != 0) {
            diagnostics.error("shared-access-misaligned", range,
                              "lane " + std::to_string(lane) + " of a " + std::to_string(bytes) + "-byte " +
                                  kind + " addresses byte " + std::to_string(address) + ", which is not " +
                                  std::to_string(bytes) + "-byte aligned",
                              "align each lane's address to the access width");
            return false;
        }
    }
    return true;
}

} // namespace tb
