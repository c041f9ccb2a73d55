"""Tests that run twice: with the memory state store (the default), and as
NAME_redis with the shared store (--state_store=redis://..., a redis-server
each test starts: tests/testing/server_process.h, tests/mesh/mesh_harness.py).
The suite is the same; it must pass unchanged on both (issue 26)."""

def _redis(kwargs):
    env = dict(kwargs.pop("env", {}))
    env["TOOLGATE_TEST_STATE_STORE"] = "redis"
    kwargs["env"] = env
    kwargs["tags"] = kwargs.pop("tags", []) + ["redis_store"]
    return kwargs

def cc_test_both_stores(name, **kwargs):
    native.cc_test(name = name, **kwargs)
    native.cc_test(name = name + "_redis", **_redis(dict(kwargs)))

def sh_test_both_stores(name, **kwargs):
    native.sh_test(name = name, **kwargs)
    native.sh_test(name = name + "_redis", **_redis(dict(kwargs)))
