// Host tensor elements at their dtype's width: encoding and decoding them one at a time or a row at a
// time (float16 rows through F16C on x86), and storage that several threads first touch.
#include "engine/exec/TensorStorage.h"

#include "engine/exec/FloatFormats.h"
#include "engine/exec/HostTensor.h"

#include <algorithm>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <thread>
#include <utility>
#include <vector>

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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TILEBENCH_HAVE_F16C_PATH 1
// Eight halves at a time with the F16C conversion (exact, as every half is a float), on the CPUs that
// have it: comparisons and references read hundreds of millions of halves.
__attribute__((target("avx,f16c"))) void decodeHalvesF16c(const std::byte* in, double* out, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i)));
        _mm256_storeu_pd(out + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
        _mm256_storeu_pd(out + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    for (; i < n; ++i)
        out[i] = float16Value(load<uint16_t>(in, i));
}

// float16Bits four doubles at a time: round to float toward zero, setting the float's last bit when
// that was inexact (rounding to odd), then round to half to nearest even. Rounding twice is exact this
// way because float keeps more than two bits beyond the half's (Boldo and Melquiond, "When double
// rounding is odd"); NaN stays NaN, overflow goes to infinity, tiny values to a signed zero or a
// subnormal, as float16Bits does.
__attribute__((target("avx,f16c"))) void encodeHalvesF16c(const double* in, std::byte* out, size_t n) {
    const unsigned control = _mm_getcsr();
    _mm_setcsr((control & ~0x6000u) | 0x6000u); // round toward zero for the double -> float step
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m256d d = _mm256_loadu_pd(in + i);
        const __m128 f = _mm256_cvtpd_ps(d);
        const __m256d inexact = _mm256_cmp_pd(_mm256_cvtps_pd(f), d, _CMP_NEQ_UQ);
        const int mask = _mm256_movemask_pd(inexact);
        const __m128i odd = _mm_set_epi32((mask >> 3) & 1, (mask >> 2) & 1, (mask >> 1) & 1, mask & 1);
        const __m128 rounded = _mm_castsi128_ps(_mm_or_si128(_mm_castps_si128(f), odd));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 2 * i),
                         _mm_cvtps_ph(rounded, _MM_FROUND_TO_NEAREST_INT));
    }
    _mm_setcsr(control);
    for (; i < n; ++i)
        store<uint16_t>(out, i, float16Bits(in[i]));
}

bool hasF16c() {
    static const bool yes = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
    return yes;
}
#endif

// Runs fn(begin, end) over slices of [0, bytes), on several threads when there are enough bytes to matter.
template <class Fn>
void inSlices(size_t bytes, Fn fn) {
    if (bytes == 0)
        return;
    const size_t threads = bytes < (size_t(64) << 20)
                               ? 1
                               : std::min<size_t>(16, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> workers;
    for (size_t t = 1; t < threads; ++t)
        workers.emplace_back(fn, bytes * t / threads, bytes * (t + 1) / threads);
    fn(0, bytes / threads);
    for (std::thread& w : workers)
        w.join();
}

std::unique_ptr<std::byte[]> zeroedBytes(size_t bytes) {
    std::unique_ptr<std::byte[]> out(new std::byte[bytes]); // uninitialized: the slices zero it
    inSlices(bytes, [&](size_t begin, size_t end) { std::memset(out.get() + begin, 0, end - begin); });
    return out;
}

} // namespace

TensorStorage::TensorStorage(ir::DType dtype, size_t count)
    : m_dtype(dtype), m_count(count), m_bytes(zeroedBytes(count * elementBytes())) {}

TensorStorage::TensorStorage(const TensorStorage& other)
    : m_dtype(other.m_dtype), m_count(other.m_count), m_bytes(new std::byte[other.byteSize()]) {
    inSlices(byteSize(), [&](size_t begin, size_t end) {
        std::memcpy(m_bytes.get() + begin, other.m_bytes.get() + begin, end - begin);
    });
}

TensorStorage& TensorStorage::operator=(const TensorStorage& other) {
    if (this != &other)
        *this = TensorStorage(other);
    return *this;
}

bool TensorStorage::operator==(const TensorStorage& other) const {
    return m_dtype == other.m_dtype && m_count == other.m_count &&
           (byteSize() == 0 || std::memcmp(bytes(), other.bytes(), byteSize()) == 0);
}

size_t TensorStorage::elementBytes() const {
    return static_cast<size_t>(ir::dtypeBytes(m_dtype));
}

double TensorStorage::get(size_t index) const {
    const std::byte* b = bytes();
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
    std::byte* b = bytes();
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
    const std::byte* b = bytes();
    switch (m_dtype) { // the common dtypes without a dispatch per element
    case ir::DType::Float16:
#ifdef TILEBENCH_HAVE_F16C_PATH
        if (hasF16c())
            return decodeHalvesF16c(b + 2 * begin, out.data(), out.size());
#endif
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
    std::byte* b = bytes();
    switch (m_dtype) {
    case ir::DType::Float16:
#ifdef TILEBENCH_HAVE_F16C_PATH
        if (hasF16c())
            return encodeHalvesF16c(values.data(), b + 2 * begin, values.size());
#endif
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
    if (count == m_count)
        return;
    TensorStorage resized(m_dtype, count);
    if (const size_t kept = std::min(byteSize(), resized.byteSize()))
        std::memcpy(resized.bytes(), bytes(), kept);
    *this = std::move(resized);
}

void TensorStorage::assign(size_t count, double value) {
    *this = TensorStorage(m_dtype, count); // zeros
    if (count == 0)
        return;
    set(0, value);
    // The first element's bytes, doubled until they fill the storage.
    for (size_t filled = 1; filled < count; filled *= 2)
        std::memcpy(bytes() + filled * elementBytes(), bytes(),
                    std::min(filled, count - filled) * elementBytes());
}

TensorStorage& TensorStorage::operator=(const std::vector<double>& values) {
    *this = TensorStorage(m_dtype, values.size());
    write(0, values);
    return *this;
}

TensorStorage& TensorStorage::operator=(std::initializer_list<double> values) {
    return *this = std::vector<double>(values);
}

std::vector<double> TensorStorage::values() const {
    std::vector<double> out(m_count);
    read(0, out);
    return out;
}

} // namespace tb
