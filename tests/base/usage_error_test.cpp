// usage_error's quoted(): how a usage message names what the user typed.
#include "base/usage_error.hpp"

#include <gtest/gtest.h>

namespace arec::base {
namespace {

TEST(UsageError, QuotedNamesWhatTheUserTypedBetweenSingleQuotes) {
  EXPECT_EQ(quoted("cpu-clock:x"), "'cpu-clock:x'");
  EXPECT_EQ(quoted(""), "''");
  EXPECT_EQ("unknown event " + quoted("it's"), "unknown event 'it's'");
}

}  // namespace
}  // namespace arec::base
