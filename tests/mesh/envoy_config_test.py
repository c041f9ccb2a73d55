"""deploy/envoy/envoy.yaml is a valid Envoy bootstrap, read with Envoy's own
protos (YAML -> JSON -> protobuf JSON parsing: every typed_config Any
resolved, unknown fields fail), and its toolgate parts are as documented;
deploy/istio is yamllint-clean and names the same settings.
"""
import json
import os
import subprocess
import sys
import unittest

import yaml
from google.protobuf import json_format

import envoy_protos

envoy_protos.load()
from envoy.config.bootstrap.v3 import bootstrap_pb2  # noqa: E402
from envoy.extensions.filters.http.ext_authz.v3 import ext_authz_pb2  # noqa: E402,E501
from envoy.extensions.filters.http.ext_proc.v3 import ext_proc_pb2  # noqa: E402,E501
from envoy.extensions.filters.http.ext_proc.v3 import processing_mode_pb2 as pm  # noqa: E402,E501
from envoy.extensions.filters.network.http_connection_manager.v3 import http_connection_manager_pb2 as hcm_pb2  # noqa: E402,E501

ROOT = os.path.join(os.environ.get("TEST_SRCDIR", ""),
                    os.environ.get("TEST_WORKSPACE", "toolgate"))
ENVOY_YAML = os.path.join(ROOT, "deploy/envoy/envoy.yaml")
ISTIO = [os.path.join(ROOT, "deploy/istio", f)
         for f in ("authorization-policy.yaml", "mesh-config.yaml")]


def load_bootstrap(text):
    return json_format.Parse(json.dumps(yaml.safe_load(text)),
                             bootstrap_pb2.Bootstrap())


def unpack(any_message, message_type):
    out = message_type()
    assert any_message.Unpack(out), any_message.type_url
    return out


class EnvoyConfig(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(ENVOY_YAML) as f:
            cls.text = f.read()
        cls.bootstrap = load_bootstrap(cls.text)
        network = cls.bootstrap.static_resources.listeners[0].filter_chains[
            0].filters[0]
        cls.hcm = unpack(network.typed_config, hcm_pb2.HttpConnectionManager)

    def filters(self):
        return [f.name for f in self.hcm.http_filters]

    def test_filter_order_ext_authz_ext_proc_router(self):
        self.assertEqual(self.filters(), [
            "envoy.filters.http.ext_authz", "envoy.filters.http.ext_proc",
            "envoy.filters.http.router"])

    def test_ext_authz_fails_closed_with_the_body(self):
        authz = unpack(self.hcm.http_filters[0].typed_config,
                       ext_authz_pb2.ExtAuthz)
        self.assertEqual(authz.grpc_service.envoy_grpc.cluster_name, "toolgate")
        self.assertFalse(authz.failure_mode_allow)
        self.assertEqual(authz.transport_api_version, 2)  # V3
        self.assertTrue(authz.HasField("with_request_body"))
        self.assertTrue(authz.with_request_body.pack_as_bytes)
        self.assertTrue(authz.with_request_body.allow_partial_message)
        self.assertEqual(authz.with_request_body.max_request_bytes, 200000)

    def test_ext_proc_buffers_and_fails_closed(self):
        proc = unpack(self.hcm.http_filters[1].typed_config,
                      ext_proc_pb2.ExternalProcessor)
        self.assertEqual(proc.grpc_service.envoy_grpc.cluster_name, "toolgate")
        self.assertFalse(proc.failure_mode_allow)
        mode = proc.processing_mode
        self.assertEqual(mode.request_header_mode, pm.ProcessingMode.SEND)
        self.assertEqual(mode.response_header_mode, pm.ProcessingMode.SEND)
        self.assertEqual(mode.request_body_mode, pm.ProcessingMode.BUFFERED)
        self.assertEqual(mode.response_body_mode, pm.ProcessingMode.BUFFERED)

    def test_routes_name_their_snapshot(self):
        routes = self.hcm.route_config.virtual_hosts[0].routes
        settings = {}
        for route in routes:
            per_route = unpack(
                route.typed_per_filter_config["envoy.filters.http.ext_authz"],
                ext_authz_pb2.ExtAuthzPerRoute)
            settings[route.match.prefix] = dict(
                per_route.check_settings.context_extensions)
        self.assertEqual(settings["/mcp"], {"toolgate_snapshot": "customers"})
        self.assertEqual(settings["/tools/"], {
            "toolgate_snapshot": "billing",
            "toolgate_tool_path": "/tools/{name}"})

    def test_toolgate_cluster_speaks_http2(self):
        clusters = {c.name: c for c in self.bootstrap.static_resources.clusters}
        self.assertIn("toolgate", clusters)
        self.assertTrue(clusters["toolgate"].HasField("http2_protocol_options"))
        for route in self.hcm.route_config.virtual_hosts[0].routes:
            self.assertIn(route.route.cluster, clusters)

    def test_the_parser_refuses_what_envoy_would(self):
        # The oracle is strict: an unknown field or an unresolvable Any fails.
        for bad in (self.text.replace("failure_mode_allow: false",
                                      "failure_mode_alow: false", 1),
                    self.text.replace("ext_authz.v3.ExtAuthz\n",
                                      "ext_authz.v3.NoSuchThing\n", 1)):
            with self.assertRaises(json_format.ParseError):
                load_bootstrap(bad)


class Istio(unittest.TestCase):

    def test_yamllint_strict(self):
        try:
            r = subprocess.run(["yamllint", "-s"] + ISTIO,
                               capture_output=True, text=True)
        except FileNotFoundError:
            self.fail("yamllint is not installed (scripts/install-deps.sh)")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_custom_policy_names_the_provider(self):
        with open(ISTIO[0]) as f:
            policy = yaml.safe_load(f)
        with open(ISTIO[1]) as f:
            mesh = yaml.safe_load(yaml.safe_load(f)["data"]["mesh"])
        self.assertEqual(policy["spec"]["action"], "CUSTOM")
        provider = mesh["extensionProviders"][0]
        self.assertEqual(policy["spec"]["provider"]["name"], provider["name"])
        grpc = provider["envoyExtAuthzGrpc"]
        self.assertFalse(grpc["failOpen"])
        self.assertTrue(grpc["includeRequestBodyInCheck"]["packAsBytes"])


if __name__ == "__main__":
    outcome = unittest.main(verbosity=2, exit=False).result
    if os.environ.get("XML_OUTPUT_FILE"):
        failed = len(outcome.failures) + len(outcome.errors)
        with open(os.environ["XML_OUTPUT_FILE"], "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'
                    f'<testsuite name="envoy_config" tests="{outcome.testsRun}"'
                    f' failures="{failed}" errors="0"></testsuite>'
                    '</testsuites>\n')
    sys.exit(0 if outcome.wasSuccessful() else 1)
