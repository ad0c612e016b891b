// The lessons: every lesson's sample runs correct on the CPU against its reference, and its exercise (the
// sample with the lesson's line taken out) does not: the gap is one the learner must really fill.
#include "engine/catalog/LessonCatalog.h"
#include "engine/catalog/SampleCatalog.h"
#include "engine/run/CpuRun.h"
#include "engine/run/RunReport.h"
#include "views/model/ProgramAnalysis.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

namespace tb {
namespace {

// As the app's Run without a GPU does it (RunPanel: run::runOnCpu on the analysis' compile).
run::CpuRunResult runText(const std::string& name, const std::string& text) {
    auto analysis = views::analyzeProgram(name, text);
    if (!analysis || !analysis->ok()) {
        run::CpuRunResult failed;
        failed.error = "does not compile";
        return failed;
    }
    return run::runOnCpu(*analysis->compile);
}

TEST(Lessons, AtLeastFiveInOrderEachWithViewsAndAnExercise) {
    ASSERT_GE(lessons().size(), 5u);
    std::set<std::string> samples;
    for (size_t i = 0; i < lessons().size(); ++i) {
        const Lesson& l = lessons()[i];
        EXPECT_EQ(l.number, int(i) + 1);
        EXPECT_EQ(findLesson(l.number), &l);
        EXPECT_FALSE(l.title.empty());
        EXPECT_GE(l.explanation.size(), 100u) << l.title;
        EXPECT_GE(l.views.size(), 2u) << l.title;
        EXPECT_FALSE(l.task.empty());
        EXPECT_FALSE(l.hint.empty());
        EXPECT_TRUE(samples.insert(l.sample).second) << "two lessons on " << l.sample;
    }
    EXPECT_EQ(findLesson(0), nullptr);
}

class LessonExercise : public ::testing::TestWithParam<int> {};

TEST_P(LessonExercise, TheSampleIsCorrectAndTheExerciseIsNot) {
    const Lesson* lesson = findLesson(GetParam());
    ASSERT_NE(lesson, nullptr);
    auto sample = findSample(lesson->sample);
    ASSERT_TRUE(sample);
    std::string solution, error;
    ASSERT_TRUE(readTextFile(sample->path, solution));
    std::string exercise = lessonExercise(*lesson, error);
    ASSERT_FALSE(exercise.empty()) << error;
    EXPECT_NE(exercise.find("# TODO (lesson " + std::to_string(lesson->number) + "): " + lesson->task),
              std::string::npos);
    EXPECT_EQ(exercise.find(lesson->gap), std::string::npos) << "the gap line is still there";
    EXPECT_NE(exercise.find("# tilebench-reference:"), std::string::npos) << "a Run must be able to check it";

    run::CpuRunResult right = runText(sample->fileName, solution);
    EXPECT_TRUE(right.executed && right.checked && right.ok) << run::describeCpuRun(right).text();
    run::CpuRunResult gap = runText(sample->fileName, exercise);
    EXPECT_FALSE(gap.ok) << "lesson " << lesson->number << ": the exercise passes without the missing line";
    if (gap.executed) {
        EXPECT_TRUE(gap.checked) << run::describeCpuRun(gap).text(); // wrong results, found by the reference
    }
}

INSTANTIATE_TEST_SUITE_P(All, LessonExercise, ::testing::Range(1, int(lessons().size()) + 1));

TEST(Lessons, AMissingGapLineIsAnError) {
    Lesson broken = lessons().front();
    broken.gap = "T.copy(Z_that_does_not_exist";
    std::string error;
    EXPECT_TRUE(lessonExercise(broken, error).empty());
    EXPECT_NE(error.find("is not a line of"), std::string::npos) << error;
    broken.sample = "no_such_sample";
    EXPECT_TRUE(lessonExercise(broken, error).empty());
    EXPECT_NE(error.find("not found"), std::string::npos) << error;
}

} // namespace
} // namespace tb
