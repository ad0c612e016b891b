// Errors of the layout algebra as values. Layout operations never throw and never print: an operation that
// can fail (a domain too large to enumerate, a shape precondition, a non-bijective inverse) returns a
// LayoutResult holding either its value or a LayoutError with a stable kebab-case code, a lower-case message
// that carries the numbers, and a hint. Callers turn the error into a Diagnostic at their source range.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

namespace tb::layout {

// Exact enumeration is used for inverse, equality, containment and tables. Domains larger than this many
// points are refused with the error code "layout-domain-too-large" rather than run for minutes.
constexpr int64_t kMaxEnumerationPoints = int64_t(1) << 20;

struct LayoutError {
    std::string code;    // e.g. "layout-domain-too-large"
    std::string message; // lower case, numbers included
    std::string hint;
};

template <class T>
class LayoutResult {
public:
    LayoutResult(T value) : m_state(std::move(value)) {}
    LayoutResult(LayoutError error) : m_state(std::move(error)) {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }
    // Precondition: ok().
    const T& value() const { return std::get<0>(m_state); }
    T& value() { return std::get<0>(m_state); }
    const T& operator*() const { return value(); }
    const T* operator->() const { return &value(); }
    // Precondition: !ok().
    const LayoutError& error() const { return std::get<1>(m_state); }

private:
    std::variant<T, LayoutError> m_state;
};

inline LayoutError layoutError(std::string code, std::string message, std::string hint = {}) {
    return LayoutError{std::move(code), std::move(message), std::move(hint)};
}

} // namespace tb::layout
