// The engine's white-box tests: protocols behind its public API (the proxy handoff's words and
// progress thread, the NCCL watchdog's rule), checked on any machine. Black-box tests of the
// public API live under tests/.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
