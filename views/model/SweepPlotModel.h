// The sweep plot's model: one point per variant of a parameter (num_stages by default) with its shared
// memory, whether it fits the target's limit, and, once the profiler has run it, its time and TFLOP/s.
// The static points come from the layout plan: buffers multi-buffered by the pipeline scale with the stage
// count, the others do not.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::views {

struct SweepPoint {
    int64_t value = 0; // the parameter's value (num_stages)
    int64_t sharedBytes = 0;
    bool fits = true;
    std::optional<double> milliseconds; // measured
    std::optional<double> tflops;
    std::string measuredStatus; // a swept variant that did not run: "compile error: ..."
};

// One variant of a measured sweep (engine/profile/ProgramSweep.h), as the plot takes it.
struct SweepMeasurement {
    int64_t value = 0;
    bool ran = false;
    double milliseconds = 0, tflops = 0;
    std::string status; // why it did not run
};

enum class SweepMetric { SharedMemory, Time, Tflops };

struct SweepPlotModel {
    std::string parameter = "num_stages";
    std::vector<SweepPoint> points;
    int64_t limitBytes = 0;
    int64_t current = 0;      // the value of the compiled program
    std::string measuredNote; // "measured on <device>": set by applySweepMeasurements

    // Index of the point nearest (x, y) in a plot of `metric` drawn in [x0, x0+w] x [y0, y0+h], within
    // `radius` pixels; -1 when none.
    int hitTest(SweepMetric metric, double x0, double y0, double w, double h, double x, double y,
                double radius = 8) const;
    // The plot's y range for `metric` (0 .. max, at least the limit line for shared memory).
    double axisMax(SweepMetric metric) const;
    // Point i's position in the plot rectangle.
    std::pair<double, double> position(SweepMetric metric, size_t i, double x0, double y0, double w,
                                       double h) const;
    // Sets the measured values of the point with `value` (adding it when missing); for the profiler.
    void setMeasured(int64_t value, double milliseconds, double tflops);
};

// Puts a measured sweep on the points (adding points for values the static sweep lacks, kept sorted by
// value): ran variants get time and TFLOP/s, failed ones their status. Earlier measurements are cleared.
void applySweepMeasurements(SweepPlotModel& model, const std::vector<SweepMeasurement>& measurements,
                            std::string note);
// True when any point has a measured time.
bool hasMeasurements(const SweepPlotModel& model);

// Stage counts 1..maxStages for `kernel`; `current` is the program's own num_stages (0 when none).
SweepPlotModel buildStageSweep(const layout::KernelPlan& kernel, int64_t current, int64_t maxStages = 6);
std::string sweepPlotToSvg(const SweepPlotModel& model, SweepMetric metric = SweepMetric::SharedMemory);

} // namespace tb::views
