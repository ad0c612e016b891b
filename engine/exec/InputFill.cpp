#include "engine/exec/InputFill.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <vector>

namespace tb {

namespace {

std::optional<FillBound> parseBound(const std::string& text) {
    if (text.empty())
        return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (end && *end == '\0' && errno == 0)
        return FillBound{v, ""};
    const bool identifier = (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_') &&
                            std::all_of(text.begin(), text.end(), [](char c) {
                                return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                            });
    if (!identifier)
        return std::nullopt;
    return FillBound{0, text};
}

std::optional<int64_t> resolve(const FillBound& bound, const std::map<std::string, int64_t>& dims,
                               std::string& error) {
    if (bound.dim.empty())
        return bound.value;
    auto it = dims.find(bound.dim);
    if (it == dims.end()) {
        error = "'" + bound.dim + "' is not a dynamic dim of the program (give an integer or a --dim name)";
        return std::nullopt;
    }
    return it->second;
}

// Integers in [lo, hi], one draw per element.
void fillIntegers(HostTensor& t, int64_t lo, int64_t hi, uint64_t seed) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    for (int64_t i = 0; i < t.elementCount(); ++i) {
        const uint64_t draw = seededDraw(seed, t.name, i);
        t.data[size_t(i)] = roundToDType(double(lo + int64_t(span ? draw % span : draw)), t.dtype);
    }
}

// A non-decreasing sequence from lo to hi: the inner elements are drawn from [lo, hi] and sorted.
void fillSorted(HostTensor& t, int64_t lo, int64_t hi, uint64_t seed) {
    const int64_t n = t.elementCount();
    std::vector<int64_t> values(size_t(n), lo);
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    for (int64_t i = 1; i + 1 < n; ++i)
        values[size_t(i)] = lo + int64_t(seededDraw(seed, t.name, i) % span);
    if (n > 1)
        values.back() = hi;
    std::sort(values.begin(), values.end());
    for (int64_t i = 0; i < n; ++i)
        t.data[size_t(i)] = roundToDType(double(values[size_t(i)]), t.dtype);
}

} // namespace

std::optional<InputFill> parseInputFill(const std::string& text, std::string& error) {
    InputFill fill;
    fill.text = text;
    const size_t colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
    auto noArgument = [&](InputFillKind k) -> std::optional<InputFill> {
        if (colon != std::string::npos) {
            error = "'" + kind + "' takes no argument";
            return std::nullopt;
        }
        fill.kind = k;
        return fill;
    };
    if (kind == "random")
        return noArgument(InputFillKind::Random);
    if (kind == "arange")
        return noArgument(InputFillKind::Arange);
    if (kind == "zeros" || kind == "ones") {
        fill.constant = kind == "ones" ? 1 : 0;
        return noArgument(InputFillKind::Constant);
    }
    if (kind == "const") {
        char* end = nullptr;
        fill.constant = std::strtod(arg.c_str(), &end);
        if (arg.empty() || !end || *end) {
            error = "const needs a number (const:V), got '" + arg + "'";
            return std::nullopt;
        }
        fill.kind = InputFillKind::Constant;
        return fill;
    }
    if (kind == "randint" || kind == "sorted") {
        const size_t dots = arg.find("..");
        std::optional<FillBound> lo =
            dots == std::string::npos ? std::nullopt : parseBound(arg.substr(0, dots));
        std::optional<FillBound> hi =
            dots == std::string::npos ? std::nullopt : parseBound(arg.substr(dots + 2));
        if (!lo || !hi) {
            error = kind + " needs a range LO..HI of integers or dim names (e.g. " + kind +
                    ":0..255), got '" + arg + "'";
            return std::nullopt;
        }
        fill.kind = kind == "randint" ? InputFillKind::Integers : InputFillKind::Sorted;
        fill.lo = *lo;
        fill.hi = *hi;
        return fill;
    }
    error = "unknown fill '" + kind +
            "' (known: random, randint:LO..HI, sorted:LO..HI, arange, const:V, zeros, ones)";
    return std::nullopt;
}

bool applyInputFill(HostTensor& tensor, const InputFill& fill, uint64_t seed,
                    const std::map<std::string, int64_t>& dims, std::string& error) {
    tensor.data.assign(size_t(std::max<int64_t>(tensor.elementCount(), 0)), 0.0);
    switch (fill.kind) {
    case InputFillKind::Random:
        fillRandom(tensor, seed);
        return true;
    case InputFillKind::Arange:
        for (int64_t i = 0; i < tensor.elementCount(); ++i)
            tensor.data[size_t(i)] = double(i);
        return true;
    case InputFillKind::Constant:
        tensor.data.assign(tensor.data.size(), fill.constant);
        return true;
    case InputFillKind::Integers:
    case InputFillKind::Sorted:
        break;
    }
    std::optional<int64_t> lo = resolve(fill.lo, dims, error);
    std::optional<int64_t> hi = lo ? resolve(fill.hi, dims, error) : std::nullopt;
    if (!lo || !hi)
        return false;
    if (*lo > *hi) {
        error = "the range " + std::to_string(*lo) + ".." + std::to_string(*hi) + " is empty";
        return false;
    }
    if (fill.kind == InputFillKind::Sorted && tensor.elementCount() < 2 && *lo != *hi) {
        error = "a sorted fill from " + std::to_string(*lo) + " to " + std::to_string(*hi) +
                " needs at least 2 elements";
        return false;
    }
    if (fill.kind == InputFillKind::Integers)
        fillIntegers(tensor, *lo, *hi, seed);
    else
        fillSorted(tensor, *lo, *hi, seed);
    return true;
}

} // namespace tb
