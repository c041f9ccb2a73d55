"""toolgate_fuzzer: one fuzz target, built two ways.

  <name>              libFuzzer binary. Only under --config=fuzz (clang-14,
                      -fsanitize=fuzzer,address,undefined); tagged manual so
                      the gcc build of //... skips it.
  <name>_replay_test  cc_test (any compiler) that replays corpus/<name>/
                      (and findings/<name>/, if any) through the same
                      LLVMFuzzerTestOneInput, so every target's invariants
                      run over its seeds in the normal suite.
"""

def toolgate_fuzzer(name, srcs, deps, size = "small"):
    corpus = "corpus/" + name
    findings = "findings/" + name

    # Recorded findings replay too: with their invariant relaxed until the
    # bug is fixed, and as regression inputs after.
    finding_files = native.glob([findings + "/**"], exclude = ["**/*.md"])
    native.cc_binary(
        name = name,
        srcs = srcs,
        linkopts = select({
            "//bazel:fuzz": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + select({
            "//bazel:fuzz": [],
            "//conditions:default": [":replay_main"],
        }),
        testonly = True,
        tags = ["manual", "fuzzer"],
    )
    native.cc_test(
        name = name + "_replay_test",
        size = size,
        srcs = srcs,
        # The test runs in the runfiles tree of this workspace.
        args = [native.package_name() + "/" + corpus] +
               ([native.package_name() + "/" + findings] if finding_files else []),
        data = [":" + name + "_corpus"] + finding_files,
        deps = deps + [":replay_main"],
    )
    native.filegroup(
        name = name + "_corpus",
        srcs = native.glob([corpus + "/**"]),
    )
