// What the metrics integration tests share: a free port, an HTTP GET of
// /metrics and the exposition read back as series -> value.
#ifndef TOOLGATE_TESTS_INTEGRATION_METRICS_SCRAPE_H_
#define TOOLGATE_TESTS_INTEGRATION_METRICS_SCRAPE_H_

#include <map>
#include <string>

namespace toolgate {
namespace testutil {

// A loopback port nobody listens on right now (-1 if none was found).
int FreePort();

// GET url; "" on any failure (the test then fails on missing series).
std::string HttpGet(const std::string& url);

// Series ("name{a=\"x\",b=\"y\"}" with labels as printed) -> value.
std::map<std::string, double> ParseExposition(const std::string& text);

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_INTEGRATION_METRICS_SCRAPE_H_
