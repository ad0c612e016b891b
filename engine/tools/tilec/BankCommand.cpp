// `tilec banks`: prints the bank analysis held in the layout plan.
#include "engine/tools/tilec/BankCommand.h"

#include "engine/layout/plan/BankPrinter.h"

#include <cstdio>
#include <string>

namespace tb::tilec {

int printBanks(const CompileResult& result, const layout::LayoutPlan& plan, bool json) {
    if (!result.ok())
        return 1;
    std::string text =
        json ? layout::printBankJson(plan, result.sources) : layout::printBankTable(plan, result.sources);
    std::fputs(text.c_str(), stdout);
    return 0;
}

} // namespace tb::tilec
