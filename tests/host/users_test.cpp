#include "host/users.hpp"

#include <gtest/gtest.h>

#include <string>

#include "base/usage_error.hpp"

using arec::host::resolve_user;

namespace {

std::string error_of(const std::string& user) {
  try {
    resolve_user(user);
  } catch (const arec::base::usage_error& error) {
    return error.what();
  }
  ADD_FAILURE() << user << " was accepted";
  return {};
}

}  // namespace

TEST(ResolveUser, TakesANameOrTheUidOfAUser) {
  EXPECT_EQ(resolve_user("root"), 0u);
  EXPECT_EQ(resolve_user("0"), 0u);
  EXPECT_EQ(resolve_user("nobody"), resolve_user(std::to_string(resolve_user("nobody"))));
}

TEST(ResolveUser, RefusesInPerfsWords) {
  EXPECT_EQ(error_of("no-such-user-arec"), "Invalid User: no-such-user-arec");
  EXPECT_EQ(error_of("4000000000"), "Problems obtaining information for user 4000000000");
}
