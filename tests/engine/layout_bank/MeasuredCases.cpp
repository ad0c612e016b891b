// Turns the measured-case JSON into WarpAccess values (see MeasuredCases.h).
#include "MeasuredCases.h"

#include "engine/support/JsonReader.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

namespace tb::banktest {

namespace {

using Value = JsonValue;

std::optional<int> optionalInt(const Value& object, const char* key) {
    const Value* value = object.member(key);
    if (!value || value->kind != Value::Kind::Number)
        return std::nullopt;
    return static_cast<int>(std::lround(value->number));
}

std::string stringOf(const Value& object, const char* key) {
    const Value* value = object.member(key);
    return value && value->kind == Value::Kind::String ? value->text : std::string();
}

// op/width/cache/trans as the probe wrote them: width is bytes per lane, or matrices for ldsm/stsm.
bool toAccess(const Value& object, WarpAccess& access, std::string& error) {
    std::string op = stringOf(object, "op");
    std::string cache = stringOf(object, "cache");
    int width = optionalInt(object, "width").value_or(0);
    if (op == "ld")
        access.kind = SharedAccessKind::Load;
    else if (op == "st")
        access.kind = SharedAccessKind::Store;
    else if (op == "ldsm")
        access.kind = SharedAccessKind::LdMatrix;
    else if (op == "stsm")
        access.kind = SharedAccessKind::StMatrix;
    else if (op == "ldgsts" && cache == "ca")
        access.kind = SharedAccessKind::CpAsyncCa;
    else if (op == "ldgsts" && cache == "cg")
        access.kind = SharedAccessKind::CpAsyncCg;
    else {
        error = "unknown op '" + op + "' cache '" + cache + "'";
        return false;
    }
    if (isMatrixAccess(access.kind)) {
        access.matrices = width;
        access.widthBytes = 16;
    } else {
        access.widthBytes = width;
    }
    const Value* trans = object.member("trans");
    access.transposed = trans && trans->kind == Value::Kind::Bool && trans->boolean;
    access.activeMask = static_cast<uint32_t>(std::strtoul(stringOf(object, "mask").c_str(), nullptr, 16));
    const Value* offsets = object.member("offsets");
    if (!offsets || offsets->items.size() != 32) {
        error = "offsets must list 32 lanes";
        return false;
    }
    for (int lane = 0; lane < 32; ++lane)
        access.address[lane] = static_cast<int64_t>(std::llround(offsets->items[lane].number));
    return true;
}

MeasuredData load() {
    MeasuredData data;
    std::string path = std::string(TILEBENCH_TESTS_DIR) + "/data/bank-rules-cases.json";
    std::ifstream in(path);
    if (!in) {
        data.error = "cannot open " + path;
        return data;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string error;
    std::optional<Value> root = parseJson(buffer.str(), error);
    if (!root) {
        data.error = path + ": " + error;
        return data;
    }
    const Value* cases = root->member("cases");
    if (!cases || cases->kind != Value::Kind::Array) {
        data.error = path + ": no 'cases' array";
        return data;
    }
    for (const Value& object : cases->items) {
        MeasuredCase c;
        c.name = stringOf(object, "name");
        c.group = stringOf(object, "group");
        c.sass = stringOf(object, "sass");
        if (!toAccess(object, c.access, error)) {
            data.error = c.name + ": " + error;
            return data;
        }
        c.sassWavefronts = optionalInt(object, "sass_wavefronts");
        c.sassIdeal = optionalInt(object, "sass_ideal");
        c.hwWavefronts = optionalInt(object, "hw_wavefronts");
        c.hwBankConflicts = optionalInt(object, "hw_bank_conflicts");
        c.rulePrediction = optionalInt(object, "rule").value_or(-1);
        c.sassModelPrediction = optionalInt(object, "sass_model").value_or(-1);
        data.cases.push_back(std::move(c));
    }
    if (const Value* timing = root->member("timing")) {
        for (const Value& object : timing->items) {
            TimingRun run;
            run.kernel = stringOf(object, "kernel");
            run.caseName = stringOf(object, "case");
            const Value* cycles = object.member("cycles_per_warp_inst_per_sm");
            run.cyclesPerWarpInstruction = cycles ? cycles->number : -1.0;
            data.timing.push_back(std::move(run));
        }
    }
    return data;
}

} // namespace

const MeasuredData& measuredData() {
    static const MeasuredData data = load();
    return data;
}

const MeasuredCase* findCase(const MeasuredData& data, const std::string& name) {
    for (const MeasuredCase& c : data.cases)
        if (c.name == name)
            return &c;
    return nullptr;
}

} // namespace tb::banktest
