// Loads the 213 access patterns measured on the H200 (shared/data/bank-rules-cases.json, described in
// shared/docs/bank-rules.md) as WarpAccess values with their measured and predicted wavefronts.
#pragma once

#include "engine/layout/bank/SharedAccess.h"

#include <optional>
#include <string>
#include <vector>

namespace tb::banktest {

struct MeasuredCase {
    std::string name;  // e.g. "ld128_pairs_conflict"
    std::string group; // e.g. "LDS.128"
    std::string sass;  // the SASS opcode, e.g. "LDS.128"
    WarpAccess access;
    std::optional<int> sassWavefronts; // smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared (run 2)
    std::optional<int> sassIdeal;      // ..._ideal
    std::optional<int> hwWavefronts;   // l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/_op_st
    std::optional<int> hwBankConflicts;
    int rulePrediction = -1;      // the doc's hardware rule
    int sassModelPrediction = -1; // the doc's SASS-metric model
};

struct TimingRun {
    std::string kernel; // e.g. "t_ldgsts_bcast_ca"
    std::string caseName;
    double cyclesPerWarpInstruction = 0.0;
};

struct MeasuredData {
    std::vector<MeasuredCase> cases;
    std::vector<TimingRun> timing;
    std::string error; // non-empty when the file could not be read
};

// Reads tests/data/bank-rules-cases.json (measured on the H200, see tests/data/README.md) once.
const MeasuredData& measuredData();
const MeasuredCase* findCase(const MeasuredData& data, const std::string& name);

} // namespace tb::banktest
