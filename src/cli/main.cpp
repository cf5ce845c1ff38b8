#include "cli/cli.hpp"

int main(int argc, char** argv) { return memscope::run_cli(argc, argv); }
