// toolgatectl: command-line client for the toolgate sidecar. See cli.h.
#include <iostream>
#include <string>
#include <vector>

#include "client/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return toolgate::client::RunCli(args, std::cin, std::cout, std::cerr,
                                  toolgate::client::DefaultChannelFactory());
}
