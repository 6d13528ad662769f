// pseudo_terminal: a pty whose slave side stands for a user's terminal (60 columns), so a test
// can check what a program draws there by reading the master side.
#pragma once

#include <string>

#include "io/unique_fd.hpp"

namespace arec::test {

struct pseudo_terminal {
  pseudo_terminal();  // on failure `error` says why and both ends are closed
  std::string error;
  io::unique_fd master;
  io::unique_fd slave;
};

// Everything the master side holds within 100 ms of quiet.
std::string drain(int master);

}  // namespace arec::test
