#include "stand_in/stand_in_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <stdexcept>

#include "base/system_error.hpp"
#include "export/otlp/profiles_service.pb.h"
#include "fleet/proto/push.pb.h"

namespace arec::test {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::map<std::string, std::string> parse_headers(const std::string& head) {
  std::map<std::string, std::string> headers;
  std::size_t line = head.find("\r\n");
  while (line != std::string::npos && line + 2 < head.size()) {
    std::size_t next = head.find("\r\n", line + 2);
    std::string text =
        head.substr(line + 2, next == std::string::npos ? std::string::npos : next - line - 2);
    if (std::size_t colon = text.find(':'); colon != std::string::npos) {
      std::size_t value = text.find_first_not_of(' ', colon + 1);
      headers[lower(text.substr(0, colon))] = value == std::string::npos ? "" : text.substr(value);
    }
    line = next;
  }
  return headers;
}

void send_all(int fd, const std::string& text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away: nothing to answer
    sent += static_cast<std::size_t>(n);
  }
}

std::string response(int status, const std::string& content_type, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Error") +
         "\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool gunzip(const std::string& in, std::string& out) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return false;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  stream.avail_in = static_cast<uInt>(in.size());
  out.clear();
  int status = Z_OK;
  char chunk[65536];
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof chunk;
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - stream.avail_out);
  }
  inflateEnd(&stream);
  return status == Z_STREAM_END;
}

bool base64_decode(const std::string& in, std::string& out) {
  static const std::string digits =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (in.size() % 4 != 0) return false;
  out.clear();
  std::uint32_t bits = 0;
  int held = 0;
  for (char c : in) {
    if (c == '=') break;
    std::size_t value = digits.find(c);
    if (value == std::string::npos) return false;
    bits = bits << 6 | static_cast<std::uint32_t>(value);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out += static_cast<char>((bits >> held) & 0xff);
    }
  }
  return true;
}

}  // namespace

stand_in_server::stand_in_server() {
  listen_on(0);
}

stand_in_server::~stand_in_server() {
  stop();
}

void stand_in_server::listen_on(std::uint16_t port) {
  listener_ = io::unique_fd(
      base::check_syscall(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket"));
  int yes = 1;
  base::check_syscall(::setsockopt(listener_.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes),
                      "setsockopt", "SO_REUSEADDR");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  base::check_syscall(
      ::bind(listener_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), "bind",
      "127.0.0.1");
  base::check_syscall(::listen(listener_.get(), 8), "listen");
  socklen_t length = sizeof address;
  base::check_syscall(
      ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&address), &length),
      "getsockname");
  port_ = ntohs(address.sin_port);
  wake_ = io::unique_fd(base::check_syscall(::eventfd(0, EFD_CLOEXEC), "eventfd"));
  {
    std::lock_guard lock{mutex_};
    stopping_ = false;
  }
  thread_ = std::thread([this] { serve(); });
}

std::string stand_in_server::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void stand_in_server::fail_next(int count, int status, const std::string& code,
                                const std::string& message) {
  std::lock_guard lock{mutex_};
  failures_left_ = count;
  failure_status_ = status;
  failure_body_ = "{\"code\":\"" + code + "\",\"message\":\"" + message + "\"}";
}

void stand_in_server::reply_next(std::string reply) {
  std::lock_guard lock{mutex_};
  replies_.push_back(std::move(reply));
}

std::string stand_in_server::raw_reply(int status, const std::string& headers,
                                       const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " Scripted\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

void stand_in_server::hold() {
  std::lock_guard lock{mutex_};
  holding_ = true;
}

void stand_in_server::release() {
  std::lock_guard lock{mutex_};
  holding_ = false;
  changed_.notify_all();
}

void stand_in_server::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock{mutex_};
    stopping_ = true;
    changed_.notify_all();
  }
  std::uint64_t one = 1;
  if (::write(wake_.get(), &one, sizeof one) != sizeof one) throw std::runtime_error("eventfd");
  thread_.join();
  listener_.reset();
  wake_.reset();
}

void stand_in_server::restart() {
  listen_on(port_);
}

void stand_in_server::serve() {
  for (;;) {
    pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;
    io::unique_fd connection{::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC)};
    if (connection) serve_connection(connection.get());
  }
}

void stand_in_server::serve_connection(int fd) {
  std::string buffer, head, body;
  while (read_request(fd, buffer, head, body)) {
    std::string reply = answer(head, body);
    if (reply.empty()) return;  // stopped while holding: the request gets no answer
    send_all(fd, reply);
  }
}

// One HTTP/1.1 request with a Content-Length body; false when the client closed or stop().
bool stand_in_server::read_request(int fd, std::string& buffer, std::string& head,
                                   std::string& body) {
  for (;;) {
    std::size_t end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) {
      head = buffer.substr(0, end);
      auto headers = parse_headers(head);
      std::size_t length =
          headers.count("content-length") ? std::stoul(headers["content-length"]) : 0;
      if (buffer.size() >= end + 4 + length) {
        body = buffer.substr(end + 4, length);
        buffer.erase(0, end + 4 + length);
        return true;
      }
    }
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return false;
    if (fds[1].revents != 0) return false;
    char chunk[65536];
    ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
    if (got <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(got));
  }
}

std::string stand_in_server::answer(const std::string& head, const std::string& body) {
  std::unique_lock lock{mutex_};
  ++requests_;
  changed_.notify_all();
  changed_.wait(lock, [&] { return !holding_ || stopping_; });
  if (stopping_) return {};
  if (!replies_.empty()) {
    std::string reply = std::move(replies_.front());
    replies_.pop_front();
    return reply;
  }
  if (failures_left_ > 0) {
    --failures_left_;
    return response(failure_status_, "application/json", failure_body_);
  }
  received_push push;
  push.path = head.substr(0, head.find("\r\n"));
  push.headers = parse_headers(head);
  bool taken = false;
  std::string reply;
  if (push.path.starts_with("POST /v1development/profiles ")) {
    if (push.headers["content-type"] != "application/x-protobuf")  // as Pyroscope compares it
      return response(415, "text/plain", "Unsupported Content-Type");
    std::string request = body;
    if (lower(push.headers["content-encoding"]) == "gzip" && !gunzip(body, request))
      return response(400, "text/plain", "bad gzip");
    reply = take_otlp(request, push, taken);
  } else if (push.path.starts_with("POST /api/profiles/writeraw ")) {
    reply = take_parca(body, push, taken);
  } else {
    reply = take_pyroscope(body, push, taken);
  }
  if (taken) {
    received_.push_back(std::move(push));
    changed_.notify_all();
  }
  return reply;
}

std::string stand_in_server::take_pyroscope(const std::string& body, received_push& push,
                                            bool& taken) {
  push::v1::PushRequest request;
  if (!request.ParseFromString(body)) {
    return response(400, "application/json",
                    "{\"code\":\"invalid_argument\",\"message\":\"not a PushRequest\"}");
  }
  for (const auto& series : request.series()) {
    for (const auto& pair : series.labels()) push.labels.push_back({pair.name(), pair.value()});
    for (const auto& sample : series.samples()) push.profiles.push_back(sample.raw_profile());
  }
  taken = true;
  return response(200, "application/proto", "");
}

// As Pyroscope's handler: a body that does not parse, or has no dictionary, is a 400 in text.
std::string stand_in_server::take_otlp(const std::string& body, received_push& push, bool& taken) {
  opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest request;
  if (!request.ParseFromString(body)) return response(400, "text/plain", "not a profiles request");
  if (!request.has_dictionary())
    return response(400, "text/plain", "missing profile metadata dictionary");
  push.profiles.push_back(body);
  taken = true;
  return response(200, "application/x-protobuf", "");
}

// The JSON form fleet writes: labels' name and value strings, then one rawProfile in base64.
std::string stand_in_server::take_parca(const std::string& body, received_push& push, bool& taken) {
  static const std::regex pair(R"re(\{"name":"([^"]*)","value":"([^"]*)"\})re");
  static const std::regex profile(R"re("rawProfile":"([A-Za-z0-9+/=]*)")re");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), pair); it != std::sregex_iterator();
       ++it)
    push.labels.push_back({(*it)[1], (*it)[2]});
  std::smatch found;
  std::string decoded;
  if (!std::regex_search(body, found, profile) || !base64_decode(found[1], decoded))
    return response(400, "application/json", R"({"code":3,"message":"no rawProfile"})");
  bool named = std::any_of(push.labels.begin(), push.labels.end(),
                           [](const fleet::label& l) { return l.name == "__name__"; });
  if (!named)
    return response(400, "application/json", R"({"code":3,"message":"missing __name__ label"})");
  push.profiles.push_back(std::move(decoded));
  taken = true;
  return response(200, "application/json", "{}");
}

std::vector<received_push> stand_in_server::received() const {
  std::lock_guard lock{mutex_};
  return received_;
}

std::size_t stand_in_server::requests() const {
  std::lock_guard lock{mutex_};
  return requests_;
}

bool stand_in_server::wait_for_received(std::size_t count, std::chrono::seconds limit) {
  std::unique_lock lock{mutex_};
  return changed_.wait_for(lock, limit, [&] { return received_.size() >= count; });
}

bool stand_in_server::wait_for_requests(std::size_t count, std::chrono::seconds limit) {
  std::unique_lock lock{mutex_};
  return changed_.wait_for(lock, limit, [&] { return requests_ >= count; });
}

}  // namespace arec::test
