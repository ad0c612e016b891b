// How a run fills one input parameter instead of with fillRandom's values. Index tensors (cumulative
// sequence lengths, block offsets, column indices) must hold values that keep the program in bounds, and a
// real program computes them in host code TileBench does not run (or in a module it does not have), so the
// user says what they hold: `tilec run FILE --fill cu_seqlens=sorted:0..UQ --fill col_idx=randint:0..4095`.
#pragma once

#include "engine/exec/HostTensor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tb {

enum class InputFillKind {
    Random,   // "random": fillRandom's values (the default)
    Integers, // "randint:LO..HI": integers drawn uniformly from [LO, HI]
    Sorted,   // "sorted:LO..HI": a non-decreasing sequence from LO to HI (first LO, last HI), e.g. offsets
    Arange,   // "arange": 0, 1, 2, ... in row-major order
    Constant, // "const:V", "zeros", "ones": every element V
};

// A bound is an integer or the name of a dynamic dim (resolved when the tensor is filled).
struct FillBound {
    int64_t value = 0;
    std::string dim;
};

struct InputFill {
    InputFillKind kind = InputFillKind::Random;
    FillBound lo, hi;
    double constant = 0;
    std::string text; // as the user wrote it
};

using InputFills = std::map<std::string, InputFill>; // by parameter name

// Parses one fill: "random", "randint:LO..HI", "sorted:LO..HI", "arange", "const:V", "zeros", "ones". On
// error returns nullopt with `error` saying what was expected.
std::optional<InputFill> parseInputFill(const std::string& text, std::string& error);

// Fills `tensor` (its shape already set) as `fill` says, rounding every value to the tensor's dtype. A
// bound naming a dynamic dim takes its value from `dims`; on error (an unknown dim, LO > HI, a sorted fill
// of fewer than 2 elements whose ends differ) returns false with `error`.
bool applyInputFill(HostTensor& tensor, const InputFill& fill, uint64_t seed,
                    const std::map<std::string, int64_t>& dims, std::string& error);

} // namespace tb
