// Static stage sweep and the plot geometry shared by the canvas, the SVG export and hit-testing.
#include "views/model/SweepPlotModel.h"

#include "views/model/Color.h"
#include "views/model/SvgWriter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

namespace tb::views {

namespace {

std::optional<double> metricOf(const SweepPoint& p, SweepMetric metric) {
    switch (metric) {
    case SweepMetric::SharedMemory:
        return double(p.sharedBytes);
    case SweepMetric::Time:
        return p.milliseconds;
    case SweepMetric::Tflops:
        return p.tflops;
    }
    return std::nullopt;
}

const char* metricName(SweepMetric metric) {
    switch (metric) {
    case SweepMetric::SharedMemory:
        return "shared memory (bytes)";
    case SweepMetric::Time:
        return "time (ms)";
    case SweepMetric::Tflops:
        return "TFLOP/s";
    }
    return "";
}

} // namespace

double SweepPlotModel::axisMax(SweepMetric metric) const {
    double top = metric == SweepMetric::SharedMemory ? double(limitBytes) : 0;
    for (const SweepPoint& p : points)
        if (auto v = metricOf(p, metric))
            top = std::max(top, *v);
    return top > 0 ? top * 1.1 : 1;
}

std::pair<double, double> SweepPlotModel::position(SweepMetric metric, size_t i, double x0, double y0,
                                                   double w, double h) const {
    double n = double(std::max<size_t>(points.size(), 1));
    double x = x0 + w * (double(i) + 0.5) / n;
    double v = metricOf(points[i], metric).value_or(0);
    return {x, y0 + h - h * v / axisMax(metric)};
}

int SweepPlotModel::hitTest(SweepMetric metric, double x0, double y0, double w, double h, double x, double y,
                            double radius) const {
    int best = -1;
    double bestD = radius * radius;
    for (size_t i = 0; i < points.size(); ++i) {
        if (!metricOf(points[i], metric))
            continue;
        auto [px, py] = position(metric, i, x0, y0, w, h);
        double d = (px - x) * (px - x) + (py - y) * (py - y);
        if (d <= bestD) {
            bestD = d;
            best = int(i);
        }
    }
    return best;
}

void SweepPlotModel::setMeasured(int64_t value, double milliseconds, double tflops) {
    auto it =
        std::find_if(points.begin(), points.end(), [&](const SweepPoint& p) { return p.value == value; });
    if (it == points.end()) {
        SweepPoint p;
        p.value = value;
        points.push_back(p);
        it = points.end() - 1;
    }
    it->milliseconds = milliseconds;
    it->tflops = tflops;
}

void applySweepMeasurements(SweepPlotModel& model, const std::vector<SweepMeasurement>& measurements,
                            std::string note) {
    for (SweepPoint& p : model.points) {
        p.milliseconds.reset();
        p.tflops.reset();
        p.measuredStatus.clear();
    }
    for (const SweepMeasurement& m : measurements) {
        if (m.ran)
            model.setMeasured(m.value, m.milliseconds, m.tflops);
        auto it = std::find_if(model.points.begin(), model.points.end(),
                               [&](const SweepPoint& p) { return p.value == m.value; });
        if (it == model.points.end()) {
            SweepPoint p;
            p.value = m.value;
            p.fits = false;
            model.points.push_back(p);
            it = model.points.end() - 1;
        }
        // The bytes the variant's launch used, as the Sweep report prints them.
        if (m.sharedBytes >= 0) {
            it->sharedBytes = m.sharedBytes;
            it->fits = model.limitBytes <= 0 || m.sharedBytes <= model.limitBytes;
        }
        if (!m.ran)
            it->measuredStatus = m.status.empty() ? "did not run" : m.status;
    }
    std::stable_sort(model.points.begin(), model.points.end(),
                     [](const SweepPoint& a, const SweepPoint& b) { return a.value < b.value; });
    model.measuredNote = std::move(note);
}

bool hasMeasurements(const SweepPlotModel& model) {
    return std::any_of(model.points.begin(), model.points.end(),
                       [](const SweepPoint& p) { return p.milliseconds.has_value(); });
}

profile::SweepAxis stageSweepAxis(int last) {
    profile::SweepAxis axis{"num_stages", {}};
    for (int s = 1; s <= std::clamp(last, 1, 16); ++s)
        axis.values.push_back(std::to_string(s));
    return axis;
}

SweepPlotModel buildStageSweep(const profile::SweepPlan& plan, int64_t current) {
    SweepPlotModel model;
    model.current = current;
    model.notes = plan.notes;
    model.error = plan.error;
    for (const profile::PlannedVariant& v : plan.variants) {
        if (v.params.empty())
            continue;
        model.parameter = v.params.front().first;
        SweepPoint p;
        p.value = std::atoll(v.params.front().second.c_str());
        p.sharedBytes = v.sharedBytes;
        p.fits = v.fits;
        p.status = v.compiled ? std::string() : v.message;
        model.limitBytes = std::max(model.limitBytes, v.limitBytes);
        model.points.push_back(std::move(p));
    }
    model.literal = plan.literals.count(model.parameter) > 0;
    return model;
}

std::string sweepPlotToSvg(const SweepPlotModel& model, SweepMetric metric) {
    const double x0 = 70, y0 = 40, w = 480, h = 260;
    SvgWriter svg(x0 + w + 30, y0 + h + 50);
    Rgba black{0, 0, 0, 255}, axis{90, 90, 90, 255};
    svg.text(10, 20, std::string(metricName(metric)) + " vs " + model.parameter, 14, black, "start", true);
    svg.line(x0, y0 + h, x0 + w, y0 + h, axis);
    svg.line(x0, y0, x0, y0 + h, axis);
    double top = model.axisMax(metric);
    for (int t = 0; t <= 4; ++t) {
        double v = top * t / 4, y = y0 + h - h * t / 4;
        svg.text(x0 - 4, y + 3, SvgWriter::number(metric == SweepMetric::SharedMemory ? std::round(v) : v), 9,
                 black, "end");
    }
    if (metric == SweepMetric::SharedMemory && model.limitBytes > 0) {
        double y = y0 + h - h * double(model.limitBytes) / top;
        svg.line(x0, y, x0 + w, y, kLimitLine, 2, true);
        svg.text(x0 + w, y - 4, "limit " + std::to_string(model.limitBytes), 10, kLimitLine, "end");
    }
    for (size_t i = 0; i < model.points.size(); ++i) {
        const SweepPoint& p = model.points[i];
        auto [px, py] = model.position(metric, i, x0, y0, w, h);
        svg.text(px, y0 + h + 16, std::to_string(p.value), 10, black, "middle");
        if (!metricOf(p, metric))
            continue;
        Rgba c = p.fits ? kOkGreen : kConflictRed;
        svg.circle(px, py, p.value == model.current ? 7 : 5, c);
        svg.title(model.parameter + "=" + std::to_string(p.value) + ": " + std::to_string(p.sharedBytes) +
                  " bytes" + (p.fits ? "" : " (does not fit)") + (p.status.empty() ? "" : ": " + p.status));
    }
    svg.text(x0 + w / 2, y0 + h + 36, model.parameter, 11, black, "middle");
    return svg.str();
}

} // namespace tb::views
