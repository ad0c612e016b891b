// The lessons: a path through the bundled samples from elementwise add to flash attention, for people
// learning tile programming. Each lesson names its sample, says in a few sentences what to look at in which
// view, and has an exercise in the style of TileLang's puzzles: the sample with one line taken out, to be
// written back by the learner and checked on the CPU against the sample's naive reference when they Run it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tb {

struct LessonView {
    std::string view; // a dock of the app: "Layout", "Bank conflicts", "Warp partition", ...
    std::string what; // what to look for there
};

struct Lesson {
    int number = 0;
    std::string title;
    std::string sample;      // a SampleCatalog name: "gemm_relu"
    std::string explanation; // a paragraph
    std::vector<LessonView> views;
    // The exercise: the sample's first line whose text (without its indentation) starts with `gap` becomes
    // a TODO comment with `task`; `hint` is shown on request.
    std::string gap;
    std::string task;
    std::string hint;
};

const std::vector<Lesson>& lessons();
const Lesson* findLesson(int number);

// The exercise text of a lesson: the sample with its gap line replaced by "# TODO (lesson N): task" at the
// same indentation. Empty with `error` set when the sample or the gap line is missing.
std::string lessonExercise(const Lesson& lesson, std::string& error);

} // namespace tb
