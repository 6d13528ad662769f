#include "record/synthesis/build_id_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <thread>

#include "io/elf_build_id.hpp"

namespace arec::record {
namespace {

using namespace std::chrono_literals;

std::string own_executable() {
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

// The reader works in the background: the test waits for its result with a deadline.
bool known_within(const model::dso& object, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (object.build_id().empty())
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    else
      std::this_thread::yield();
  return true;
}

TEST(BuildIdReaderThread, ReadsTheBuildIdOfAQueuedDsoInTheBackground) {
  std::string path = own_executable();
  std::optional<io::build_id> expected = io::read_elf_build_id(path.c_str());
  ASSERT_TRUE(expected) << path << " has no build-id";
  build_id_reader reader;
  auto object = std::make_shared<model::dso>(path, model::dso_id{}, model::dso_kind::user);
  reader.enqueue(object);
  ASSERT_TRUE(known_within(*object, 60s));
  EXPECT_EQ(object->build_id(), *expected);
  EXPECT_FALSE(object->claim_build_id_read()) << "the file is read once";
}

TEST(BuildIdReaderThread, AfterStopNothingMoreIsReadAndTheRestIsLeftToTheEnd) {
  build_id_reader reader;
  reader.stop();
  reader.stop();  // idempotent
  auto object =
      std::make_shared<model::dso>(own_executable(), model::dso_id{}, model::dso_kind::user);
  reader.enqueue(object);
  EXPECT_TRUE(object->claim_build_id_read()) << "left unclaimed for collect_build_ids";
}

}  // namespace
}  // namespace arec::record
