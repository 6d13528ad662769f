#include "fleet/push_options.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "base/usage_error.hpp"
#include "support/temp_dir.hpp"
#include "support/test_user.hpp"

namespace arec::fleet {
namespace {

void write_token(const std::string& path, const std::string& text, mode_t mode);

std::string usage_error_of(std::string_view option, std::string_view value) {
  push_options options;
  try {
    apply_push_option(options, option, value);
  } catch (const base::usage_error& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(FleetPushOptions, TheUrlsUserGoesToBasicAuth) {
  push_options options;
  apply_push_option(options, "--push", "https://user@profiles.example:4040/base/");
  EXPECT_EQ(options.url, "https://profiles.example:4040/base");
  EXPECT_EQ(options.basic_user, "user");
  EXPECT_EQ(options.basic_password, "");
  EXPECT_EQ(push_endpoint(options),
            "https://profiles.example:4040/base/push.v1.PusherService/Push");
  apply_push_option(options, "--push", "http://localhost:4040");
  EXPECT_EQ(options.url, "http://localhost:4040");
}

// Every local user reads a command line (ps, /proc/PID/cmdline) for as long as arec runs.
TEST(FleetPushOptions, APasswordInTheUrlIsRefusedSayingHowToGiveIt) {
  std::string error = usage_error_of("--push", "https://user:s3cret@profiles.example:4040/");
  EXPECT_EQ(error,
            "--push: the URL holds a password, which every user of this machine could read in "
            "the command line (ps, /proc/PID/cmdline) while arec runs; keep the user in the URL "
            "(http://USER@HOST/...) and put the password alone in a file only you can read "
            "(chmod 600 FILE), given with --push-password-file FILE");
  EXPECT_EQ(error.find("s3cret"), std::string::npos) << "the message does not show it either";
}

TEST(FleetPushOptions, RefusesWhatIsNotAUrl) {
  EXPECT_EQ(usage_error_of("--push", "localhost:4040"),
            "--push: expected an http:// or https:// URL, got 'localhost:4040'");
  EXPECT_NE(usage_error_of("--push", "http://"), "(accepted)");
}

// A host or port no socket can reach passed the start-up check and was then retried forever.
TEST(FleetPushOptions, RefusesAHostOrPortNoServerCanHave) {
  EXPECT_EQ(usage_error_of("--push", "http://[zz]/"),
            "--push: expected a URL whose host and port can be reached ('zz' is not an IPv6 "
            "address), got 'http://[zz]/'");
  EXPECT_EQ(usage_error_of("--push", "http://pyro:99999"),
            "--push: expected a URL whose host and port can be reached (the port '99999' is not "
            "1 to 65535), got 'http://pyro:99999'");
  for (std::string_view url : {"http://pyro:0/", "http://pyro:/", "http://pyro:x", "http://[::1",
                               "http://[::1]x/", "http://:4040", "http://a b:1/", "http://u@/"})
    EXPECT_NE(usage_error_of("--push", url), "(accepted)") << url;
  for (std::string_view url :
       {"http://[::1]:4040/", "http://[fe80::1%25eth0]:80", "https://profiles-1.example.com",
        "http://127.0.0.1:65535?x=1", "http://u@pyro:4040"})
    EXPECT_EQ(usage_error_of("--push", url), "(accepted)") << url;
}

// A password comes from a file under the token file's rules, for the user the URL names.
TEST(FleetPushOptions, ThePasswordFileGivesTheUrlsUserItsPassword) {
  test::temp_dir dir;
  write_token(dir.file("password"), "s3cret\n", 0600);
  push_options options;
  apply_push_option(options, "--push-password-file", dir.file("password"));
  apply_push_option(options, "--push", "http://ann@pyro:4040");
  settle_push_destination(options, [](const char*) -> const char* { return nullptr; });
  EXPECT_EQ(options.basic_user, "ann");
  EXPECT_EQ(options.basic_password, "s3cret");

  write_token(dir.file("open"), "s3cret\n", 0644);
  EXPECT_NE(usage_error_of("--push-password-file", dir.file("open")), "(accepted)");
  push_options userless;
  apply_push_option(userless, "--push-password-file", dir.file("password"));
  apply_push_option(userless, "--push", "http://pyro:4040");
  try {
    settle_push_destination(userless, [](const char*) -> const char* { return nullptr; });
    ADD_FAILURE() << "a password without a user was taken";
  } catch (const base::usage_error& error) {
    EXPECT_NE(std::string(error.what()).find("http://USER@HOST"), std::string::npos);
  }
}

// Windows spooled for one server, format, tenant or user are never sent to another.
TEST(FleetPushOptions, TheSpoolDestinationNamesWhereAWindowGoesButNoSecret) {
  push_options a;
  apply_push_option(a, "--push", "http://ann@pyro:4040");
  apply_push_option(a, "--push-tenant", "team-a");
  a.bearer_token = "tok-123";
  a.basic_password = "s3cret";
  EXPECT_EQ(spool_destination(a),
            "pyroscope http://pyro:4040/push.v1.PusherService/Push tenant=team-a user=ann");
  push_options b = a;
  apply_push_option(b, "--push-tenant", "team-b");
  EXPECT_NE(spool_destination(a), spool_destination(b));
  b = a;
  b.format = push_format::parca;
  EXPECT_NE(spool_destination(a), spool_destination(b));
  b = a;
  b.tenant_id.clear();
  b.extra_headers = {"x-scope-orgid: team-a"};
  EXPECT_EQ(spool_destination(a), spool_destination(b)) << "the tenant as an OTLP header";
}

TEST(FleetPushOptions, IntervalTakesUnits) {
  EXPECT_EQ(parse_push_interval("15s"), std::chrono::seconds(15));
  EXPECT_EQ(parse_push_interval("10"), std::chrono::seconds(10));
  EXPECT_EQ(parse_push_interval("1500ms"), std::chrono::milliseconds(1500));
  EXPECT_EQ(parse_push_interval("2m"), std::chrono::minutes(2));
  EXPECT_EQ(usage_error_of("--push-interval", "5h"),
            "--push-interval: expected a duration such as 15s, 500ms or 1m, got '5h'");
  EXPECT_EQ(usage_error_of("--push-interval", "200ms"),
            "--push-interval: expected 1s or more, got '200ms'");
  EXPECT_NE(usage_error_of("--push-interval", "-3s"), "(accepted)");
}

TEST(FleetPushOptions, LabelsAreKeyValuePairsWithValidKeys) {
  EXPECT_EQ(parse_push_label("env=prod"), (label{"env", "prod"}));
  EXPECT_EQ(parse_push_label("k=a=b"), (label{"k", "a=b"}));
  EXPECT_EQ(usage_error_of("--push-label", "env"), "--push-label: expected key=value, got 'env'");
  EXPECT_NE(usage_error_of("--push-label", "=x"), "(accepted)");
  EXPECT_NE(usage_error_of("--push-label", "x="), "(accepted)");
  EXPECT_NE(usage_error_of("--push-label", "bad-key=x"), "(accepted)");
}

TEST(FleetPushOptions, SeriesLabelsDefaultToTheHostAndLaterOnesWin) {
  push_options options;
  apply_push_option(options, "--push-label", "env=prod");
  apply_push_option(options, "--push-label", "env=staging");
  push_window window;
  window.labels = {{"cpu", "3"}};
  std::vector<label> expected{
      {"__name__", "process_cpu"}, {"service_name", host_name()}, {"env", "staging"}, {"cpu", "3"}};
  EXPECT_EQ(series_labels(options, window), expected);
  apply_push_option(options, "--push-label", "service_name=db");
  EXPECT_EQ(series_labels(options, window)[1], (label{"service_name", "db"}));
  EXPECT_FALSE(host_name().empty());
}

// A token file at `path` holding `text`, with `mode`.
void write_token(const std::string& path, const std::string& text, mode_t mode) {
  FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fwrite(text.data(), 1, text.size(), file);
  std::fclose(file);
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
}

TEST(FleetPushOptions, HeaderValuesRefuseControlCharacters) {
  EXPECT_EQ(usage_error_of("--push-tenant", "t1\r\nX-Injected: yes"),
            "--push-tenant: the tenant id must not hold control characters (CR, LF, NUL, ...): "
            "it is sent in an HTTP header");
  EXPECT_NE(usage_error_of("--push-tenant", std::string_view("t1\0x", 4)), "(accepted)");
  EXPECT_NE(usage_error_of("--push-tenant", "t1\x7f"), "(accepted)");
  EXPECT_EQ(usage_error_of("--push", "http://user:pa\r\nX-Injected: yes@host"),
            "--push: the URL's password must not hold control characters (CR, LF, NUL, ...): "
            "it is sent in an HTTP header");
  EXPECT_NE(usage_error_of("--push", "http://us\ter:p@host"), "(accepted)");
  EXPECT_NE(usage_error_of("--push", "http://host/\r\nX: y"), "(accepted)");
  EXPECT_EQ(usage_error_of("--push-tenant", "team-a"), "(accepted)");

  test::temp_dir dir;
  write_token(dir.file("token"), "tok\x01en\n", 0600);
  EXPECT_EQ(usage_error_of("--push-token-file", dir.file("token")),
            "--push-token-file: the token must not hold control characters (CR, LF, NUL, ...): "
            "it is sent in an HTTP header");
}

TEST(FleetPushOptions, TokenFileIsARegularFileOfAFewKiB) {
  EXPECT_EQ(usage_error_of("--push-token-file", "/dev/null"),
            "--push-token-file: /dev/null is not a regular file; expected a regular file holding "
            "one token");
  test::temp_dir dir;
  write_token(dir.file("huge"), std::string(64 * 1024, 'a'), 0600);
  EXPECT_EQ(usage_error_of("--push-token-file", dir.file("huge")),
            "--push-token-file: " + dir.file("huge") +
                " holds more than 16384 bytes; expected a regular file holding one token");
  write_token(dir.file("ok"), "tok-123\n", 0600);
  push_options options;
  apply_push_option(options, "--push-token-file", dir.file("ok"));
  EXPECT_EQ(options.bearer_token, "tok-123");
}

TEST(FleetPushOptions, TokenFileNeverReadsAFifo) {
  test::temp_dir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  EXPECT_EQ(usage_error_of("--push-token-file", dir.file("fifo")),
            "--push-token-file: " + dir.file("fifo") +
                " is not a regular file; expected a regular file holding one token");
}

TEST(FleetPushOptions, TokenFileOthersMayReadIsRefusedAsSshRefusesAKey) {
  test::temp_dir dir;
  std::string path = dir.file("token");
  write_token(path, "tok-123\n", 0644);
  EXPECT_EQ(usage_error_of("--push-token-file", path),
            "--push-token-file: " + path +
                " is readable or writable by group or others (mode 0644); make it the token's "
                "alone: chown $(id -u) " +
                path + " && chmod 600 " + path);
  ASSERT_EQ(::chmod(path.c_str(), 0620), 0);
  EXPECT_NE(usage_error_of("--push-token-file", path), "(accepted)");
}

TEST(FleetPushOptions, TokenFileOfAnotherUserIsRefused) {
  test::test_user other;
  test::temp_dir dir;
  std::string path = dir.file("token");
  write_token(path, "tok-123\n", 0600);
  ASSERT_EQ(::chown(path.c_str(), other.uid(), other.gid()), 0);
  std::string error = usage_error_of("--push-token-file", path);
  EXPECT_EQ(error, "--push-token-file: " + path + " is owned by uid " +
                       std::to_string(other.uid()) + ", not by uid " + std::to_string(::geteuid()) +
                       " (the user running arec); make it the token's alone: chown $(id -u) " +
                       path + " && chmod 600 " + path);
}

}  // namespace
}  // namespace arec::fleet
