// The allocator the binaries link (//server:allocator) really serves the
// process: built with --define=toolgate_allocator=mimalloc (scripts/test.sh
// runs it so), malloc and operator new resolve to mimalloc and hand out its
// memory; otherwise they are glibc's.
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#ifdef TOOLGATE_MIMALLOC
#include "mimalloc.h"
#endif

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The file of the library that defines the process's `symbol`.
std::string DefiningLibrary(const char* symbol) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  return info.dli_fname;
}

#ifndef TOOLGATE_MIMALLOC
TEST(AllocatorTest, DefaultBuildKeepsGlibcMalloc) {
  // libc's, or a sanitizer's runtime (clang links it into the binary).
  const std::string library = DefiningLibrary("malloc");
  EXPECT_FALSE(library.empty());
  EXPECT_THAT(library, Not(HasSubstr("mimalloc")));
}
#else
TEST(AllocatorTest, MallocAndNewAreMimalloc) {
  EXPECT_THAT(DefiningLibrary("malloc"), HasSubstr("libmimalloc"));
  EXPECT_THAT(DefiningLibrary("free"), HasSubstr("libmimalloc"));
  EXPECT_THAT(DefiningLibrary("_Znwm"), HasSubstr("libmimalloc"));  // new
  void* block = std::malloc(64);
  auto text = std::make_unique<std::string>(200, 'x');
  int on_stack = 0;
  EXPECT_TRUE(mi_is_in_heap_region(block));
  EXPECT_TRUE(mi_is_in_heap_region(text->data()));
  EXPECT_FALSE(mi_is_in_heap_region(&on_stack));
  std::free(block);
}
#endif

}  // namespace
