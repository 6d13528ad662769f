// control_channel: perf record's --control. Commands come one per line from a fifo or an
// inherited fd: "enable" and "disable" (optionally of one EVENT), "snapshot", "evlist
// [-v|-g|-F]", "stop" and "ping"; each one perf knows is acknowledged with perf's "ack\n\0" on
// the ack fd when there is one. Parsing and the protocol are pure functions, tested alone.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "async/readiness.hpp"
#include "async/spawn.hpp"
#include "io/unique_fd.hpp"
#include "record/record_options.hpp"

namespace arec::record {

// perf's evlist__parse_control: "fd:CTL[,ACK]" (numbers as strtoul reads them with base 0) or
// "fifo:CTL[,ACK]"; nullopt for anything else. "fifo:CTL," has no ack fifo, as in perf.
std::optional<control_spec> parse_control_spec(std::string_view text);

// The bytes perf writes on the ack fd after a command: "ack\n" and its string's NUL.
inline constexpr std::string_view control_ack{"ack\n\0", 5};

// What was read from the control fd, cut into commands as perf reads them: each ends at '\n'
// or '\0' or after 63 bytes, and what follows the last end (perf reads until the fd is empty)
// is one command too. Empty commands are dropped: perf ignores them.
std::vector<std::string> split_control_commands(std::string_view bytes);

enum class control_verb { enable, disable, snapshot, evlist, stop, ping, unsupported };

struct control_command {
  control_verb verb = control_verb::unsupported;
  std::optional<std::string> argument;  // what follows "VERB "
  bool malformed = false;  // the verb runs on into something other than " ARG" ("enabled")
  friend bool operator==(const control_command&, const control_command&) = default;
};

// perf matches a command by its verb's prefix: "stopnow" is "stop", "enabled" a malformed
// "enable" (only enable, disable and evlist read an argument).
control_command parse_control_command(std::string_view text);

// What the recording does for the commands.
struct control_actions {
  std::function<void(bool on)> sample_all;                            // enable / disable
  std::function<bool(const std::string& event, bool on)> sample_one;  // false: no such event
  std::function<void(char detail)> list_events;                       // evlist: 0, 'v', 'g' or 'F'
  std::function<void()> stop;
  std::function<void()> snapshot;  // --overwrite --switch-output; may be empty: only acked
  std::function<void(const std::string& line)> say;  // one message line (not with -q)
};

// Carries out one command as perf does; returns whether perf acknowledges it (every command
// it knows, even a malformed one or one naming no event; never an unsupported one).
bool carry_out(const control_command& command, const control_actions& actions);

// What arec says of the commands perf does not know (perf 6.1 ignores them without a word,
// unless -v): one line for each distinct command, the first time it comes, and after
// `max_said` distinct ones a last line, so that a writer sending garbage cannot flood stderr.
class unknown_commands {
 public:
  static constexpr std::size_t max_said = 16;
  // The line to say for `text`, or "" when it was said already.
  std::string note(std::string_view text);

 private:
  std::vector<std::string> said_;
  bool said_enough_ = false;
};

// The open channel: its fds (a fifo's are owned, an fd:'s inherited ones are not) and the
// coroutine that serves it on the control thread's loop.
class control_channel {
 public:
  // Opens the fifos; throws base::usage_error with perf's "Failed to open 'PATH'" (and why) when
  // one cannot be opened. An fd: that is not open is warned about through `say` and ignored,
  // where perf silently ignores it.
  static control_channel open(const control_spec& spec,
                              const std::function<void(const std::string&)>& say);

  control_channel(control_channel&&) noexcept;
  ~control_channel();

  bool acknowledges() const { return ack_fd_ >= 0; }
  // Reads and carries out commands on `on` until the control fd ends or the loop stops.
  void serve(const async::executor& on, control_actions actions);

 private:
  control_channel() = default;
  async::task<void> serve_loop();
  // Reads what is there and carries it out; false once the fd ended or failed.
  bool take_commands();
  void acknowledge();

  io::unique_fd owned_control_;
  io::unique_fd owned_ack_;
  int control_fd_ = -1;
  int ack_fd_ = -1;
  std::string name_;  // for messages: "--control fifo PATH" or "--control fd N"
  control_actions actions_;
  unknown_commands unknown_;
  std::unique_ptr<async::readiness> readable_;
  bool ack_failed_ = false;
};

}  // namespace arec::record
