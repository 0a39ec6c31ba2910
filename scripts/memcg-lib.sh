# Sourced by scripts/memlimit.sh and scripts/hosts.sh: where this process's memory cgroup is, so
# that a child cgroup can be made under it (never at the root of the hierarchy), v1 or v2.
#
#   memcg_self   sets MEMCG_VERSION (1 or 2) and MEMCG_SELF (the directory of this process's
#                memory cgroup); returns 1 with the reason in MEMCG_WHY when there is none to use
#                (no memory controller mounted; v2 without the memory controller delegated).
# v2: the parent must offer the memory controller to its children (and, having processes itself,
# cannot: the no-internal-process rule; a caller in a leaf cgroup gets the reason).
memcg_self() {
  local path mnt mroot rel
  MEMCG_VERSION="" MEMCG_SELF="" MEMCG_WHY=""
  path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3; exit}' /proc/self/cgroup)
  if [ -n "$path" ]; then
    mnt=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") break;
                 if ($(i+1) == "cgroup" && $(i+3) ~ /(^|,)memory(,|$)/) { print $5; exit } }' /proc/self/mountinfo)
    mroot=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") break;
                   if ($(i+1) == "cgroup" && $(i+3) ~ /(^|,)memory(,|$)/) { print $4; exit } }' /proc/self/mountinfo)
    if [ -n "$mnt" ]; then
      rel=$path
      [ "$mroot" != "/" ] && rel=${path#"$mroot"}
      MEMCG_VERSION=1 MEMCG_SELF="$mnt${rel%/}"
      return 0
    fi
  fi
  path=$(awk -F: '$1 == "0" && $2 == "" {print $3; exit}' /proc/self/cgroup)
  mnt=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") break; if ($(i+1) == "cgroup2") { print $5; exit } }' /proc/self/mountinfo)
  mroot=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") break; if ($(i+1) == "cgroup2") { print $4; exit } }' /proc/self/mountinfo)
  if [ -z "$path" ] || [ -z "$mnt" ]; then
    MEMCG_WHY="no memory cgroup controller is mounted"
    return 1
  fi
  rel=$path
  [ "$mroot" != "/" ] && rel=${path#"$mroot"}
  MEMCG_SELF="$mnt${rel%/}"
  if ! grep -qw memory "$MEMCG_SELF/cgroup.controllers" 2>/dev/null; then
    MEMCG_WHY="cgroup v2 at $MEMCG_SELF has no memory controller (cgroup.controllers: $(cat "$MEMCG_SELF/cgroup.controllers" 2>/dev/null))"
    return 1
  fi
  if ! grep -qw memory "$MEMCG_SELF/cgroup.subtree_control" 2>/dev/null; then
    echo +memory >"$MEMCG_SELF/cgroup.subtree_control" 2>/dev/null || {
      MEMCG_WHY="cgroup v2 at $MEMCG_SELF: cannot enable memory for child cgroups (a cgroup with processes cannot delegate it)"
      return 1
    }
  fi
  MEMCG_VERSION=2
}

# Write a byte limit to the cgroup directory $1 (v1 memory.limit_in_bytes, v2 memory.max, no
# swap). Returns 1 when the kernel refuses it.
memcg_limit() {
  if [ "$MEMCG_VERSION" = 1 ]; then
    echo "$2" >"$1/memory.limit_in_bytes" 2>/dev/null
  else
    echo "$2" >"$1/memory.max" 2>/dev/null || return 1
    echo 0 >"$1/memory.swap.max" 2>/dev/null
    return 0
  fi
}

# SIZE (bytes, optional k, m or g suffix: powers of 1024) in bytes on stdout; 1 when malformed.
memcg_bytes() {
  case "$1" in
    *[kK]) echo $(( ${1%?} * 1024 )) ;;
    *[mM]) echo $(( ${1%?} * 1024 * 1024 )) ;;
    *[gG]) echo $(( ${1%?} * 1024 * 1024 * 1024 )) ;;
    *[!0-9]*|"") return 1 ;;
    *) echo "$1" ;;
  esac
}
