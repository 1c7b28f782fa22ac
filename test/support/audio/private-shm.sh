# Sourced by jack-server.sh and jack-wedge.sh (not run): `private_shm NAME SIZE "$@"` re-runs the
# calling script in a private mount namespace (a user namespace mapped to root unless already
# root) and there mounts a fresh tmpfs NAME of SIZE on /dev/shm, so nothing the script does there
# touches this machine's /dev/shm. The first call re-executes; inside, it only mounts.
private_shm() {
  local name=$1 size=$2
  shift 2
  if [ "${CAPTURE_DESK_PRIVATE_SHM:-}" != "$name" ]; then
    local ns
    if [ "$(id -u)" = 0 ]; then ns=(unshare --mount --propagation private); else ns=(unshare --map-root-user --mount --propagation private); fi
    CAPTURE_DESK_PRIVATE_SHM=$name exec "${ns[@]}" bash "$0" "$@"
  fi
  mount -t tmpfs -o "size=$size,mode=1777" "$name" /dev/shm
}
