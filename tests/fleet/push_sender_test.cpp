#include "fleet/push_sender.hpp"

#include <gtest/gtest.h>
#include <sys/eventfd.h>

#include <csignal>
#include <future>

#include "fleet_test_support.hpp"
#include "io/file_copy.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/forked.hpp"
#include "support/temp_dir.hpp"

namespace arec::fleet {
namespace {

using test::captured_reports;
using test::numbered_window;
using test::stand_in_options;
using test::stand_in_server;
using test::window_index;

std::vector<int> received_order(const stand_in_server& server) {
  std::vector<int> order;
  for (const auto& push : server.received()) {
    for (const auto& profile : push.profiles) order.push_back(window_index(profile));
  }
  return order;
}

std::string label_value(const test::received_push& push, const std::string& name) {
  for (const label& pair : push.labels) {
    if (pair.name == name) return pair.value;
  }
  return "(none)";
}

TEST(PushSender, DeliversWindowsInOrderWithLabelsAndHeaders) {
  stand_in_server server;
  captured_reports reports;
  push_options options = stand_in_options(server.url());
  set_push_url(options, "http://alice@" + server.url().substr(7));
  options.basic_password = "wonder";  // as --push-password-file gives it
  options.tenant_id = "team-a";
  apply_push_option(options, "--push-label", "env=prod");
  push_sender sender{options, reports.reporter()};
  for (int i = 1; i <= 3; ++i) sender.push(numbered_window(i));
  ASSERT_TRUE(server.wait_for_received(3));
  sender.stop();

  EXPECT_EQ(received_order(server), (std::vector<int>{1, 2, 3}));
  auto pushes = server.received();
  const auto& first = pushes.front();
  EXPECT_EQ(first.path, "POST /push.v1.PusherService/Push HTTP/1.1");
  EXPECT_EQ(first.headers.at("content-type"), "application/proto");
  EXPECT_EQ(first.headers.at("connect-protocol-version"), "1");
  EXPECT_EQ(first.headers.at("authorization"), "Basic YWxpY2U6d29uZGVy");  // alice:wonder
  EXPECT_EQ(first.headers.at("x-scope-orgid"), "team-a");
  EXPECT_EQ(first.headers.at("connect-timeout-ms"), "20000");
  EXPECT_EQ(label_value(first, "__name__"), "process_cpu");
  EXPECT_EQ(label_value(first, "service_name"), "arec-test");
  EXPECT_EQ(label_value(first, "env"), "prod");
  EXPECT_EQ(label_value(first, "window"), "1");
  EXPECT_EQ(sender.counts().delivered, 3u);
  EXPECT_EQ(reports.lines(), std::vector<std::string>{}) << "a healthy push says nothing";
}

TEST(PushSender, SendsABearerToken) {
  stand_in_server server;
  captured_reports reports;
  push_options options = stand_in_options(server.url());
  options.bearer_token = "t0ken";
  push_sender sender{options, reports.reporter()};
  sender.push(numbered_window(1));
  ASSERT_TRUE(server.wait_for_received(1));
  EXPECT_EQ(server.received().front().headers.at("authorization"), "Bearer t0ken");
}

TEST(PushSender, ASlowServerNeverBlocksTheCaller) {
  stand_in_server server;
  captured_reports reports;
  server.hold();
  push_sender sender{stand_in_options(server.url()), reports.reporter()};
  sender.push(numbered_window(1));
  ASSERT_TRUE(server.wait_for_requests(1));  // the sender is now stuck in that request
  // Were push() to wait for the server, this test would hang here instead of going on.
  for (int i = 2; i <= 6; ++i) sender.push(numbered_window(i));
  EXPECT_EQ(sender.counts().in_memory, 6u);
  EXPECT_EQ(server.received().size(), 0u);
  server.release();
  ASSERT_TRUE(server.wait_for_received(6));
  EXPECT_EQ(received_order(server), (std::vector<int>{1, 2, 3, 4, 5, 6}));
}

TEST(PushSender, ARequestThatTakesTooLongIsRetried) {
  stand_in_server server;
  captured_reports reports;
  server.hold();
  push_options options = stand_in_options(server.url());
  options.request_timeout = std::chrono::milliseconds(300);
  push_sender sender{options, reports.reporter()};
  sender.push(numbered_window(1));
  ASSERT_TRUE(reports.wait_for("cannot deliver to " + server.url() + ": Timeout was reached"));
  server.release();
  ASSERT_TRUE(server.wait_for_received(1));
  sender.stop();
  // Delivery is at least once: the server may still answer tries the client gave up on.
  for (int index : received_order(server)) EXPECT_EQ(index, 1);
  EXPECT_EQ(sender.counts().delivered, 1u);
}

TEST(PushSender, ServerDownMidRunSpoolsAndDeliversWhenItReturns) {
  stand_in_server server;
  test::temp_dir dir;
  captured_reports reports;
  push_options options = stand_in_options(server.url());
  options.spool_dir = dir.file("spool");
  options.memory_bound_bytes = 2000;  // a few windows: the rest goes to disk
  push_sender sender{options, reports.reporter()};
  sender.push(numbered_window(1, 500));
  ASSERT_TRUE(server.wait_for_received(1));
  server.stop();
  for (int i = 2; i <= 9; ++i) sender.push(numbered_window(i, 500));
  // Window 1 is settled before window 2 is tried, and window 2 cannot be delivered now.
  ASSERT_TRUE(reports.wait_for("cannot deliver to " + server.url()));
  spool_counts waiting = sender.counts();
  EXPECT_EQ(waiting.delivered, 1u);
  EXPECT_EQ(waiting.in_memory + waiting.on_disk, 8u);
  EXPECT_GT(waiting.on_disk, 0u);
  server.restart();
  ASSERT_TRUE(server.wait_for_received(9));
  sender.stop();
  EXPECT_EQ(received_order(server), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_NE(reports.matching("delivering to " + server.url() + " again"), "");
  EXPECT_EQ(io::directory_names(dir.file("spool")).size(), 0u);
}

TEST(PushSender, TheBoundDropsTheOldestAndSaysSo) {
  stand_in_server server;
  captured_reports reports;
  server.hold();
  push_options options = stand_in_options(server.url());
  options.memory_bound_bytes = 3 * (1000 + sizeof(push_window) + 16) + 500;
  push_sender sender{options, reports.reporter()};
  sender.push(numbered_window(1, 1000));
  ASSERT_TRUE(server.wait_for_requests(1));  // window 1 is in flight: it is never dropped
  for (int i = 2; i <= 6; ++i) sender.push(numbered_window(i, 1000));
  EXPECT_EQ(sender.counts().dropped_full, 3u);
  server.release();
  ASSERT_TRUE(server.wait_for_received(3));
  sender.stop();
  EXPECT_EQ(received_order(server), (std::vector<int>{1, 5, 6}));
  EXPECT_NE(reports.matching("push: spool full: dropped the 3 oldest window(s)"), "");
  EXPECT_NE(reports.matching("3 window(s) delivered, 3 dropped (3 when the spool was full, 0 "
                             "refused)"),
            "");
}

TEST(PushSender, APermanentErrorDropsTheWindowAndSaysWhy) {
  stand_in_server server;
  captured_reports reports;
  server.fail_next(1, 400, "invalid_argument", "malformed profile");
  push_sender sender{stand_in_options(server.url()), reports.reporter()};
  sender.push(numbered_window(1));
  sender.push(numbered_window(2));
  ASSERT_TRUE(server.wait_for_received(1));
  sender.stop();
  EXPECT_EQ(received_order(server), (std::vector<int>{2}));
  EXPECT_EQ(server.requests(), 2u) << "a refused window is not sent again";
  EXPECT_NE(reports.matching(": HTTP 400, invalid_argument: malformed profile"), "");
  EXPECT_EQ(sender.counts().dropped_refused, 1u);
}

TEST(PushSender, ARetryableErrorKeepsTheWindowUntilItPasses) {
  stand_in_server server;
  captured_reports reports;
  server.fail_next(3, 503, "unavailable", "ingesters restarting");
  push_sender sender{stand_in_options(server.url()), reports.reporter()};
  sender.push(numbered_window(1));
  sender.push(numbered_window(2));
  ASSERT_TRUE(server.wait_for_received(2));
  EXPECT_EQ(received_order(server), (std::vector<int>{1, 2}));
  EXPECT_EQ(server.requests(), 5u);
  EXPECT_EQ(reports.matching("cannot deliver"),
            "push: cannot deliver to " + server.url() +
                ": HTTP 503, unavailable: ingesters restarting; windows wait in the spool and "
                "are retried with back-off\n")
      << "one line per failing streak, not per try";
}

TEST(PushSender, WhatTheServerWouldRefuseIsNotSent) {
  stand_in_server server;
  captured_reports reports;
  push_sender sender{stand_in_options(server.url()), reports.reporter()};
  push_window old = numbered_window(1);
  old.end_ns -= 7200'000'000'000;
  old.start_ns -= 7200'000'000'000;
  push_window bad_label = numbered_window(2);
  bad_label.labels.push_back({"bad-name", "x"});
  sender.push(old);
  sender.push(bad_label);
  sender.push(numbered_window(3));
  ASSERT_TRUE(server.wait_for_received(1));
  sender.stop();
  EXPECT_EQ(server.requests(), 1u);
  EXPECT_EQ(received_order(server), (std::vector<int>{3}));
  EXPECT_NE(reports.matching("longer than the server accepts (3600 s)"), "");
  EXPECT_NE(reports.matching("label name \"bad-name\" is not valid"), "");
}

TEST(PushSender, StopFlushesForABoundedTimeThenKeepsTheRestOnDisk) {
  stand_in_server server;
  test::temp_dir dir;
  captured_reports reports;
  server.hold();
  push_options options = stand_in_options(server.url());
  options.spool_dir = dir.file("spool");
  options.flush_timeout = std::chrono::milliseconds(100);
  {
    push_sender sender{options, reports.reporter()};
    for (int i = 1; i <= 3; ++i) sender.push(numbered_window(i));
    ASSERT_TRUE(server.wait_for_requests(1));
    sender.stop();  // returns although the server never answers
  }
  EXPECT_NE(reports.matching("push: 3 window(s) not sent are kept in " + dir.file("spool") +
                             " (last failure: no answer from " + server.url() +
                             " to a request that waited "),
            "");
  EXPECT_NE(reports.matching("; a later run with this spool directory sends them first"), "");
  server.stop();
  server.release();
  server.restart();
  options.flush_timeout = std::chrono::milliseconds(20'000);
  push_sender next{options, reports.reporter()};
  next.push(numbered_window(4));
  ASSERT_TRUE(server.wait_for_received(4));
  EXPECT_EQ(received_order(server), (std::vector<int>{1, 2, 3, 4}));
}

TEST(PushSender, ASpoolLeftByAKilledProcessIsSentByTheNextRun) {
  test::temp_dir dir;
  std::string spool_dir = dir.file("spool");
  stand_in_server server;
  push_options options = stand_in_options(server.url());
  options.spool_dir = spool_dir;
  // The child spools three windows to disk (memory bound 0), for the same destination, and is
  // killed: no stop, no flush.
  auto child = test::run_forked([&](std::string&) {
    push_spool spool({0, 1 << 20, spool_dir, spool_destination(options)},
                     [](const std::string&) {});
    for (int i = 1; i <= 3; ++i) spool.add(numbered_window(i));
    std::raise(SIGKILL);
    return 1;
  });
  EXPECT_EQ(child.status, -1) << "the child was to die by SIGKILL";
  // A kill between write and rename leaves a half file, which must never be sent.
  std::string half = "cut sh";
  io::write_new_file(spool_dir + "/.window-00000000000000000004.pb.tmp",
                     std::as_bytes(std::span{half.data(), half.size()}), 0600);

  captured_reports reports;
  push_sender sender{options, reports.reporter()};
  sender.push(numbered_window(5));
  ASSERT_TRUE(server.wait_for_received(4));
  sender.stop();
  EXPECT_EQ(received_order(server), (std::vector<int>{1, 2, 3, 5}));
  EXPECT_NE(reports.matching("3 window(s) left in " + spool_dir), "");
  EXPECT_EQ(io::directory_names(spool_dir).size(), 0u);
}

TEST(PushSender, AServerThatAcceptsAndHangsIsNamedAsTheReason) {
  stand_in_server server;
  captured_reports reports;
  server.hold();
  push_options options = stand_in_options(server.url());
  options.flush_timeout = std::chrono::milliseconds(100);
  push_sender sender{options, reports.reporter()};
  sender.push(numbered_window(1));
  sender.push(numbered_window(2));
  ASSERT_TRUE(server.wait_for_requests(1));
  sender.stop();
  std::string lost = reports.matching("not sent are lost");
  EXPECT_NE(lost.find("push: 2 window(s) not sent are lost (no spool directory) (last failure: "
                      "no answer from " +
                      server.url() + " to a request that waited "),
            std::string::npos)
      << lost;
  EXPECT_NE(lost.find(" s when the flush at exit ended)"), std::string::npos) << lost;
}

TEST(PushSender, ARedirectKeepsTheWindowAndNamesItsTarget) {
  stand_in_server server;
  captured_reports reports;
  // A URL that moved: following it would send the token wherever the answer says.
  server.reply_next(stand_in_server::raw_reply(
      307, "Location: http://127.0.0.1:1/elsewhere/push.v1.PusherService/Push\r\n", ""));
  push_sender sender{stand_in_options(server.url()), reports.reporter()};
  sender.push(numbered_window(1));
  ASSERT_TRUE(server.wait_for_received(1));
  sender.stop();
  EXPECT_EQ(reports.matching("cannot deliver"),
            "push: cannot deliver to " + server.url() +
                ": HTTP 307, redirected to http://127.0.0.1:1/elsewhere/push.v1.PusherService/"
                "Push: arec does not follow redirects (the token and the profiles would go where "
                "an answer says); give --push the URL the server expects; windows wait in the "
                "spool and are retried with back-off\n");
  EXPECT_EQ(received_order(server), (std::vector<int>{1})) << "kept, not dropped";
  EXPECT_EQ(sender.counts().dropped_refused, 0u);
  EXPECT_EQ(server.requests(), 2u) << "the redirect was not followed";
}

TEST(PushSender, WindowsOfAnEarlierRunAreCountedApart) {
  test::temp_dir dir;
  std::string spool_dir = dir.file("spool");
  stand_in_server server;
  push_options options = stand_in_options(server.url());
  options.spool_dir = spool_dir;
  {
    // An earlier run to the same server that could not deliver: two windows left on disk
    // (memory bound 0).
    push_spool earlier({0, 1 << 20, spool_dir, spool_destination(options)},
                       [](const std::string&) {});
    earlier.add(numbered_window(1));
    earlier.add(numbered_window(2));
  }
  captured_reports reports;
  push_sender sender{options, reports.reporter()};
  sender.push(numbered_window(3));
  ASSERT_TRUE(server.wait_for_received(3));
  sender.stop();
  EXPECT_EQ(received_order(server), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(sender.counts().delivered, 1u) << "this run pushed one window: \"1 of 1 delivered\"";
  EXPECT_EQ(reports.matching("also delivered"),
            "push: also delivered 2 window(s) an earlier run left in " + spool_dir + "\n");
}

TEST(PushSender, ASecondCtrlCEndsTheFlushAndKeepsTheWindows) {
  stand_in_server server;
  test::temp_dir dir;
  captured_reports reports;
  server.hold();
  push_options options = stand_in_options(server.url());
  options.spool_dir = dir.file("spool");
  options.flush_timeout = std::chrono::hours(1);  // only the interrupt can end this flush
  push_sender sender{options, reports.reporter()};
  sender.push(numbered_window(1));
  sender.push(numbered_window(2));
  ASSERT_TRUE(server.wait_for_requests(1));

  // Stands in for the stop signals' eventfd and counter.
  io::unique_fd signal_fd{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  std::atomic<bool> second_stop{false};
  flush_interrupt interrupt{signal_fd.get(), [&] {
                              std::uint64_t count = 0;
                              (void)::read(signal_fd.get(), &count, sizeof count);
                              return second_stop.load();
                            }};
  auto stopped = std::async(std::launch::async, [&] { sender.stop(interrupt); });
  ASSERT_TRUE(
      reports.wait_for("push: delivering the last 2 window(s) to " + server.url() +
                       " (the flush at exit lasts at most 3600.0 s); Ctrl-C again stops this "
                       "and keeps them in " +
                       dir.file("spool") + " for the next run"));
  std::uint64_t one = 1;
  ASSERT_EQ(::write(signal_fd.get(), &one, sizeof one), 8) << "a SIGUSR2: not a stop";
  second_stop = true;
  ASSERT_EQ(::write(signal_fd.get(), &one, sizeof one), 8) << "the second Ctrl-C";
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(60)), std::future_status::ready)
      << "the flush goes on after a second Ctrl-C";
  EXPECT_EQ(reports.matching("not sent are kept"),
            "push: 2 window(s) not sent are kept in " + dir.file("spool") +
                " (last failure: the flush at exit was interrupted); a later run with this spool "
                "directory sends them first\n");
  EXPECT_EQ(io::directory_names(dir.file("spool")).size(), 2u);
  EXPECT_EQ(sender.counts().delivered, 0u);
  server.release();
}

}  // namespace
}  // namespace arec::fleet
