// Run descriptions shared by tilec and the app; see RunReport.h.
#include "engine/run/RunReport.h"

#include "engine/support/Json.h"
#include "engine/support/NumberText.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace tb::run {

namespace {

std::string indexText(const std::vector<int64_t>& index) {
    std::string s = "[";
    for (size_t i = 0; i < index.size(); ++i)
        s += (i ? ", " : "") + std::to_string(index[i]);
    return s + "]";
}

// An output's comparison as a JSON object, left open for the caller's fields.
void beginOutput(JsonWriter& json, const std::string& name, const ComparisonResult& c) {
    json.beginObject()
        .field("name", name)
        .field("ok", c.ok())
        .field("maxAbsError", c.maxAbsError)
        .field("maxRelError", c.maxRelError)
        .field("mismatches", c.mismatches);
}

void addErrors(RunReport& r, const ComparisonResult& c) {
    r.maxAbsError = std::max(r.maxAbsError, c.maxAbsError);
    r.maxRelError = std::max(r.maxRelError, c.maxRelError);
}

} // namespace

std::string RunReport::text() const {
    std::string out;
    for (const std::string& l : lines)
        out += l + "\n";
    return out + headline + "\n";
}

std::vector<std::string> outputCheckLines(const std::string& name, const ComparisonResult& c, double atol,
                                          double rtol, const std::string& toleranceSetBy) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "  %-16s %s  max abs err %.3g  max rel err %.3g  (atol %.3g, rtol %.3g%s%s)", name.c_str(),
                  c.ok() ? "ok      " : "MISMATCH", c.maxAbsError, c.maxRelError, atol, rtol,
                  toleranceSetBy.empty() ? "" : ": ", toleranceSetBy.c_str());
    std::vector<std::string> lines = {buf};
    if (c.shapeMismatch) {
        lines.push_back("    the shape differs from the expected one");
    } else if (!c.ok()) {
        std::snprintf(buf, sizeof buf, "    %lld elements differ; first at %s: got %.6g, expected %.6g",
                      static_cast<long long>(c.mismatches), indexText(c.firstMismatch).c_str(),
                      c.actualAtMismatch, c.expectedAtMismatch);
        lines.push_back(buf);
    }
    return lines;
}

RunReport describeCpuRun(const CpuRunResult& result) {
    RunReport r;
    if (!result.executed) {
        r.headline = "did not run: " + result.error;
        return r;
    }
    const bool jit = result.execution.used == CpuBackend::Jit;
    const std::string where = std::string(jit ? "CPU JIT" : "CPU interpreter") + ", " +
                              formatNumber("%.3f s", result.seconds) +
                              (jit ? formatNumber(", compile %.3f s", result.execution.compileSeconds) : "");
    if (!result.execution.fallbackNote.empty())
        r.lines.push_back("note: " + result.execution.fallbackNote);
    for (const std::string& p : result.prints)
        r.lines.push_back(p);
    if (!result.checked) {
        r.lines.push_back(result.error + (result.statistics.empty() ? "" : "; outputs:"));
        for (const OutputStatistics& s : result.statistics) {
            char buf[200];
            std::snprintf(buf, sizeof buf, "  %-16s min %-12.6g max %-12.6g mean %-12.6g nan %lld",
                          s.name.c_str(), s.min, s.max, s.mean, static_cast<long long>(s.nans));
            r.lines.push_back(buf);
        }
        r.headline = "ran on the " + where + "; not checked";
        return r;
    }
    r.checked = true;
    for (const CpuOutputCheck& o : result.outputs) {
        for (std::string& l : outputCheckLines(o.name, o.comparison, o.atol, o.rtol))
            r.lines.push_back(std::move(l));
        addErrors(r, o.comparison);
    }
    r.ok = result.ok;
    r.headline = std::string(result.ok ? "correct" : "WRONG RESULTS") + " against '" + result.reference +
                 "' (" + where + ")";
    return r;
}

RunReport describeGpuRun(const GpuRunResult& result) {
    RunReport r;
    if (!result.ran) {
        r.headline =
            "the GPU run failed at " + std::string(gpuRunStageName(result.stage)) + ": " + result.message;
        if (result.fault)
            r.lines.push_back("the kernel faulted; the runner was restarted");
        if (result.timeout)
            r.lines.push_back("the watchdog stopped the kernel; the runner was restarted");
        return r;
    }
    for (const GpuOutputCheck& o : result.outputs) {
        for (std::string& l : outputCheckLines(o.name, o.comparison, o.atol, o.rtol, o.toleranceSetBy))
            r.lines.push_back(std::move(l));
        addErrors(r, o.comparison);
    }
    for (const GpuKernelReport& k : result.kernels) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "  kernel %s: grid %lldx%lldx%lld, block %lld, %lld B shared, %d registers/thread, "
                      "%d B spilled, %.3f ms wall",
                      k.name.c_str(), (long long)k.grid[0], (long long)k.grid[1], (long long)k.grid[2],
                      (long long)k.block[0], (long long)k.dynamicSharedBytes, k.registers, k.spillStoreBytes,
                      k.wallMs);
        r.lines.push_back(buf);
    }
    if (!result.oracleNote.empty())
        r.lines.push_back("note: " + result.oracleNote);
    r.checked = !result.outputs.empty();
    r.ok = result.matches;
    if (result.stage == GpuRunStage::Oracle) {
        r.headline = "ran on the GPU; not checked: " + result.message + " (its diagnostics say why)";
        return r;
    }
    std::string sampled;
    if (result.oracleBlocks > 0) {
        int64_t checked = 0, total = 0;
        for (const GpuOutputCheck& o : result.outputs) {
            checked += o.checkedElements;
            total +=
                o.comparison.shapeMismatch ? 0 : int64_t(result.gpuParams[size_t(o.paramIndex)].data.size());
        }
        sampled = "; sampled: " + std::to_string(result.oracleBlocks) + " of " +
                  std::to_string(result.gridBlocks) + " blocks, " + std::to_string(checked) + " of " +
                  std::to_string(total) + " output elements";
    }
    r.headline = std::string(result.matches ? "correct" : "WRONG RESULTS") +
                 " on the GPU against the CPU executor (" + result.oracleBackend + ", " +
                 formatNumber("%.3f s", result.oracleSeconds) + sampled + ")";
    return r;
}

std::string cpuRunJson(const CpuRunResult& result) {
    JsonWriter json;
    json.beginObject()
        .field("executed", result.executed)
        .field("backend", cpuBackendName(result.execution.used))
        .field("seconds", result.seconds)
        .field("compileSeconds", result.execution.compileSeconds)
        .field("fallback", result.execution.fallbackNote)
        .field("reference", result.reference)
        .field("checked", result.checked)
        .field("ok", result.ok)
        .key("outputs")
        .beginArray();
    for (const CpuOutputCheck& o : result.outputs) {
        beginOutput(json, o.name, o.comparison);
        json.endObject();
    }
    json.endArray().field("error", result.checked ? std::string() : result.error).endObject();
    return json.str();
}

std::string gpuRunJson(const GpuRunResult& r) {
    JsonWriter json;
    json.beginObject()
        .field("ok", r.ok())
        .field("stage", gpuRunStageName(r.stage))
        .field("message", r.message)
        .field("arch", r.arch)
        .field("device", r.device)
        .field("fault", r.fault)
        .field("timeout", r.timeout)
        .field("oracleBackend", r.oracleBackend)
        .field("oracleNote", r.oracleNote)
        .key("kernels")
        .beginArray();
    for (const GpuKernelReport& k : r.kernels)
        json.beginObject()
            .field("name", k.name)
            .field("registers", int64_t(k.registers))
            .field("spillStoreBytes", int64_t(k.spillStoreBytes))
            .field("sharedBytes", k.dynamicSharedBytes)
            .field("wallMs", k.wallMs)
            .endObject();
    json.endArray().key("outputs").beginArray();
    for (const GpuOutputCheck& o : r.outputs) {
        beginOutput(json, o.name, o.comparison);
        json.field("atol", o.atol)
            .field("rtol", o.rtol)
            .field("toleranceSetBy", o.toleranceSetBy)
            .endObject();
    }
    json.endArray().endObject();
    return json.str();
}

} // namespace tb::run
