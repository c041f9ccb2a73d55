#!/bin/bash
# Assembles the runtime file set of the toolgate image into OUT_DIR: the two
# binaries, exactly the shared libraries they load (found with ldd, plus
# those the server dlopens), the loader, and /etc/passwd + /etc/group with
# the non-root user.
#
#   scripts/build-rootfs.sh OUT_DIR [TOOLGATE_BIN TOOLGATECTL_BIN]
#
# deploy/Dockerfile runs this in its build stage and its runtime stage is
# `COPY --from=build /rootfs/ /` and nothing else, so the image holds exactly
# this set; tests/deploy:rootfs_test runs the server from OUT_DIR under
# chroot. The binaries default to bazel-bin/.
set -euo pipefail

out=${1:?usage: build-rootfs.sh OUT_DIR [TOOLGATE_BIN TOOLGATECTL_BIN]}
toolgate=${2:-bazel-bin/server/toolgate}
toolgatectl=${3:-bazel-bin/client/toolgatectl}
# The image's user: numeric, so Kubernetes' runAsNonRoot can verify it.
uid=10001

for bin in "$toolgate" "$toolgatectl"; do
  [ -x "$bin" ] || { echo "build-rootfs: $bin is not an executable" >&2; exit 1; }
done
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "build-rootfs: $out is not empty" >&2
  exit 1
fi
mkdir -p "$out/usr/local/bin" "$out/etc" "$out/tmp"
chmod 1777 "$out/tmp"
install -m 0755 "$toolgate" "$out/usr/local/bin/toolgate"
install -m 0755 "$toolgatectl" "$out/usr/local/bin/toolgatectl"

# Debian bookworm is merged-/usr: /lib and /lib64 are links into /usr, as in
# debian:bookworm-slim, so copying this tree over it keeps them links.
ln -s usr/lib "$out/lib"
ln -s usr/lib64 "$out/lib64"

# Libraries the server loads with dlopen, which ldd cannot see:
# libcurl for url argument rules (core/policy/curl_url_api.h).
dlopened=()
for name in libcurl.so.4; do
  # awk reads to the end: exiting at the match would close the pipe under
  # ldconfig, which then dies of SIGPIPE and pipefail fails the script.
  path=$(ldconfig -p | awk -v n="$name" '$1 == n && /x86-64/ && !p { p = $NF } END { print p }')
  [ -n "$path" ] || { echo "build-rootfs: $name not found (ldconfig -p)" >&2; exit 1; }
  dlopened+=("$path")
done

# Every object ldd names (and the loader), at its real path, plus the name
# the loader looks for (the soname link) when that differs.
# (With several files ldd heads each list with "FILE:", skipped here.)
libs=$( (ldd "$toolgate" "$toolgatectl" "${dlopened[@]}"; printf '%s\n' "${dlopened[@]}") |
  awk '/:$/ { next }
       /not found/ { print "MISSING " $1; next }
       $2 == "=>" && $3 ~ /^\// { print $3; next }
       $1 ~ /^\// { print $1 }' | sort -u)
if grep -q '^MISSING' <<<"$libs"; then
  echo "build-rootfs: unresolved libraries: $(grep '^MISSING' <<<"$libs")" >&2
  exit 1
fi
for lib in $libs; do
  real=$(readlink -f "$lib")
  named="$(readlink -f "$(dirname "$lib")")/$(basename "$lib")"
  mkdir -p "$out$(dirname "$real")"
  cp -p "$real" "$out$real"
  if [ "$named" != "$real" ]; then
    mkdir -p "$out$(dirname "$named")"
    ln -sf "$real" "$out$named"
  fi
done

cat > "$out/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
toolgate:x:$uid:$uid:toolgate:/nonexistent:/usr/sbin/nologin
PASSWD
cat > "$out/etc/group" <<GROUP
root:x:0:
nogroup:x:65534:
toolgate:x:$uid:
GROUP
echo "build-rootfs: $(find "$out" -type f | wc -l) files in $out" >&2
