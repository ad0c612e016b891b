// Backends: which instruction set a device is planned and generated for (see Backend.h).
#include "engine/target/Backend.h"

namespace tb {

const char* backendName(Backend backend) {
    switch (backend) {
    case Backend::Portable:
        return "portable";
    case Backend::Hopper:
        return "hopper";
    }
    return "portable";
}

std::optional<Backend> parseBackend(std::string_view name) {
    if (name == "portable" || name == "mma" || name == "mma.sync" || name == "sm80" || name == "sm_80")
        return Backend::Portable;
    if (name == "hopper" || name == "wgmma" || name == "sm90a" || name == "sm_90a")
        return Backend::Hopper;
    return std::nullopt;
}

std::vector<std::string> knownBackendNames() {
    return {"portable", "hopper"};
}

Backend defaultBackend(const Target&) {
    // The Hopper lowering is not complete yet, so every device runs the portable instruction set.
    return Backend::Portable;
}

bool backendSupported(const Target& device, Backend backend, std::string* why) {
    if (backend == Backend::Hopper && !device.hasWgmma) {
        if (why)
            *why = "the hopper backend needs wgmma and TMA (sm_90a); " + device.name + " has neither";
        return false;
    }
    return true;
}

Target instructionTarget(const Target& device, Backend backend) {
    Target t = device;
    if (backend == Backend::Portable) {
        t.hasWgmma = false;
        t.hasTma = false;
    }
    return t;
}

} // namespace tb
