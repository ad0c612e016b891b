// The hopper backend's part of the kernel schedule (engine/passes/KernelSchedule.h), as TileLang plans
// T.Pipelined loops on sm_90a: in a kernel whose gemms issue wgmma, the global -> shared copies of each
// top-level T.Pipelined loop become TMA loads issued by a producer warpgroup appended after the kernel's
// threads (the consumers), into num_stages copies of their tiles guarded by full/empty mbarrier rings, one
// ring per group of copies the loop body first and last reads at the same statements. A copy TMA cannot
// make (a padded or mismatched shared layout, a row pitch that is not a multiple of 16 bytes, an address
// that reads a buffer, a box over 256) keeps cp.async; a kernel none of whose loops qualify is not
// warp-specialized, and the schedule's reasons say why.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"

#include <cstdint>

namespace tb::passes {

// Fills kernel.schedule.tmaCopies and kernel.schedule.warpSpecialization and turns the chosen copies' plans
// into CopyInstruction::Tma. Runs before the arena is laid out (TMA tiles need 1024-byte alignment) and does
// nothing unless the backend has TMA and wgmma.
void scheduleWarpSpecialization(layout::KernelPlan& kernel, const PassContext& context);

// The rings of one warp-specialized T.Pipelined loop (the copies in kernel.schedule.tmaCopies that are its
// statements), with their arena offsets starting at `barrierOffset`; returns the bytes they take.
int64_t planBarrierRings(const layout::KernelPlan& kernel, layout::PipelineSchedule& pipeline,
                         int64_t barrierOffset);

// True when the buffer is a shared operand of a wgmma gemm or the destination of a TMA copy: its slot must
// start on 1024 bytes (the swizzle atom repeat that descriptors and TMA's swizzled writes assume).
bool needsSwizzleAlignment(const layout::KernelPlan& kernel, const ir::Buffer* buffer);

} // namespace tb::passes
