// otlp_environment: the OpenTelemetry exporter variables as the specification reads them: the
// endpoint's precedence and paths, headers and resource attributes in W3C Baggage's form with
// percent-encoding, a malformed list refused with the variable's name.
#include "fleet/otlp_environment.hpp"

#include <gtest/gtest.h>

#include <map>

#include "base/usage_error.hpp"
#include "fleet/push_options.hpp"

namespace arec::fleet {
namespace {

// An environment of `values` alone.
environment table(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    auto found = values.find(name);
    return found == values.end() ? nullptr : found->second.c_str();
  };
}

TEST(OtlpEnvironment, ListsArePercentDecodedAndTrimmed) {
  std::vector<label> pairs =
      parse_otel_list(" a = 1 ,team=a%2Cb%3Dc,empty=, ,k%20x=%25", "OTEL_RESOURCE_ATTRIBUTES");
  std::vector<label> expected{{"a", "1"}, {"team", "a,b=c"}, {"empty", ""}, {"k x", "%"}};
  EXPECT_EQ(pairs, expected);
  EXPECT_TRUE(parse_otel_list("", "X").empty());
}

TEST(OtlpEnvironment, AMalformedListIsRefusedWhole) {
  for (std::string_view bad : {"a=1,b", "=1", "a=%zz", "a=%4"}) {
    try {
      parse_otel_list(bad, "OTEL_RESOURCE_ATTRIBUTES");
      ADD_FAILURE() << bad;
    } catch (const base::usage_error& error) {
      EXPECT_EQ(std::string(error.what()).rfind("OTEL_RESOURCE_ATTRIBUTES: ", 0), 0u)
          << error.what();
    }
  }
}

TEST(OtlpEnvironment, TheEndpointComesFromPushThenTheSignalsVariableThenTheBaseOne) {
  auto env = table({{"OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT", "http://signal:4318/custom/path"},
                    {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318/"}});
  otlp_endpoint from_push = otlp_profiles_endpoint("http://cli:4318", env);
  EXPECT_EQ(from_push.url, "http://cli:4318/v1development/profiles");
  EXPECT_EQ(from_push.source, "--push");
  EXPECT_EQ(otlp_profiles_endpoint("http://cli:4318/v1development/profiles", env).url,
            "http://cli:4318/v1development/profiles")
      << "a --push URL that names the endpoint is taken as it is";
  otlp_endpoint from_signal = otlp_profiles_endpoint("", env);
  EXPECT_EQ(from_signal.url, "http://signal:4318/custom/path") << "as it is";
  EXPECT_EQ(from_signal.source, "OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT");
  EXPECT_EQ(otlp_profiles_endpoint(
                "", table({{"OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT", "http://signal:4318"}}))
                .url,
            "http://signal:4318/")
      << "a URL without a path gets the root path";
  otlp_endpoint from_base = otlp_profiles_endpoint(
      "", table({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318/collector/"}}));
  EXPECT_EQ(from_base.url, "http://base:4318/collector/v1development/profiles");
  EXPECT_EQ(from_base.source, "OTEL_EXPORTER_OTLP_ENDPOINT");
  otlp_endpoint by_default =
      otlp_profiles_endpoint("", table({{"OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT", ""}}));
  EXPECT_EQ(by_default.url, "http://localhost:4318/v1development/profiles")
      << "empty is unset; the specification's default";
  EXPECT_EQ(by_default.source, "the default");
}

TEST(OtlpEnvironment, HeadersAreNameValueLinesAndRefuseInjection) {
  auto env = table({{"OTEL_EXPORTER_OTLP_HEADERS", "api-key=s3cr%3Dt, X-Scope-OrgID=tenant1"}});
  std::vector<std::string> expected{"api-key: s3cr=t", "X-Scope-OrgID: tenant1"};
  EXPECT_EQ(otlp_headers(env), expected);
  EXPECT_THROW(otlp_headers(table({{"OTEL_EXPORTER_OTLP_HEADERS", "a=b%0D%0AX-Evil: 1"}})),
               base::usage_error);
  EXPECT_THROW(otlp_headers(table({{"OTEL_EXPORTER_OTLP_HEADERS", "bad name=1"}})),
               base::usage_error);
}

TEST(OtlpEnvironment, ServiceNameFromTheServiceVariableOverTheResourceOnesUnderTheLabels) {
  std::string host = host_name();
  std::vector<label> plain = otlp_resource_attributes({}, table({}));
  std::vector<label> defaults{{"service.name", host}, {"host.name", host}};
  EXPECT_EQ(plain, defaults);

  auto env = table({{"OTEL_RESOURCE_ATTRIBUTES", "service.name=from-resource,team=core"},
                    {"OTEL_SERVICE_NAME", "checkout"}});
  std::vector<label> from_env{{"service.name", "checkout"}, {"host.name", host}, {"team", "core"}};
  EXPECT_EQ(otlp_resource_attributes({}, env), from_env);

  std::vector<label> labels{{"service_name", "cli"}, {"env", "prod"}};
  std::vector<label> from_cli{
      {"service.name", "cli"}, {"host.name", host}, {"team", "core"}, {"env", "prod"}};
  EXPECT_EQ(otlp_resource_attributes(labels, env), from_cli);
}

TEST(OtlpEnvironment, SettlingAnOtlpPushTakesTheEnvironmentsEndpointHeadersAndResource) {
  push_options options;
  apply_push_option(options, "--push-format", "otlp");
  apply_push_option(options, "--push-label", "env=prod");
  settle_push_destination(options,
                          table({{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://user:pw@collector:4318"},
                                 {"OTEL_EXPORTER_OTLP_HEADERS", "x-team=profiling"}}));
  EXPECT_EQ(options.url, "https://collector:4318/v1development/profiles");
  EXPECT_EQ(push_endpoint(options), options.url);
  EXPECT_EQ(options.basic_user, "user") << "credentials leave the URL shown in messages";
  EXPECT_EQ(options.extra_headers, std::vector<std::string>{"x-team: profiling"});
  EXPECT_EQ(options.resource_attributes.back(), (label{"env", "prod"}));
  EXPECT_EQ(options.limits.max_profile_size_bytes, 64u * 1024 * 1024);
}

TEST(OtlpEnvironment, AnEndpointThatIsNoUrlIsNamedByWhereItCameFrom) {
  push_options options;
  apply_push_option(options, "--push-format", "otlp");
  try {
    settle_push_destination(options, table({{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"}}));
    ADD_FAILURE() << "no scheme";
  } catch (const base::usage_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "OTEL_EXPORTER_OTLP_ENDPOINT: expected an http:// or https:// URL, got "
              "'collector:4318/v1development/profiles'");
  }
}

// The variable is what the user set, and what the message names: not --push, which was not given.
TEST(OtlpEnvironment, AnEndpointWithControlCharactersOrNoReachableHostNamesItsVariable) {
  auto error_of = [](const char* variable, const char* value) {
    push_options options;
    apply_push_option(options, "--push-format", "otlp");
    try {
      settle_push_destination(options, table({{variable, value}}));
    } catch (const base::usage_error& error) {
      return std::string(error.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error_of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318\r\nX-Injected: yes"),
            "OTEL_EXPORTER_OTLP_ENDPOINT: the URL must not hold control characters (CR, LF, NUL, "
            "...): it is sent in an HTTP header");
  EXPECT_EQ(error_of("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT", "http://[zz]/v1development/profiles")
                .rfind("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT: expected a URL whose host and port "
                       "can be reached ('zz' is not an IPv6 address)",
                       0),
            0u);
  EXPECT_NE(error_of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:99999")
                .find("OTEL_EXPORTER_OTLP_ENDPOINT: "),
            std::string::npos);
}

TEST(OtlpEnvironment, PyroscopeAndParcaNeedAPushUrlAndParcaItsLabelNames) {
  push_options pyroscope;
  apply_push_option(pyroscope, "--push-interval", "5s");
  EXPECT_THROW(settle_push_destination(pyroscope, table({})), base::usage_error);

  push_options parca;
  apply_push_option(parca, "--push", "http://parca:7070");
  apply_push_option(parca, "--push-format", "parca");
  settle_push_destination(parca, table({}));
  EXPECT_EQ(push_endpoint(parca), "http://parca:7070/api/profiles/writeraw");
  apply_push_option(parca, "--push-label", "k8s.namespace=prod");
  try {
    settle_push_destination(parca, table({}));
    ADD_FAILURE() << "a dotted name is refused for Parca";
  } catch (const base::usage_error& error) {
    EXPECT_NE(std::string(error.what()).find("--push-label"), std::string::npos) << error.what();
  }
  EXPECT_THROW(apply_push_option(parca, "--push-format", "jaeger"), base::usage_error);
}

}  // namespace
}  // namespace arec::fleet
