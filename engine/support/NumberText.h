// One number through one printf pattern ("%.3f ms"), for the reports and summaries every front end prints.
#pragma once

#include <cstdio>
#include <string>

namespace tb {

inline std::string formatNumber(const char* pattern, double value) {
    char buf[96];
    std::snprintf(buf, sizeof buf, pattern, value);
    return buf;
}

} // namespace tb
