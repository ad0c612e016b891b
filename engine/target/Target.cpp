#include "engine/target/Target.h"

namespace tb {

const Target& targetSm80() {
    static const Target t = [] {
        Target t;
        t.name = "sm_80";
        t.smVersion = 80;
        t.maxSharedMemoryPerBlock = 163 * 1024; // 166912 bytes opt-in on A100
        t.sharedMemoryPerSm = 164 * 1024;
        t.maxThreadsPerSm = 2048;
        t.smCount = 108;
        return t;
    }();
    return t;
}

const Target& targetSm90a() {
    static const Target t = [] {
        Target t;
        t.name = "sm_90a";
        t.smVersion = 90;
        t.hasWgmma = true;
        t.hasTma = true;
        t.maxSharedMemoryPerBlock = 227 * 1024; // 232448 bytes opt-in on H100/H200
        t.sharedMemoryPerSm = 228 * 1024;
        t.maxThreadsPerSm = 2048;
        t.smCount = 132;
        return t;
    }();
    return t;
}

std::optional<Target> parseTarget(std::string_view name) {
    if (name == "sm_80" || name == "sm80" || name == "80" || name == "ampere" || name == "a100")
        return targetSm80();
    if (name == "sm_90a" || name == "sm_90" || name == "sm90a" || name == "sm90" || name == "90" ||
        name == "hopper" || name == "h100" || name == "h200")
        return targetSm90a();
    return std::nullopt;
}

std::vector<std::string> knownTargetNames() {
    return {"sm_80", "sm_90a"};
}

} // namespace tb
