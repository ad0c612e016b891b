// Host tensor elements at their dtype's width: encoding and decoding one element.
#include "engine/exec/TensorStorage.h"

#include "engine/exec/FloatFormats.h"
#include "engine/exec/HostTensor.h"

#include <cstring>

namespace tb {

namespace {

template <class T>
T load(const std::byte* bytes, size_t index) {
    T value;
    std::memcpy(&value, bytes + index * sizeof(T), sizeof(T));
    return value;
}

template <class T>
void store(std::byte* bytes, size_t index, T value) {
    std::memcpy(bytes + index * sizeof(T), &value, sizeof(T));
}

} // namespace

TensorStorage::TensorStorage(ir::DType dtype, size_t count)
    : m_dtype(dtype), m_count(count), m_bytes(count * elementBytes()) {}

size_t TensorStorage::elementBytes() const {
    return static_cast<size_t>(ir::dtypeBytes(m_dtype));
}

double TensorStorage::get(size_t index) const {
    const std::byte* b = m_bytes.data();
    switch (m_dtype) {
    case ir::DType::Float64:
        return load<double>(b, index);
    case ir::DType::Float32:
        return load<float>(b, index);
    case ir::DType::Float16:
        return float16Value(load<uint16_t>(b, index));
    case ir::DType::BFloat16:
        return bfloat16Value(load<uint16_t>(b, index));
    case ir::DType::Float8E4M3:
    case ir::DType::Float8E5M2:
        return float8Value(load<uint8_t>(b, index), m_dtype);
    case ir::DType::Bool:
    case ir::DType::UInt8:
        return load<uint8_t>(b, index);
    case ir::DType::Int8:
        return load<int8_t>(b, index);
    case ir::DType::Int16:
        return load<int16_t>(b, index);
    case ir::DType::UInt16:
        return load<uint16_t>(b, index);
    case ir::DType::Int32:
        return load<int32_t>(b, index);
    case ir::DType::UInt32:
        return load<uint32_t>(b, index);
    case ir::DType::Int64:
    case ir::DType::UInt64:
        return integerToStored(load<int64_t>(b, index), m_dtype);
    }
    return 0;
}

void TensorStorage::set(size_t index, double value) {
    std::byte* b = m_bytes.data();
    switch (m_dtype) {
    case ir::DType::Float64:
        return store<double>(b, index, value);
    case ir::DType::Float32:
        return store<float>(b, index, static_cast<float>(value)); // round to nearest even
    case ir::DType::Float16:
        return store<uint16_t>(b, index, float16Bits(value));
    case ir::DType::BFloat16:
        return store<uint16_t>(b, index, bfloat16Bits(value));
    case ir::DType::Float8E4M3:
    case ir::DType::Float8E5M2:
        return store<uint8_t>(b, index, float8Bits(value, m_dtype));
    case ir::DType::Bool:
        return store<uint8_t>(b, index, value != 0 ? 1 : 0); // NaN != 0
    case ir::DType::Int8:
    case ir::DType::Int16:
    case ir::DType::Int32:
    case ir::DType::Int64:
    case ir::DType::UInt8:
    case ir::DType::UInt16:
    case ir::DType::UInt32:
    case ir::DType::UInt64: {
        // Two's complement: the low bytes of the wrapped 64-bit integer, little-endian like the GPU.
        const int64_t wrapped = wrapInteger(storedToInteger(value), m_dtype);
        std::memcpy(b + index * elementBytes(), &wrapped, elementBytes());
        return;
    }
    }
}

void TensorStorage::read(size_t begin, std::span<double> out) const {
    const std::byte* b = m_bytes.data();
    switch (m_dtype) { // the common dtypes without a dispatch per element
    case ir::DType::Float16:
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = float16Value(load<uint16_t>(b, begin + i));
        return;
    case ir::DType::Float32:
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = load<float>(b, begin + i);
        return;
    default:
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = get(begin + i);
    }
}

void TensorStorage::write(size_t begin, std::span<const double> values) {
    std::byte* b = m_bytes.data();
    switch (m_dtype) {
    case ir::DType::Float16:
        for (size_t i = 0; i < values.size(); ++i)
            store<uint16_t>(b, begin + i, float16Bits(values[i]));
        return;
    case ir::DType::Float32:
        for (size_t i = 0; i < values.size(); ++i)
            store<float>(b, begin + i, static_cast<float>(values[i]));
        return;
    default:
        for (size_t i = 0; i < values.size(); ++i)
            set(begin + i, values[i]);
    }
}

void TensorStorage::resize(size_t count) {
    m_count = count;
    m_bytes.resize(count * elementBytes());
}

void TensorStorage::assign(size_t count, double value) {
    resize(count);
    if (count == 0)
        return;
    set(0, value);
    for (size_t i = 1; i < count; ++i) // the first element's bytes, copied
        std::memcpy(m_bytes.data() + i * elementBytes(), m_bytes.data(), elementBytes());
}

TensorStorage& TensorStorage::operator=(const std::vector<double>& values) {
    resize(values.size());
    for (size_t i = 0; i < values.size(); ++i)
        set(i, values[i]);
    return *this;
}

TensorStorage& TensorStorage::operator=(std::initializer_list<double> values) {
    return *this = std::vector<double>(values);
}

std::vector<double> TensorStorage::values() const {
    std::vector<double> out(m_count);
    for (size_t i = 0; i < m_count; ++i)
        out[i] = get(i);
    return out;
}

} // namespace tb
