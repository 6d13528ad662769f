// valid_utf8: the one UTF-8 repair of every string arec puts in a protobuf message.
#include "base/valid_utf8.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace arec::base {
namespace {

const std::string replacement = "\xef\xbf\xbd";

TEST(ValidUtf8, KeepsValidTextAsItIs) {
  for (const std::string& text : std::initializer_list<std::string>{
           "", "hot_loop", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x94\xa5", "\xf4\x8f\xbf\xbf",
           std::string("a\0b", 3)}) {
    EXPECT_TRUE(base::is_valid_utf8(text)) << text;
    EXPECT_EQ(base::valid_utf8(text), text);
  }
}

TEST(ValidUtf8, ReplacesALoneByte) {
  EXPECT_FALSE(base::is_valid_utf8("\xff"));
  EXPECT_EQ(base::valid_utf8("\xff"), replacement);
  EXPECT_EQ(base::valid_utf8("a\x80z"), "a" + replacement + "z");
}

TEST(ValidUtf8, ReplacesEachMaximalSubpartOnce) {
  // A sequence cut short is one U+FFFD, whatever its length; the byte that breaks it starts over.
  EXPECT_EQ(base::valid_utf8("\xe2\x82"), replacement);
  EXPECT_EQ(base::valid_utf8("\xe2\x82z"), replacement + "z");
  EXPECT_EQ(base::valid_utf8("\xf0\x9f\x94"), replacement);
  EXPECT_EQ(base::valid_utf8("\xe2\xe2\x82\xac"), replacement + "\xe2\x82\xac");
}

TEST(ValidUtf8, ReplacesOverlongFormsSurrogatesAndCodePointsPastTheLast) {
  EXPECT_EQ(base::valid_utf8("\xc0\xaf"), replacement + replacement);  // overlong '/'
  EXPECT_EQ(base::valid_utf8("\xe0\x80\xaf"), replacement + replacement + replacement);
  EXPECT_EQ(base::valid_utf8("\xed\xa0\x80"), replacement + replacement + replacement);  // U+D800
  EXPECT_EQ(base::valid_utf8("\xf4\x90\x80\x80"),
            replacement + replacement + replacement + replacement);
}

}  // namespace
}  // namespace arec::base
