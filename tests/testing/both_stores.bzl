"""Tests that run twice: with the memory state store (the default), and as
NAME_redis with the shared store (--state_store=redis://..., a redis-server
each test starts: tests/testing/server_process.h, tests/mesh/mesh_harness.py).
The suite is the same; it must pass unchanged on both (issue 26)."""

# Attributes of the compiled cases; the rest belong to each test.
_LIBRARY_ATTRS = ["srcs", "deps", "copts", "defines", "includes"]

def _redis(kwargs):
    env = dict(kwargs.pop("env", {}))
    env["TOOLGATE_TEST_STATE_STORE"] = "redis"
    kwargs["env"] = env
    kwargs["tags"] = kwargs.pop("tags", []) + ["redis_store"]
    return kwargs

def cc_test_both_stores(name, **kwargs):
    # The sources are compiled once, into a library both tests link
    # (alwayslink: gtest's registrations must not be dropped).
    library = {k: kwargs.pop(k) for k in _LIBRARY_ATTRS if k in kwargs}
    native.cc_library(
        name = name + "_cases",
        testonly = True,
        alwayslink = True,
        visibility = ["//visibility:private"],
        **library
    )
    kwargs["deps"] = [":" + name + "_cases"]
    native.cc_test(name = name, **kwargs)
    native.cc_test(name = name + "_redis", **_redis(dict(kwargs)))

def sh_test_both_stores(name, **kwargs):
    native.sh_test(name = name, **kwargs)
    native.sh_test(name = name + "_redis", **_redis(dict(kwargs)))
