// stand_in_server: a small HTTP server on loopback that stands in for the fleet stores in tests:
// Grafana Pyroscope's push API (a Connect call: push.v1.PushRequest decoded with the generated
// code), an OTLP/HTTP profiles receiver (POST /v1development/profiles: the Content-Type Pyroscope
// insists on, gzip, a request that parses as ExportProfilesServiceRequest with a dictionary) and
// Parca's WriteRaw gateway (POST /api/profiles/writeraw, protobuf's JSON form). It records what it
// received with the request's headers, and can be told to fail the next requests (an HTTP status
// and a Connect JSON error), to hold requests unanswered until released (a slow server), or to
// stop and restart on the same port.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fleet/push_window.hpp"
#include "io/unique_fd.hpp"

namespace arec::test {

struct received_push {
  std::string path;
  std::map<std::string, std::string> headers;  // names in lower case
  std::vector<fleet::label> labels;            // of the (one) series; none for OTLP
  // raw_profile of each sample (Pyroscope, Parca: as sent, gzipped); OTLP: the request itself,
  // gunzipped
  std::vector<std::string> profiles;
};

class stand_in_server {
 public:
  stand_in_server();  // listens on 127.0.0.1, a port of the kernel's choice
  ~stand_in_server();
  stand_in_server(const stand_in_server&) = delete;
  stand_in_server& operator=(const stand_in_server&) = delete;

  std::string url() const;

  // The next `count` requests are answered `status` with {"code": code, "message": message}.
  void fail_next(int count, int status, const std::string& code, const std::string& message);
  // The next request is answered with `reply`, a whole raw HTTP response written by the test (a
  // huge body, a Retry-After or Location header); replies queue in the order given.
  void reply_next(std::string reply);
  // An HTTP/1.1 response of `status` with `headers` ("Name: value\r\n" each) and `body`.
  static std::string raw_reply(int status, const std::string& headers, const std::string& body);
  // Requests arriving from now on wait, unanswered, until release() (or stop()).
  void hold();
  void release();
  // Closes the listener and every connection (a held request gets no answer); restart() listens
  // on the same port again.
  void stop();
  void restart();

  std::vector<received_push> received() const;
  std::size_t requests() const;  // every request that arrived, answered or not

  // Bounded waits on the server's own state (not timers): true once it holds.
  bool wait_for_received(std::size_t count, std::chrono::seconds limit = std::chrono::seconds(60));
  bool wait_for_requests(std::size_t count, std::chrono::seconds limit = std::chrono::seconds(60));

 private:
  void listen_on(std::uint16_t port);
  void serve();
  void serve_connection(int fd);
  bool read_request(int fd, std::string& buffer, std::string& head, std::string& body);
  std::string answer(const std::string& head, const std::string& body);
  // What each route makes of a request it takes: the reply, and `push` filled when accepted.
  static std::string take_pyroscope(const std::string& body, received_push& push, bool& taken);
  static std::string take_otlp(const std::string& body, received_push& push, bool& taken);
  static std::string take_parca(const std::string& body, received_push& push, bool& taken);

  io::unique_fd listener_;
  io::unique_fd wake_;  // an eventfd: stop() makes every poll return
  std::uint16_t port_ = 0;
  std::thread thread_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool holding_ = false;
  int failures_left_ = 0;
  int failure_status_ = 0;
  std::string failure_body_;
  std::deque<std::string> replies_;
  std::size_t requests_ = 0;
  std::vector<received_push> received_;
};

}  // namespace arec::test
