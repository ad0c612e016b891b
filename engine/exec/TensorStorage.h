// The elements of a host tensor, stored at their dtype's own width in the encoding the GPU uses (float16 as
// IEEE half bits, bfloat16 as the upper half of a float, float8 as e4m3fn/e5m2 bytes, integers in two's
// complement, bool as a 0/1 byte). A float16 tensor of 2^28 elements takes 512 MiB here, as on the GPU,
// not the 2 GiB of doubles the values would take; a tensor's bytes are the bytes a GPU run uploads and
// downloads, and the JIT reads and writes them in place.
//
// Values go in and out as doubles: get() is exact (every encoded value is a double), set() rounds to the
// dtype as roundToDType does, so whatever is stored is what a store of that value to a tensor of this dtype
// holds on the GPU.
#pragma once

#include "engine/ir/DType.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <vector>

namespace tb {

class TensorStorage {
public:
    // One element, readable as a double and assignable from one (rounded): what operator[] gives on a
    // storage that may be written.
    class ElementRef {
    public:
        ElementRef(TensorStorage& storage, size_t index) : m_storage(storage), m_index(index) {}
        operator double() const { return m_storage.get(m_index); }
        ElementRef& operator=(double value) {
            m_storage.set(m_index, value);
            return *this;
        }
        ElementRef& operator=(const ElementRef& other) { return *this = static_cast<double>(other); }
        ElementRef& operator+=(double value) { return *this = static_cast<double>(*this) + value; }

    private:
        TensorStorage& m_storage;
        size_t m_index;
    };

    // Reads the values in order (std algorithms, range-for).
    class ValueIterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = double;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = double;

        ValueIterator() = default;
        ValueIterator(const TensorStorage* storage, size_t index) : m_storage(storage), m_index(index) {}
        double operator*() const { return m_storage->get(m_index); }
        double operator[](difference_type n) const { return m_storage->get(m_index + size_t(n)); }
        ValueIterator& operator++() { return ++m_index, *this; }
        ValueIterator operator++(int) { return {m_storage, m_index++}; }
        ValueIterator& operator--() { return --m_index, *this; }
        ValueIterator operator--(int) { return {m_storage, m_index--}; }
        ValueIterator& operator+=(difference_type n) { return m_index += size_t(n), *this; }
        ValueIterator& operator-=(difference_type n) { return m_index -= size_t(n), *this; }
        ValueIterator operator+(difference_type n) const { return {m_storage, m_index + size_t(n)}; }
        ValueIterator operator-(difference_type n) const { return {m_storage, m_index - size_t(n)}; }
        difference_type operator-(const ValueIterator& other) const {
            return difference_type(m_index) - difference_type(other.m_index);
        }
        auto operator<=>(const ValueIterator& other) const { return m_index <=> other.m_index; }
        bool operator==(const ValueIterator& other) const { return m_index == other.m_index; }

    private:
        const TensorStorage* m_storage = nullptr;
        size_t m_index = 0;
    };

    TensorStorage() = default; // float64, no elements
    // `count` zeros.
    explicit TensorStorage(ir::DType dtype, size_t count = 0);
    TensorStorage(const TensorStorage& other);
    TensorStorage& operator=(const TensorStorage& other);
    TensorStorage(TensorStorage&& other) noexcept = default;
    TensorStorage& operator=(TensorStorage&& other) noexcept = default;

    ir::DType dtype() const { return m_dtype; }
    size_t size() const { return m_count; }
    bool empty() const { return m_count == 0; }
    size_t elementBytes() const;
    size_t byteSize() const { return m_count * elementBytes(); }
    std::byte* bytes() { return m_bytes.get(); }
    const std::byte* bytes() const { return m_bytes.get(); }

    double get(size_t index) const;
    void set(size_t index, double value);
    double operator[](size_t index) const { return get(index); }
    ElementRef operator[](size_t index) { return {*this, index}; }

    // Elements [begin, begin + out.size()) into `out`, and `values` into [begin, begin + values.size()),
    // rounded: what get and set do, a row at a time (one dispatch on the dtype per row).
    void read(size_t begin, std::span<double> out) const;
    void write(size_t begin, std::span<const double> values);

    // New elements are zero.
    void resize(size_t count);
    void assign(size_t count, double value);
    // Replaces the elements with `values`, each rounded to the dtype.
    TensorStorage& operator=(const std::vector<double>& values);
    TensorStorage& operator=(std::initializer_list<double> values);
    // Every element as a double.
    std::vector<double> values() const;

    // Same dtype and the same bytes.
    bool operator==(const TensorStorage& other) const;
    // The same values, element by element (tests).
    bool operator==(const std::vector<double>& values) const { return this->values() == values; }

    ValueIterator begin() const { return {this, 0}; }
    ValueIterator end() const { return {this, m_count}; }

private:
    ir::DType m_dtype = ir::DType::Float64;
    size_t m_count = 0;
    // Not a std::vector: a large tensor's pages are first touched (zeroed or copied) by several threads,
    // which on a 2-core machine halves the cost of faulting in gigabytes.
    std::unique_ptr<std::byte[]> m_bytes;
};

} // namespace tb
