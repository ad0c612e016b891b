// The backend is the instruction set the plan is made for and the generated code uses. A Target is the GPU
// (its limits, what it could execute); the backend says which of its instructions TileBench emits:
//   portable  mma.sync, cp.async, ldmatrix: sm_80's instruction set, which also runs on Hopper;
//   hopper    wgmma, TMA and mbarriers on sm_90a (engine/codegen's Hopper lowering).
// Every pass plans for instructionTarget(device, backend), so warp partition, layouts, swizzles, bank
// analysis, the schedule and codegen all describe one and the same kernel.
#pragma once

#include "engine/target/Target.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

enum class Backend { Portable, Hopper };

const char* backendName(Backend backend); // "portable", "hopper"
// "portable", "mma", "sm80" -> Portable; "hopper", "wgmma", "sm90a" -> Hopper.
std::optional<Backend> parseBackend(std::string_view name);
std::vector<std::string> knownBackendNames();

// The backend a device gets when none is asked for.
Backend defaultBackend(const Target& device);

// The device's limits with the backend's instruction set: the portable backend turns wgmma and TMA off.
// Pre: backendSupported(device, backend).
Target instructionTarget(const Target& device, Backend backend);

// Whether `device` executes `backend`'s instructions; when not, `why` says what is missing.
bool backendSupported(const Target& device, Backend backend, std::string* why = nullptr);

} // namespace tb
