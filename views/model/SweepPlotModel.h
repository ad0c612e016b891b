// The sweep plot's model: one point per variant of a parameter (num_stages by default) with its shared
// memory, whether it fits the target's limit, and, once the profiler has run it, its time and TFLOP/s.
// The static points are the variants of profile::planSweep (engine/profile/SweepVariants.h), each compiled
// on its own by the same path as `tilec sweep`; a measured sweep puts the shared memory its launches used
// on the points it ran, so the plot and the Sweep report give the same bytes.
#pragma once

#include "engine/profile/SweepVariants.h"

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
    std::string status;                 // the variant does not compile: its first error
    std::optional<double> milliseconds; // measured
    std::optional<double> tflops;
    std::string measuredStatus; // a swept variant that did not run: "compile error: ..."
};

// One variant of a measured sweep (engine/profile/ProgramSweep.h), as the plot takes it.
struct SweepMeasurement {
    int64_t value = 0;
    bool ran = false;
    double milliseconds = 0, tflops = 0;
    std::string status;       // why it did not run
    int64_t sharedBytes = -1; // what its launch used; -1 when unknown
};

enum class SweepMetric { SharedMemory, Time, Tflops };

struct SweepPlotModel {
    std::string parameter = "num_stages";
    std::vector<SweepPoint> points;
    int64_t limitBytes = 0;
    int64_t current = 0;      // the value of the compiled program
    std::string measuredNote; // "measured on <device>": set by applySweepMeasurements
    std::vector<std::string>
        notes;            // how the variants were made ("...the literal num_stages=3 at line 33...")
    bool literal = false; // the parameter is a literal in the source: a click edits it
    bool pending = false; // the variants are being compiled; the points are the previous ones
    std::string error;    // the sweep could not be planned

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

// The stage counts the plot and the Run panel's Sweep use: num_stages = 1..kSweepStages.
inline constexpr int kSweepStages = 4;
profile::SweepAxis stageSweepAxis(int last = kSweepStages);
// The plot of a planned sweep (one axis); `current` is the program's own num_stages (0 when none).
SweepPlotModel buildStageSweep(const profile::SweepPlan& plan, int64_t current);
std::string sweepPlotToSvg(const SweepPlotModel& model, SweepMetric metric = SweepMetric::SharedMemory);

} // namespace tb::views
