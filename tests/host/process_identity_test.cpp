// process_identity: the start time that tells a process from a later one with its pid, read
// after the name, whatever the name holds.
#include "host/process_identity.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace arec::host {
namespace {

TEST(ProcessIdentity, TheStartTimeIsTheTwentySecondFieldAfterTheName) {
  std::string stat =
      "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
      "987654 1000 100 18446744073709551615\n";
  EXPECT_EQ(host::start_time_in_stat(stat), 987654u);
  EXPECT_EQ(host::start_time_in_stat("4242 (name) S 1 2"), std::nullopt) << "cut short";
  EXPECT_EQ(host::start_time_in_stat("no parenthesis"), std::nullopt);
}

TEST(ProcessIdentity, ThisProcessHasOneAndAGoneOneNone) {
  std::optional<std::uint64_t> mine = host::process_start_time(::getpid());
  ASSERT_TRUE(mine);
  EXPECT_EQ(host::process_start_time(::getpid()), mine) << "the same process, the same time";
  EXPECT_EQ(host::process_start_time(-5), std::nullopt);
}

}  // namespace
}  // namespace arec::host
