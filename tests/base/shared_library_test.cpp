#include "base/shared_library.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace arec::base {
namespace {

std::string load_error(std::initializer_list<std::string_view> sonames) {
  try {
    base::shared_library library(sonames, "--feature");
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "loaded";
}

TEST(SharedLibrary, TheFirstSonameThatLoadsIsUsedAndItsFunctionsCalled) {
  base::shared_library libc({"libarec-no-such.so.1", "libc.so.6"}, "--feature");
  EXPECT_EQ(libc.soname(), "libc.so.6");
  auto* own_pid = libc.function<pid_t()>("getpid");
  EXPECT_EQ(own_pid(), ::getpid());
}

TEST(SharedLibrary, AMissingLibraryNamesWhatNeedsItAndEverySonameTried) {
  std::string message = load_error({"libarec-no-such.so.1", "libarec-nor-this.so.2"});
  EXPECT_NE(message.find("--feature needs a shared library"), std::string::npos) << message;
  EXPECT_NE(message.find("libarec-no-such.so.1"), std::string::npos) << message;
  EXPECT_NE(message.find("libarec-nor-this.so.2"), std::string::npos) << message;
}

TEST(SharedLibrary, AMissingFunctionNamesItAndTheLibrary) {
  base::shared_library libc({"libc.so.6"}, "--feature");
  try {
    libc.function<void()>("arec_no_such_function");
    FAIL() << "found a function that does not exist";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("libc.so.6 has no arec_no_such_function"),
              std::string::npos)
        << error.what();
  }
}

TEST(SharedLibrary, AMissingSymbolVersionNamesTheFunctionAtThatVersion) {
  base::shared_library libc({"libc.so.6"}, "--feature");
  try {
    libc.function<pid_t()>("getpid", "AREC_NO_SUCH_1.0");
    FAIL() << "found getpid at a version libc does not have";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("libc.so.6 has no getpid@AREC_NO_SUCH_1.0"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace arec::base
