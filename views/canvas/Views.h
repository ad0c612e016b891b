// The canvases' view functions: each draws one view model with Dear ImGui inside an ImGuiCanvas, every
// frame, and keeps only the small UI state struct it is given (zoom, pan, hovered cell, toggles). A view
// never calls the compiler and never caches a model: when a toggle in the state changes what the model
// should be (another buffer, swizzle off), the owner sees the state change and builds a new model.
#pragma once

#include "views/model/BankConflictViewModel.h"
#include "views/model/BudgetViewModel.h"
#include "views/model/DataMovementViewModel.h"
#include "views/model/LayoutViewModel.h"
#include "views/model/PipelineScheduleViewModel.h"
#include "views/model/SweepPlotModel.h"
#include "views/model/WarpPartitionViewModel.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tb::views {

struct LayoutViewState {
    int buffer = 0;      // index into the buffer list
    bool swizzle = true; // shared buffers: chosen layout (true) or plain row-major (false)
    bool byWarp = false; // fragments: colour by warp instead of thread
    bool labels = true;
    float zoom = 1.0f;
    float panX = 0, panY = 0;
    // Fit the next frame's grid into the canvas (the Fit button; the owner asks for it per new buffer).
    bool fitRequested = false;
    std::string hover; // the hovered element's description
};
void drawLayout(const LayoutViewModel& model, const std::vector<std::string>& buffers,
                LayoutViewState& state);

struct BankViewState {
    int selected = -1;          // row chosen by the user (the owner rebuilds the punch cards)
    uint32_t highlightLine = 0; // linked selection from the editor
    uint32_t clickedLine = 0;   // set when the user clicks a row: the owner moves the editor there
    bool showUnswizzled = true;
    // The table's sort (the header clicks): worst row, most excess wavefronts, first by default.
    BankColumn sortColumn = BankColumn::Excess;
    bool sortDescending = true;
    // Per column, as last drawn: its header, the width the header text needs and the width it got.
    struct ColumnFit {
        std::string header;
        float needed = 0, given = 0;
    };
    std::vector<ColumnFit> columns;
};
void drawBankConflicts(const BankConflictViewModel& model, BankViewState& state);

struct WarpViewState {
    uint32_t highlightLine = 0;
    uint32_t clickedLine = 0;
    std::string hover;
};
void drawWarpPartition(const WarpPartitionViewModel& model, WarpViewState& state);

struct BudgetViewState {
    std::string hover;
    bool registersRequested = false; // the user asked for ptxas's registers (the owner compiles)
};
void drawBudget(const BudgetViewModel& model, BudgetViewState& state);

struct SweepViewState {
    SweepMetric metric = SweepMetric::SharedMemory;
    int clicked = -1; // point the user clicked: the owner opens that variant
    std::string hover;
};
void drawSweep(const SweepPlotModel& model, SweepViewState& state);

struct DataMovementViewState {
    int hoveredMove = -1;     // the move under the mouse (its arrow is drawn thick)
    uint32_t clickedLine = 0; // set when the user clicks a move: the owner moves the editor there
};
void drawDataMovement(const DataMovementViewModel& model, DataMovementViewState& state);

// The strip at the top of every canvas: the backend and instructions of the kernel it pictures
// (backendCaption) and the backend choice, one radio button per backend.
struct BackendBarState {
    std::string caption;
    std::vector<std::string> backends; // knownBackendNames()
    int current = 0;                   // index into backends: the backend the picture was planned for
    int requested = -1;                // set when the user picks another one: the owner recompiles with it
    // Where each choice was drawn (canvas pixels, its centre) and the strip's bottom edge: for hit tests.
    std::vector<std::pair<float, float>> choiceCenters;
    float bottom = 0;
};
void drawBackendBar(BackendBarState& state);

// Veils everything drawn so far on the canvas below `top` and says, in a banner, that it no longer
// matches the program: "out of date: the program has errors", then `reason` (the first error).
void drawOutOfDate(const std::string& reason, float top);

struct PipelineScheduleViewState {
    std::string hover; // the hovered step's label
};
void drawPipelineSchedule(const PipelineScheduleViewModel& model, PipelineScheduleViewState& state);

// Helpers shared by the view functions.
unsigned int packedColor(const Rgba& color);

} // namespace tb::views
