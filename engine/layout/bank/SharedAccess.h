// One shared-memory access made by one warp-level instruction: what the bank model takes as input.
// It holds the instruction kind (LDS/STS, ldmatrix/stmatrix, cp.async .ca/.cg), the bytes each lane moves,
// the 32 lanes' byte addresses and the active mask, plus the lane/word/bank helpers every bank view shares.
// The rules that turn it into wavefronts are in BankCost.h and docs/bank-model.md.
#pragma once

#include "engine/support/Diagnostics.h"

#include <array>
#include <cstdint>

namespace tb {

// The shared-memory instruction. Load/Store are LDS/STS (ld.shared/st.shared); LdMatrix/StMatrix are
// LDSM/STSM (ldmatrix/stmatrix .m8n8 .b16, `transposed` = .trans); CpAsyncCa/CpAsyncCg are LDGSTS
// (cp.async.ca / cp.async.cg), of which only the shared-memory destination is modelled.
enum class SharedAccessKind { Load, Store, LdMatrix, StMatrix, CpAsyncCa, CpAsyncCg };

// "load", "store", "ldmatrix", "stmatrix", "cp.async.ca", "cp.async.cg".
const char* sharedAccessKindName(SharedAccessKind kind);
// The SASS opcode ptxas emits for the access, e.g. "LDS.128", "LDSM.16.MT88.4", "LDGSTS.E.BYPASS.128".
const char* sassOpcodeName(SharedAccessKind kind, int widthBytes, int matrices, bool transposed);

bool isMatrixAccess(SharedAccessKind kind);  // ldmatrix / stmatrix
bool isCpAsyncAccess(SharedAccessKind kind); // cp.async .ca / .cg

constexpr int kWarpLanes = 32;
constexpr int kSharedBanks = 32;
constexpr int kBankWordBytes = 4;

struct WarpAccess {
    SharedAccessKind kind = SharedAccessKind::Load;
    // Bytes each lane moves: 1, 2, 4, 8 or 16 (Load/Store), 4, 8 or 16 (CpAsyncCa), 16 (CpAsyncCg).
    // Ignored by LdMatrix/StMatrix, whose lanes each give one 16-byte row address.
    int widthBytes = 4;
    // Byte address of each lane: an absolute shared-memory address or an offset from any 128-byte aligned
    // base (only address / 4 mod 32 matters). ldmatrix/stmatrix: lane 8m+r gives row r of matrix m.
    std::array<int64_t, kWarpLanes> address{};
    // Lanes that execute the access (predicated-off lanes are ignored everywhere). LdMatrix/StMatrix are
    // .sync.aligned: the mask is ignored and lanes 0 .. 8*matrices-1 give the row addresses.
    uint32_t activeMask = 0xffffffffu;
    int matrices = 1;        // LdMatrix/StMatrix: .x1, .x2, .x4
    bool transposed = false; // LdMatrix/StMatrix .trans: costs the same (rule 4)
};

// Bytes one lane's address covers: 16 for ldmatrix/stmatrix rows, else widthBytes clamped to [1, 16]
// (an invalid width still gives a bounded answer; checkWarpAccess reports it).
int laneBytes(const WarpAccess& access);
// The lanes whose addresses take part: activeMask, or lanes 0 .. 8*matrices-1 for ldmatrix/stmatrix
// (matrices clamped to 1, 2 or 4).
uint32_t participatingLanes(const WarpAccess& access);

// The 4-byte word holding a byte address, floor-divided so that negative offsets stay consistent
// (wordOf(-1) = -1, bank 31).
int64_t wordOf(int64_t address);
// The bank (0..31) of a byte address: word mod 32.
int bankOf(int64_t address);
// The bank of a word index.
int bankOfWord(int64_t word);

// Lane -> bit mask of the banks its bytes touch (bit b = bank b); 0 for lanes that take no part.
// Example: LDS.128 at 16*l: lane 1 -> 0x000000f0 (banks 4-7).
std::array<uint32_t, kWarpLanes> bankMap(const WarpAccess& access);

// Reports what the hardware would reject and returns false: a width the instruction does not have
// (`shared-access-width`), an ldmatrix/stmatrix count other than 1, 2, 4 (`shared-access-matrices`),
// an address not aligned to the access width (`shared-access-misaligned`). The cost functions accept any
// input and stay bounded; this is for callers that build accesses from user programs.
bool checkWarpAccess(const WarpAccess& access, DiagnosticEngine& diagnostics, SourceRange range = {});

} // namespace tb
