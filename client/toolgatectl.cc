// toolgatectl: command-line client for the toolgate sidecar. See cli.h.
#include <iostream>
#include <string>
#include <vector>

#include "client/cli.h"

int main(int argc, char** argv) {
  // JSON Lines in and out (schema check): no stdio sync, and no flush of
  // stdout before each line read.
  std::ios::sync_with_stdio(false);
  std::cin.tie(nullptr);
  std::vector<std::string> args(argv + 1, argv + argc);
  return toolgate::client::RunCli(args, std::cin, std::cout, std::cerr,
                                  toolgate::client::DefaultChannelFactory());
}
