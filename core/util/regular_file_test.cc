#include "core/util/regular_file.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class RegularFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/regular_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    std::string rm = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(rm.c_str()), 0);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Write(const std::string& name, const std::string& content) {
    std::ofstream(Path(name), std::ios::binary) << content;
    return Path(name);
  }
  std::string Link(const std::string& name, const std::string& target) {
    EXPECT_EQ(symlink(target.c_str(), Path(name).c_str()), 0);
    return Path(name);
  }

  std::string dir_;
};

TEST_F(RegularFileTest, ReadsARegularFileVerbatim) {
  const std::string content("a\0b\nc", 5);
  auto read = ReadRegularFile(Write("x.json", content), 100);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, content);
  read = ReadRegularFile(Write("empty.json", ""), 100);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "");
}

// Kubernetes mounts Secrets as symlinks (to ..data/name): followed.
TEST_F(RegularFileTest, FollowsSymlinksToRegularFiles) {
  Write("real", "token");
  Link("hop", Path("real"));
  auto read = ReadRegularFile(Link("x.json", Path("hop")), 100);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "token");
  EXPECT_TRUE(CheckRegularFile(Path("x.json")).ok());
}

TEST_F(RegularFileTest, TheLimitIsInclusive) {
  EXPECT_TRUE(ReadRegularFile(Write("at", std::string(1000, 'x')), 1000).ok());
  auto over = ReadRegularFile(Write("over", std::string(1001, 'x')), 1000);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(over.status().message(),
            Path("over") + ": is larger than 1000 bytes");
}

// A sparse file that claims a terabyte is refused from its size, unread.
TEST_F(RegularFileTest, HugeFileIsRefused) {
  const std::string path = Write("huge.json", "");
  ASSERT_EQ(truncate(path.c_str(), off_t{1} << 40), 0);
  auto read = ReadRegularFile(path, 1 << 20);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(CheckRegularFile(path).ok());  // Its kind is fine.
}

// A file whose size says 0 but holds more (/proc) is read to its end, and
// the limit holds there too.
TEST_F(RegularFileTest, SizeZeroFilesAreReadToTheirEnd) {
  auto read = ReadRegularFile("/proc/self/status", 1 << 20);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_THAT(*read, HasSubstr("Name:"));
  EXPECT_EQ(ReadRegularFile("/proc/self/status", 10).status().code(),
            absl::StatusCode::kOutOfRange);
}

// A writer keeps appending while the file is read: each read ends at the
// limit + 1 byte at most, whatever the file grows to, and once the file is
// past the limit it is refused.
TEST_F(RegularFileTest, GrowingFileIsBounded) {
  const std::string path = Write("growing.json", "");
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    const std::string chunk(4096, 'x');
    while (!stop.load()) out << chunk << std::flush;
  });
  for (;;) {
    auto read = ReadRegularFile(path, 1 << 20);
    if (!read.ok()) {
      EXPECT_EQ(read.status().code(), absl::StatusCode::kOutOfRange);
      break;
    }
    EXPECT_LE(read->size(), size_t{1} << 20);
  }
  stop = true;
  writer.join();
}

TEST_F(RegularFileTest, MissingFileIsNotFound) {
  auto read = ReadRegularFile(Path("missing.json"), 100);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(read.status().message()),
              StartsWith(Path("missing.json") + ": cannot read: "));
  EXPECT_EQ(ReadRegularFile(Link("dangling.json", Path("nowhere")), 100)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(CheckRegularFile(Path("missing.json")).code(),
            absl::StatusCode::kNotFound);
}

TEST_F(RegularFileTest, UnreadableFileIsPermissionDenied) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads every file";
  const std::string path = Write("secret", "x");
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  EXPECT_EQ(ReadRegularFile(path, 100).status().code(),
            absl::StatusCode::kPermissionDenied);
}

// Every other kind of file is refused by name and kind, without blocking
// (a FIFO without a writer) and without reading (devices that never end).
TEST_F(RegularFileTest, EverythingButRegularFilesIsRefusedByKind) {
  ASSERT_EQ(mkfifo(Path("fifo.json").c_str(), 0600), 0);
  ASSERT_EQ(mkdir(Path("dir.json").c_str(), 0700), 0);
  const int sock = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = Path("sock.json");
  ASSERT_LT(sock_path.size(), sizeof(addr.sun_path));
  sock_path.copy(addr.sun_path, sock_path.size());
  ASSERT_EQ(bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  struct Case {
    std::string path, kind;
  } cases[] = {
      {Path("fifo.json"), "a FIFO"},
      {Link("fifo_link.json", Path("fifo.json")), "a FIFO"},
      {Path("dir.json"), "a directory"},
      {sock_path, "a socket"},
      {"/dev/urandom", "a character device"},
      {Link("urandom.json", "/dev/urandom"), "a character device"},
      {"/dev/zero", "a character device"},
      {"/dev/null", "a character device"},
  };
  for (const Case& c : cases) {
    auto read = ReadRegularFile(c.path, 1 << 20);
    EXPECT_EQ(read.status().code(), absl::StatusCode::kFailedPrecondition)
        << c.path;
    EXPECT_EQ(read.status().message(),
              c.path + ": is " + c.kind + ", not a regular file");
    EXPECT_EQ(CheckRegularFile(c.path).code(),
              absl::StatusCode::kFailedPrecondition)
        << c.path;
  }
  close(sock);
}

// A FIFO that a writer holds open and keeps feeding is refused too.
TEST_F(RegularFileTest, FedFifoIsRefused) {
  const std::string path = Path("fed.json");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  // O_RDWR on a FIFO does not wait (Linux): a writer end that is open.
  const int keep = open(path.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(keep, 0);
  ASSERT_EQ(write(keep, "{}", 2), 2);
  EXPECT_EQ(ReadRegularFile(path, 100).status().code(),
            absl::StatusCode::kFailedPrecondition);
  close(keep);
}

}  // namespace
}  // namespace toolgate
