// A stand-alone front end for tilec's bench/profile/sweep (ProfileCommands.cpp), so they are tested and
// usable before tilec's own main dispatches to them: `tilec-profile bench FILE ...`.
#include "engine/tools/tilec/ProfileCommands.h"

int main(int argc, char** argv) {
    return tb::tilec::runProfileCommand(argc, argv);
}
