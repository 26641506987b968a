#!/usr/bin/env bash
# The benchmark cluster: a real multi-process HDFS on shaped links on one
# machine. Every DataNode runs in its own network namespace behind a veth pair whose two ends
# are shaped with tbf (namespace end = the node's uplink, bridge end = its downlink); optional
# racks sit behind a router namespace with slower links. Everything made is recorded in the
# state directory's undo list, so `down` removes exactly that, and `up` removes it itself when
# it fails or is interrupted.
#
#   cluster.sh up --state DIR [options]    build the network, write confs, start NN + DNs, wait live
#                                          (--dist DIR: the build whose Hadoop and plugin they run, one per
#                                          Hadoop line; default hadoop-ec-repair next to dev-support;
#                                          --priority-links: every shaped link sends packets marked
#                                          Lower Effort, DSCP 1, after all others)
#   cluster.sh down --state DIR            stop every JVM by pid, remove links/bridges/namespaces/data
#   cluster.sh dn-stop --state DIR I       kill DataNode I (SIGKILL: a crashed node)
#   cluster.sh dn-start --state DIR I [--wipe]   start DataNode I again (--wipe: empty data dir first)
#   cluster.sh dn-restart-all --state DIR [--dn-conf KEY=VALUE]...   new DN settings, all DNs restarted
#   cluster.sh wait-live --state DIR [N]   wait until the NameNode sees N (default all) live DataNodes
#   cluster.sh counters --state DIR        "name rx_bytes tx_bytes" of every node's interface (and
#                                          "rackR" lines: the router's leg into rack R); with
#                                          --priority-links a fourth field, the bytes it sent Lower Effort
#   cluster.sh exec --state DIR NODE CMD...   run CMD in NODE's namespace (nn, client, dn0, ...)
#   cluster.sh reach --state DIR FROM TO on|off   make TO unreachable from FROM (degraded reads)
#   cluster.sh isolate --state DIR I on|off   cut DataNode I off from every other node (its JVM keeps
#                                          running: the NameNode declares it dead) or let it rejoin
#                                          and wait until all DataNodes are live
#   cluster.sh settle --state DIR          flush the nodes' written data to disk (a measured phase
#                                          must not share the disk with the writeback of a write)
#   cluster.sh java --state DIR NODE MAIN ARGS...  run a Java main in NODE's namespace (foreground)
#   cluster.sh dn-pause --state DIR I on|off   stop (SIGSTOP) DataNode I's JVM, or let it go on (SIGCONT)
#   cluster.sh agent-stall --state DIR I on|off   hold every packet to or from DataNode I's repair
#              agent port (its requests hang), or let them through
#   cluster.sh disk-fill --state DIR I BYTES|off   take BYTES of DataNode I's own disk (up --disk
#              MIB puts each DataNode's data on a file system of its own), or give them back
#   cluster.sh dn-link --state DIR I MBIT|off  shape DataNode I's uplink and downlink to MBIT (tbf drops
#                                          what waits longer than its latency), or back to its own rate
#   cluster.sh nn-restart --state DIR      kill the NameNode (SIGKILL) and start it again on its metadata
#   cluster.sh upgrade --state DIR --dist DIR2   stop every JVM, start DIR2's (another Hadoop line) on
#                                          the same metadata and data, the NameNode with -upgrade
#   (dn-start and isolate off take --no-wait-all: wait only for that DataNode, not for all to be live)
set -euo pipefail
AGENT_PORT=9876  # the DataNodes' data transfer port 9866 + ecrepair.datanode.agent.port-offset (10)

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# The distribution whose Hadoop and plugin the JVMs run (up --dist; one per Hadoop line).
use_dist() {
  DIST=$1
  # NameNode and DataNodes get what a real cluster's get (conf/hadoop-env.ec-repair.sh): the plugin
  # jar and Hadoop. The client's Java mains (the degraded-read probe) also need the tools jar.
  DAEMON_CP="$DIST/lib/hadoop-ec-repair.jar:$DIST/lib/hadoop-webapps:$DIST/lib/hadoop/*"
  CLIENT_CP="$DIST/lib/hadoop-ec-repair.jar:$DIST/lib/hadoop-ec-repair-tools.jar:$DIST/lib/*:$DIST/lib/hadoop-webapps:$DIST/lib/hadoop/*"
}
use_dist "${EC_REPAIR_DIST:-$ROOT/hadoop-ec-repair}"

die() { echo "cluster.sh: $*" >&2; exit 2; }
say() { echo "cluster: $*" >&2; }

# ---- state directory ---------------------------------------------------------------------------
STATE=
load_state() {
  [[ -n $STATE ]] || die "--state DIR is required"
  [[ -f $STATE/env ]] || die "$STATE is not a cluster state directory"
  # shellcheck disable=SC1091
  source "$STATE/env"
  use_dist "$DIST"
}
undo() { echo "$*" >> "$STATE/undo"; }            # teardown step, run in reverse order by down
node_field() { awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$STATE/nodes"; }

# ---- teardown ----------------------------------------------------------------------------------
stop_pid() {  # stop one JVM we started, by its pid file
  local f=$1 pid
  [[ -f $f ]] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

cmd_down() {
  [[ -n $STATE && -d $STATE ]] || die "--state DIR is required"
  local f
  for f in "$STATE"/pids/*.pid; do [[ -e $f ]] && kill -TERM "$(cat "$f")" 2>/dev/null || true; done
  for f in "$STATE"/pids/*.pid; do [[ -e $f ]] && stop_pid "$f"; done
  if [[ -f $STATE/undo ]]; then
    tac "$STATE/undo" | while read -r step; do eval "$step" 2>/dev/null || true; done
    rm -f "$STATE/undo"
  fi
  rm -rf "$STATE/data"
  say "torn down $STATE (logs kept in $STATE/logs)"
}

# ---- configuration files ----------------------------------------------------------------------
prop() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }

write_conf() {  # write_conf NODE IP
  local node=$1 ip=$2 dir=$STATE/conf/$1
  mkdir -p "$dir" "$STATE/data/$node"
  [[ -e $STATE/conf/exclude ]] || : > "$STATE/conf/exclude"
  {
    echo '<?xml version="1.0"?><configuration>'
    prop fs.defaultFS "hdfs://$NN_IP:8020"
    prop hadoop.tmp.dir "$STATE/data/$node/tmp"
    prop io.erasurecode.codec.rs.rawcoders "rs_isal,rs_native,rs_java"
    if [[ $RACKS -gt 0 ]]; then
      prop net.topology.node.switch.mapping.impl org.apache.hadoop.net.TableMapping
      prop net.topology.table.file.name "$STATE/conf/racks.table"
    fi
    echo '</configuration>'
  } > "$dir/core-site.xml"
  {
    echo '<?xml version="1.0"?><configuration>'
    prop dfs.namenode.rpc-address "$NN_IP:8020"
    prop dfs.namenode.rpc-bind-host 0.0.0.0
    prop dfs.namenode.http-address "$NN_IP:9870"
    prop dfs.namenode.name.dir "$STATE/data/nn/name"
    prop dfs.namenode.datanode.registration.ip-hostname-check false
    prop dfs.namenode.safemode.extension 0
    prop dfs.namenode.min-block-size 0
    prop dfs.permissions.enabled false
    # Block access tokens, as a secured cluster runs: every read and every agent request carries one.
    prop dfs.block.access.token.enable true
    prop dfs.replication 1
    prop dfs.blocksize "$BLOCK_SIZE"
    # Fast failure handling: a killed DataNode is dead after 2*recheck + 10*heartbeat = 11 s,
    # and the redundancy monitor schedules every lost block at its next 1 s round.
    prop dfs.heartbeat.interval 1
    prop dfs.namenode.heartbeat.recheck-interval 500
    prop dfs.namenode.redundancy.interval.seconds 1
    prop dfs.namenode.replication.work.multiplier.per.iteration 32
    prop dfs.namenode.replication.max-streams 64
    prop dfs.namenode.replication.max-streams-hard-limit 128
    # pending.timeout-sec stays at its 300 s default (bench thrash sets 60): a slow-link task must not be scheduled twice
    prop dfs.namenode.redundancy.considerLoad false
    # Decommissioning (bench cluster --decommission): the exclude file -refreshNodes re-reads,
    # and the admin monitor checks progress every second (30 s by default).
    prop dfs.hosts.exclude "$STATE/conf/exclude"
    prop dfs.namenode.decommission.interval 1
    prop dfs.block.placement.ec.classname io.ecrepair.hdfs.namenode.CombinedLocalityPlacementPolicy
    prop dfs.namenode.plugins io.ecrepair.hdfs.namenode.EcRepairNameNodePlugin
    # the benchmark's LRC scenarios with +hdfs-placement write here, to compare HDFS's placement
    prop ecrepair.namenode.combined-locality.skip-paths /bench-hdfs-placement/
    prop dfs.blockreport.initialDelay 0
    prop dfs.datanode.hostname "$ip"
    prop dfs.datanode.address "$ip:9866"
    prop dfs.datanode.http.address "$ip:9864"
    prop dfs.datanode.ipc.address "$ip:9867"
    prop dfs.datanode.data.dir "$STATE/data/$node/data"
    prop dfs.datanode.plugins io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin
    prop dfs.datanode.ec.reconstruction.validation false
    # Repair agents on 9866 + 10: RS (through the plugin) and LRC blocks rebuilt along helper chains.
    prop ecrepair.datanode.agent.port-offset 10
    # The benchmark enables each scenario's policy about 40 s before its first recovery: the
    # DataNodes look for enabled policies (to ready their repairs) every 7 s, not every 60 s.
    # Under the IPC client's 10 s idle timeout, so their NameNode connection stays open rather
    # than closing or not by a few milliseconds each time (the thrash run counts descriptors).
    prop ecrepair.datanode.prepare.interval.seconds 7
    local kv
    for kv in "${DN_CONF[@]}"; do prop "${kv%%=*}" "${kv#*=}"; done
    echo '</configuration>'
  } > "$dir/hdfs-site.xml"
  # JVM logs go to a file, never to stdout.
  cat > "$dir/log4j.properties" <<LOG
log4j.rootLogger=INFO, F
log4j.appender.F=org.apache.log4j.FileAppender
log4j.appender.F.File=$STATE/logs/$node.log
log4j.appender.F.layout=org.apache.log4j.PatternLayout
log4j.appender.F.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
log4j.logger.org.apache.hadoop.hdfs.DFSUtil=ERROR
log4j.logger.org.apache.hadoop.hdfs.StateChange=WARN
log4j.logger.BlockStateChange=WARN
log4j.logger.org.apache.hadoop.hdfs.server.datanode.DataNode.clienttrace=WARN
LOG
}

# ---- JVMs --------------------------------------------------------------------------------------
start_jvm() {  # start_jvm NODE MAINCLASS [ARGS...]: in NODE's namespace, pid recorded
  local node=$1 main=$2; shift 2
  local ns; ns=$(node_field "$node" 2)
  local cp="$STATE/conf/$node:$DAEMON_CP"
  # EC_REPAIR_CLUSTER_JVM_OPTS: extra JVM flags for every node (e.g. for profiling).
  # shellcheck disable=SC2086
  setsid ip netns exec "$ns" java -Xmx${JVM_HEAP} -XX:+UseSerialGC ${EC_REPAIR_CLUSTER_JVM_OPTS:-} \
    -Djava.library.path="$DIST/lib/native" -Dlog4j.configuration="file:$STATE/conf/$node/log4j.properties" \
    -Dhadoop.log.dir="$STATE/logs" -Djava.net.preferIPv4Stack=true \
    -cp "$cp" "$main" "$@" >> "$STATE/logs/$node.out" 2>&1 < /dev/null &
  echo $! > "$STATE/pids/$node.pid"
}

nn_jmx() {  # nn_jmx ATTRIBUTE: one number from the NameNode's FSNamesystemState bean
  curl -s --max-time 2 "http://$NN_IP:9870/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState" \
    | sed -n "s/.*\"$1\" *: *\([0-9]*\).*/\1/p" | head -1
}

cmd_wait_live() {
  local want=${1:-$DATANODES} waited=0 live
  while :; do
    live=$(nn_jmx NumLiveDataNodes || true)
    [[ ${live:-0} -ge $want ]] && break
    [[ $waited -ge 1200 ]] && die "only ${live:-0} of $want DataNodes live after 120 s (logs: $STATE/logs)"
    for f in "$STATE"/pids/*.pid; do
      kill -0 "$(cat "$f")" 2>/dev/null || die "$(basename "$f" .pid) exited (log: $STATE/logs/$(basename "$f" .pid).log)"
    done
    sleep 0.1; waited=$((waited + 1))
  done
  say "$want DataNodes live"
}

start_dn() {  # a fresh log per process, so "registered" below means this process
  [[ -f $STATE/logs/dn$1.log ]] && mv "$STATE/logs/dn$1.log" "$STATE/logs/dn$1.log.$(date +%s%N)"
  start_jvm "dn$1" org.apache.hadoop.hdfs.server.datanode.DataNode
}

wait_registered() {  # wait_registered I...: those DataNodes' current processes registered with the NameNode
  local i waited=0
  for i in "$@"; do
    until grep -qs "successfully registered with NN" "$STATE/logs/dn$i.log"; do
      kill -0 "$(cat "$STATE/pids/dn$i.pid")" 2>/dev/null || die "dn$i exited (log: $STATE/logs/dn$i.log)"
      [[ $waited -ge 1200 ]] && die "dn$i did not register in 120 s (log: $STATE/logs/dn$i.log)"
      sleep 0.1; waited=$((waited + 1))
    done
  done
}

# ---- network -----------------------------------------------------------------------------------
shape() {  # shape NS|- IFACE MBIT: tbf on one end of a link ('-' = root namespace)
  local ns=$1 ifc=$2 rate=$3 pre=()
  [[ $ns != - ]] && pre=(ip netns exec "$ns")
  if [[ ${PRIORITY_LINKS:-0} != 1 || $rate -lt 2 ]]; then  # under 2 Mbit/s no room for two classes
    "${pre[@]}" tc qdisc replace dev "$ifc" root tbf rate "${rate}mbit" burst 256kb latency 100ms
    return
  fi
  # As a network with QoS: packets marked Lower Effort (DSCP 1, TOS byte 0x04) get 1% of the link,
  # at least 1 Mbit/s (so they are never starved), and borrow the rest only when no other packet waits. Bursts as
  # tbf's (256 KiB at wire speed), but Lower Effort's own share bursts only 16 KiB ahead of the
  # rest. Each class holds what tbf alone would (100 ms at the rate, plus the burst). This
  # kernel has htb, not prio.
  local floor=$(( rate >= 200 ? rate / 100 : 1 )) bytes=$(( rate * 125000 / 10 + 262144 ))
  "${pre[@]}" tc qdisc del dev "$ifc" root 2>/dev/null || true
  "${pre[@]}" tc qdisc add dev "$ifc" root handle 1: htb default 10
  "${pre[@]}" tc class add dev "$ifc" parent 1: classid 1:1 htb rate "${rate}mbit" burst 256kb cburst 256kb quantum 60000
  "${pre[@]}" tc class add dev "$ifc" parent 1:1 classid 1:10 htb rate "$((rate - floor))mbit" ceil "${rate}mbit" \
    burst 256kb cburst 256kb prio 0 quantum 60000
  "${pre[@]}" tc class add dev "$ifc" parent 1:1 classid 1:20 htb rate "${floor}mbit" ceil "${rate}mbit" \
    burst 16kb cburst 256kb prio 1 quantum 60000
  "${pre[@]}" tc qdisc add dev "$ifc" parent 1:10 handle 11: bfifo limit "$bytes"
  "${pre[@]}" tc qdisc add dev "$ifc" parent 1:20 handle 12: bfifo limit "$bytes"
  "${pre[@]}" tc filter add dev "$ifc" parent 1: protocol ip prio 1 u32 match ip dsfield 0x04 0xfc flowid 1:20
}

hold_port() {  # hold_port NS|- IFACE MBIT|0 PORT: htb at MBIT, TCP from or to PORT held at 8 bit/s
  local ns=$1 ifc=$2 rate=$3 port=$4 pre=()
  [[ $ns != - ]] && pre=(ip netns exec "$ns")
  [[ $rate == 0 ]] && rate=100000
  # del + add, not replace: on priority links the root is already an htb 1:, which htb cannot change.
  "${pre[@]}" tc qdisc del dev "$ifc" root 2>/dev/null || true
  "${pre[@]}" tc qdisc add dev "$ifc" root handle 1: htb default 1
  "${pre[@]}" tc class add dev "$ifc" parent 1: classid 1:1 htb rate "${rate}mbit" burst 256kb 2>/dev/null
  "${pre[@]}" tc class add dev "$ifc" parent 1: classid 1:9 htb rate 8bit ceil 8bit 2>/dev/null
  local dir
  for dir in sport dport; do
    "${pre[@]}" tc filter add dev "$ifc" parent 1: protocol ip prio 1 u32 \
      match ip protocol 6 0xff match ip "$dir" "$port" 0xffff flowid 1:9
  done
}

unshape_or_shape() {  # unshape_or_shape NS|- IFACE MBIT|0: back to tbf at MBIT, or no qdisc at 0
  local ns=$1 ifc=$2 rate=$3 pre=()
  [[ $ns != - ]] && pre=(ip netns exec "$ns")
  if [[ $rate == 0 ]]; then "${pre[@]}" tc qdisc del dev "$ifc" root 2>/dev/null || true
  else shape "$ns" "$ifc" "$rate"; fi
}

add_disk() {  # add_disk NODE: NODE's data directory on a file system of its own, DISK_MIB big
  local img=$STATE/disks/$1.img dir=$STATE/data/$1
  mkdir -p "$STATE/disks" "$dir"
  truncate -s "${DISK_MIB}M" "$img"; undo "rm -f $img"
  mkfs.ext4 -q -F -m 0 "$img" || die "mkfs.ext4 failed for $1's disk"
  mount -o loop "$img" "$dir" || die "cannot mount $1's disk (loop devices?)"
  undo "umount -l $dir"
}

add_ns() {  # add_ns NS
  ip netns add "$1"; undo "ip netns del $1"
  ip netns exec "$1" ip link set lo up
}

add_bridge() {  # add_bridge NAME
  ip link add "$1" type bridge; undo "ip link del $1"
  ip link set "$1" mtu 9000 up
}

plug() {  # plug NS BRIDGE IP/PREFIX GATEWAY|- MBIT|0 HOSTVETH: veth from NS (as eth0) to BRIDGE
  local ns=$1 br=$2 addr=$3 gw=$4 rate=$5 veth=$6
  ip link add "$veth" mtu 9000 type veth peer name "${veth}p" mtu 9000; undo "ip link del $veth"
  ip link set "${veth}p" netns "$ns"
  ip -n "$ns" link set "${veth}p" name eth0
  ip -n "$ns" addr add "$addr" dev eth0
  ip -n "$ns" link set eth0 up
  ip link set "$veth" master "$br" up
  [[ $gw != - ]] && ip -n "$ns" route add default via "$gw"
  if [[ $rate != 0 ]]; then shape "$ns" eth0 "$rate"; shape - "$veth" "$rate"; fi
}

free_subnet() {  # second octet of a 10.X.0.0/16 that no route of this machine uses
  local x
  for x in $(seq 213 250); do
    ip route show | grep -q "^10\.$x\." || { echo "$x"; return; }
  done
  die "no free 10.x.0.0/16 for the cluster"
}

cmd_up() {
  DATANODES=17 RACKS=0 RATE=100 RACK_RATE=50 CLIENT_RATE= BLOCK_SIZE=$((16 << 20)) JVM_HEAP=512m
  SLOW= SLOW_RATE=25 DISK_MIB=0 PRIORITY_LINKS=0
  DN_CONF=()
  while [[ $# -gt 0 ]]; do
    case $1 in
      --datanodes) DATANODES=$2; shift 2 ;;
      --racks) RACKS=$2; shift 2 ;;
      --rate) RATE=$2; shift 2 ;;
      --rack-rate) RACK_RATE=$2; shift 2 ;;
      --client-rate) CLIENT_RATE=$2; shift 2 ;;
      --slow) SLOW=$2; shift 2 ;;
      --slow-rate) SLOW_RATE=$2; shift 2 ;;
      --block-size) BLOCK_SIZE=$2; shift 2 ;;
      --heap) JVM_HEAP=$2; shift 2 ;;
      --disk) DISK_MIB=$2; shift 2 ;;
      --priority-links) PRIORITY_LINKS=1; shift ;;
      --dist) use_dist "$(realpath -m "$2")"; shift 2 ;;
      --dn-conf) DN_CONF+=("$2"); shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  CLIENT_RATE=${CLIENT_RATE:-$RATE}
  [[ $(id -u) == 0 ]] || die "needs root (network namespaces, tc)"
  [[ -f $DIST/lib/hadoop-ec-repair.jar && -f $DIST/lib/hadoop-ec-repair-tools.jar && -d $DIST/lib/hadoop ]] || die "no build in $DIST (run mvn -DskipTests package)"
  [[ $DATANODES -ge 1 && $DATANODES -le 200 ]] || die "--datanodes must be 1..200"
  [[ -e $STATE/env ]] && die "$STATE already holds a cluster"
  mkdir -p "$STATE/pids" "$STATE/logs" "$STATE/conf" "$STATE/data"
  : > "$STATE/undo"
  # Whatever stops `up` half way (an error, die, Ctrl-C) removes what it made so far.
  UP_DONE=0
  trap '[[ $UP_DONE == 1 ]] || { say "start failed or interrupted: tearing down"; cmd_down; }' EXIT
  trap 'exit 130' INT TERM

  local id x
  id=$(printf '%04x' $(( ($$ + RANDOM) % 65536 )))
  x=$(free_subnet)
  local pre="ecb$id"
  NN_IP=10.$x.0.2
  {
    echo "ID=$id"; echo "SUBNET=10.$x"; echo "NN_IP=$NN_IP"; echo "DATANODES=$DATANODES"; echo "RACKS=$RACKS"
    echo "RATE=$RATE"; echo "RACK_RATE=$RACK_RATE"; echo "CLIENT_RATE=$CLIENT_RATE"; echo "BLOCK_SIZE=$BLOCK_SIZE"
    echo "SLOW=$SLOW"; echo "SLOW_RATE=$SLOW_RATE"; echo "DISK_MIB=$DISK_MIB"; echo "PRIORITY_LINKS=$PRIORITY_LINKS"
    echo "JVM_HEAP=$JVM_HEAP"; printf 'DIST=%q\n' "$DIST"; printf 'DN_CONF=(%s)\n' "$(printf '%q ' "${DN_CONF[@]}")"
  } > "$STATE/env"
  : > "$STATE/nodes"

  # Core bridge: the root namespace (the bench), the NameNode, the client, and without racks
  # every DataNode. With racks, rack r is bridge r behind the router namespace.
  add_bridge "e${id}b0"
  ip addr add "10.$x.0.1/24" dev "e${id}b0"
  add_ns "$pre-nn";     plug "$pre-nn" "e${id}b0" "$NN_IP/24" - 0 "e${id}nn"
  echo "nn $pre-nn $NN_IP - nn" >> "$STATE/nodes"
  add_ns "$pre-client"; plug "$pre-client" "e${id}b0" "10.$x.0.3/24" - "$CLIENT_RATE" "e${id}cl"
  echo "client $pre-client 10.$x.0.3 - client" >> "$STATE/nodes"
  if [[ $RACKS -gt 0 ]]; then
    add_ns "$pre-router"
    plug "$pre-router" "e${id}b0" "10.$x.0.254/24" - 0 "e${id}r0"
    ip netns exec "$pre-router" sysctl -qw net.ipv4.ip_forward=1
    ip -n "$pre-router" link set eth0 name core
    ip route add "10.$x.0.0/16" via "10.$x.0.254"; undo "ip route del 10.$x.0.0/16"
    ip -n "$pre-nn" route add "10.$x.0.0/16" via "10.$x.0.254"
    ip -n "$pre-client" route add "10.$x.0.0/16" via "10.$x.0.254"
    local r
    for r in $(seq 1 "$RACKS"); do
      add_bridge "e${id}b$r"
      # the router's leg into rack r: its two ends are the rack's gateway uplink and downlink
      plug "$pre-router" "e${id}b$r" "10.$x.$r.254/24" - "$RACK_RATE" "e${id}g$r"
      ip -n "$pre-router" link set eth0 down
      ip -n "$pre-router" link set eth0 name "rack$r"
      ip -n "$pre-router" link set "rack$r" up
    done
    : > "$STATE/conf/racks.table"
  fi
  local i rack ip gw rate
  for i in $(seq 0 $((DATANODES - 1))); do
    if [[ $RACKS -gt 0 ]]; then rack=$(( i % RACKS + 1 )); ip=10.$x.$rack.$((10 + i)); gw=10.$x.$rack.254
    else rack=0; ip=10.$x.0.$((10 + i)); gw=-; fi
    rate=$RATE
    [[ ",$SLOW," == *",$i,"* ]] && rate=$SLOW_RATE
    add_ns "$pre-dn$i"; plug "$pre-dn$i" "e${id}b$rack" "$ip/24" "$gw" "$rate" "e${id}d$i"
    echo "dn$i $pre-dn$i $ip $rack dn" >> "$STATE/nodes"
    [[ $RACKS -gt 0 ]] && echo "$ip /rack$rack" >> "$STATE/conf/racks.table"
  done

  if [[ $DISK_MIB -gt 0 ]]; then
    for i in $(seq 0 $((DATANODES - 1))); do add_disk "dn$i"; done
    say "disks: each DataNode's data on an ext4 file system of its own, $DISK_MIB MiB (a sparse file on a loop device)"
  fi
  for n in nn client $(seq -f 'dn%g' 0 $((DATANODES - 1))); do write_conf "$n" "$(node_field "$n" 3)"; done
  [[ -n $SLOW ]] && say "slow DataNodes: dn${SLOW//,/, dn} at ${SLOW_RATE} Mbit/s up and down"
  say "network: $DATANODES DataNodes at ${RATE} Mbit/s up and down ($([[ $PRIORITY_LINKS == 1 ]] && echo "htb, Lower Effort packets last" || echo tbf)), client ${CLIENT_RATE} Mbit/s, racks $RACKS$([[ $RACKS -gt 0 ]] && echo " behind a ${RACK_RATE} Mbit/s gateway"), subnet 10.$x.0.0/16"
  local pending=300 kv
  for kv in "${DN_CONF[@]}"; do [[ ${kv%%=*} == dfs.namenode.reconstruction.pending.timeout-sec ]] && pending=${kv#*=}; done
  say "NameNode timing: heartbeat 1 s, recheck 500 ms (dead after 11 s), redundancy monitor every 1 s, max-streams 64, work multiplier 32, pending timeout $pending s"
  ip netns exec "$pre-nn" java -Xmx${JVM_HEAP} -cp "$STATE/conf/nn:$DAEMON_CP" \
    -Dlog4j.configuration="file:$STATE/conf/nn/log4j.properties" -Djava.net.preferIPv4Stack=true \
    org.apache.hadoop.hdfs.server.namenode.NameNode -format -force -nonInteractive >> "$STATE/logs/nn-format.out" 2>&1 \
    || die "NameNode format failed (log: $STATE/logs/nn.log)"
  start_jvm nn org.apache.hadoop.hdfs.server.namenode.NameNode
  for i in $(seq 0 $((DATANODES - 1))); do start_dn "$i"; done
  say "started NameNode at $NN_IP:8020 and $DATANODES DataNodes; waiting until all are live"
  cmd_wait_live "$DATANODES"
  UP_DONE=1
  echo "$NN_IP"
}

cmd_dn_stop() { stop_kill "dn$1"; }
stop_kill() {
  local f=$STATE/pids/$1.pid
  [[ -f $f ]] || die "$1 is not running"
  kill -KILL "$(cat "$f")" 2>/dev/null || true
  while kill -0 "$(cat "$f")" 2>/dev/null; do sleep 0.05; done
  rm -f "$f"
}

cmd_dn_start() {
  local i=$1 wipe= all=1; shift
  while [[ $# -gt 0 ]]; do
    case $1 in --wipe) wipe=1 ;; --no-wait-all) all=0 ;; *) die "dn-start: unknown option $1" ;; esac
    shift
  done
  [[ -f $STATE/pids/dn$i.pid ]] && die "dn$i is running"
  [[ -n $wipe ]] && rm -rf "$STATE/data/dn$i/data"
  start_dn "$i"
  wait_registered "$i"
  if [[ $all == 1 ]]; then cmd_wait_live "$DATANODES"; fi
}

# dn-pause I on|off: the JVM stops dead (no heartbeats, open connections hang) and goes on later.
cmd_dn_pause() {
  local f=$STATE/pids/dn$1.pid
  [[ -f $f ]] || die "dn$1 is not running"
  case $2 in
    on) kill -STOP "$(cat "$f")" ;;
    off) kill -CONT "$(cat "$f")" ;;
    *) die "dn-pause: on or off" ;;
  esac
}

# dn-link I MBIT|off: both ends of DataNode I's veth reshaped; off = its rate from `up`.
cmd_dn_link() {
  local ns rate=$2; ns=$(node_field "dn$1" 2)
  [[ -n $ns ]] || die "unknown DataNode $1"
  if [[ $rate == off ]]; then
    rate=$RATE
    [[ ",$SLOW," == *",$1,"* ]] && rate=$SLOW_RATE
  fi
  shape "$ns" eth0 "$rate"; shape - "e${ID}d$1" "$rate"
}

# agent-stall I on|off: packets to or from DataNode I's repair agent port wait in a queue that
# drains 8 bits a second (the agent's connections hang, nothing is refused), while everything
# else keeps its rate; off = its links as `up` shaped them.
cmd_agent_stall() {
  local ns rate; ns=$(node_field "dn$1" 2)
  [[ -n $ns ]] || die "unknown DataNode $1"
  rate=$RATE
  [[ ",$SLOW," == *",$1,"* ]] && rate=$SLOW_RATE
  case $2 in
    on) hold_port "$ns" eth0 "$rate" "$AGENT_PORT"; hold_port - "e${ID}d$1" "$rate" "$AGENT_PORT" ;;
    off) unshape_or_shape "$ns" eth0 "$rate"; unshape_or_shape - "e${ID}d$1" "$rate" ;;
    *) die "agent-stall: on or off" ;;
  esac
}

# disk-fill I BYTES|off: a file of BYTES takes room on DataNode I's own disk (up --disk), or all
# but 1 MiB of what is free when that is less (the DataNode writes meanwhile); off removes it.
cmd_disk_fill() {
  [[ ${DISK_MIB:-0} -gt 0 ]] || die "disk-fill: the cluster was started without --disk"
  local dir=$STATE/data/dn$1 bytes=$2 free try
  [[ -d $dir ]] || die "unknown DataNode $1"
  case $bytes in
    off) rm -f "$dir/filler"; return ;;
    ''|*[!0-9]*) die "disk-fill: BYTES or off" ;;
  esac
  for try in 1 2 3 4 5; do
    free=$(( $(df -B1 --output=avail "$dir" | tail -1) - (1 << 20) ))
    [[ $free -lt $bytes ]] && bytes=$free
    [[ $bytes -le 0 ]] && return
    # a fallocate that runs out of room keeps what it got: never leave that behind
    fallocate -l "$bytes" "$dir/filler" 2>/dev/null && return
    rm -f "$dir/filler"
    bytes=$((bytes - (4 << 20)))
  done
  die "disk-fill: dn$1's disk kept changing under fallocate"
}

# nn-restart: a crashed NameNode started again; waits until it has left safe mode with every
# running DataNode live again.
cmd_nn_restart() {
  local start=$SECONDS want
  stop_kill nn
  start_jvm nn org.apache.hadoop.hdfs.server.namenode.NameNode
  want=$(ls "$STATE"/pids/dn*.pid 2>/dev/null | wc -l)
  until [[ $(nn_jmx NumLiveDataNodes || true) -ge $want ]] \
      && curl -s --max-time 2 "http://$NN_IP:9870/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo" | grep -q '"Safemode" *: *""'; do
    kill -0 "$(cat "$STATE/pids/nn.pid")" 2>/dev/null || die "the NameNode exited (log: $STATE/logs/nn.log)"
    [[ $((SECONDS - start)) -ge 180 ]] && die "the NameNode did not come back in 180 s (log: $STATE/logs/nn.log)"
    sleep 0.1
  done
  say "NameNode restarted"
}

# upgrade --dist DIR: the operator's rolling-less upgrade of Hadoop: every JVM stopped (SIGTERM),
# then the build in DIR started on the same metadata and data, the NameNode with -upgrade (the
# DataNodes keep their old block files as "previous" until the upgrade is finalized).
cmd_upgrade() {
  [[ ${1:-} == --dist && -n ${2:-} ]] || die "upgrade: --dist DIR is required"
  local dist i start=$SECONDS
  dist=$(realpath -m "$2")
  [[ -f $dist/lib/hadoop-ec-repair.jar && -d $dist/lib/hadoop ]] || die "no build in $dist (run mvn -DskipTests package)"
  for i in $(seq 0 $((DATANODES - 1))); do stop_pid "$STATE/pids/dn$i.pid"; done
  stop_pid "$STATE/pids/nn.pid"
  use_dist "$dist"
  sed -i '/^DIST=/d' "$STATE/env"; printf 'DIST=%q\n' "$DIST" >> "$STATE/env"
  say "starting the NameNode of $DIST with -upgrade"
  # As a careful operator restarts: safe mode lasts until every DataNode registered and 10 s more
  # for their block reports, so the NameNode does not schedule rebuilds of blocks whose DataNodes
  # have not reported yet (this cluster's own extension is 0 s).
  start_jvm nn org.apache.hadoop.hdfs.server.namenode.NameNode \
    -Ddfs.namenode.safemode.min.datanodes="$DATANODES" -Ddfs.namenode.safemode.extension=10000 -upgrade
  for i in $(seq 0 $((DATANODES - 1))); do start_dn "$i"; done
  wait_registered $(seq 0 $((DATANODES - 1)))
  cmd_wait_live "$DATANODES"
  until curl -s --max-time 2 "http://$NN_IP:9870/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo" \
      | grep -q '"Safemode" *: *""'; do
    kill -0 "$(cat "$STATE/pids/nn.pid")" 2>/dev/null || die "the NameNode exited (log: $STATE/logs/nn.log)"
    [[ $((SECONDS - start)) -ge 300 ]] && die "the NameNode stayed in safe mode for 300 s (log: $STATE/logs/nn.log)"
    sleep 0.2
  done
  say "upgraded to $DIST in $((SECONDS - start)) s"
}

cmd_dn_restart_all() {
  DN_CONF=()
  while [[ $# -gt 0 ]]; do
    case $1 in --dn-conf) DN_CONF+=("$2"); shift 2 ;; *) die "unknown option $1" ;; esac
  done
  sed -i '/^DN_CONF=/d' "$STATE/env"; printf 'DN_CONF=(%s)\n' "$(printf '%q ' "${DN_CONF[@]}")" >> "$STATE/env"
  local i
  for i in $(seq 0 $((DATANODES - 1))); do
    stop_pid "$STATE/pids/dn$i.pid"
    write_conf "dn$i" "$(node_field "dn$i" 3)"
  done
  for i in $(seq 0 $((DATANODES - 1))); do start_dn "$i"; done
  wait_registered $(seq 0 $((DATANODES - 1)))
  cmd_wait_live "$DATANODES"
}

cmd_counters() {
  local name ns r le
  while read -r name ns _; do
    # With --priority-links, a fourth field: what the node sent marked Lower Effort (its uplink's class 1:20).
    le=
    [[ ${PRIORITY_LINKS:-0} == 1 ]] && le=$(ip netns exec "$ns" tc -s class show dev eth0 classid 1:20 2>/dev/null \
      | awk '/Sent/ {print " " $2; exit}')
    printf '%s %s %s%s\n' "$name" "$(ip netns exec "$ns" cat /sys/class/net/eth0/statistics/rx_bytes)" \
      "$(ip netns exec "$ns" cat /sys/class/net/eth0/statistics/tx_bytes)" "$le"
  done < "$STATE/nodes"
  # The router's leg into each rack: rx = what left the rack (its uplink), tx = what entered it;
  # every byte that crosses racks leaves one rack through its uplink once.
  for r in $(seq 1 "${RACKS:-0}"); do
    printf 'rack%s %s %s\n' "$r" "$(ip netns exec "ecb$ID-router" cat "/sys/class/net/rack$r/statistics/rx_bytes")" \
      "$(ip netns exec "ecb$ID-router" cat "/sys/class/net/rack$r/statistics/tx_bytes")"
  done
}

cmd_reach() {  # reach FROM TO on|off
  local from_ns to_ip; from_ns=$(node_field "$1" 2); to_ip=$(node_field "$2" 3)
  [[ -n $from_ns && -n $to_ip ]] || die "unknown node $1 or $2"
  case $3 in
    off) ip -n "$from_ns" route replace unreachable "$to_ip/32" ;;
    on) ip -n "$from_ns" route del unreachable "$to_ip/32" 2>/dev/null || true ;;
    *) die "reach: on or off" ;;
  esac
}

# isolate I on|off: every other node becomes unreachable from dnI's namespace, so nothing it
# sends (heartbeats, TCP replies) gets out; "off" lifts that, and the NameNode, which by then
# has declared the node dead, makes it register again and send a full block report.
cmd_isolate() {
  local ns name ip
  ns=$(node_field "dn$1" 2)
  [[ -n $ns ]] || die "unknown DataNode $1"
  case $2 in
    on|off) ;;
    *) die "isolate: on or off" ;;
  esac
  while read -r name _ ip _; do
    [[ $name == "dn$1" ]] && continue
    if [[ $2 == on ]]; then
      ip -n "$ns" route replace unreachable "$ip/32"
    else
      ip -n "$ns" route del unreachable "$ip/32" 2>/dev/null || true
    fi
  done < "$STATE/nodes"
  if [[ $2 == off && ${3:-} != --no-wait-all ]]; then cmd_wait_live "$DATANODES"; fi
}

[[ $# -ge 1 ]] || die "usage: cluster.sh up|down|dn-stop|dn-start|dn-restart-all|dn-pause|dn-link|agent-stall|disk-fill|nn-restart|upgrade|wait-live|counters|exec|reach|isolate|settle|java --state DIR ..."
cmd=$1; shift
[[ ${1:-} == --state ]] || die "$cmd: --state DIR must come first"
STATE=$(realpath -m "$2"); shift 2
case $cmd in
  up) cmd_up "$@" ;;
  down) cmd_down ;;
  dn-stop) load_state; cmd_dn_stop "$1" ;;
  dn-start) load_state; cmd_dn_start "$@" ;;
  dn-restart-all) load_state; cmd_dn_restart_all "$@" ;;
  wait-live) load_state; cmd_wait_live "$@" ;;
  counters) load_state; cmd_counters ;;
  exec) load_state; node=$1; shift; exec ip netns exec "$(node_field "$node" 2)" "$@" ;;
  reach) load_state; cmd_reach "$@" ;;
  isolate) load_state; cmd_isolate "$@" ;;
  settle) load_state; sync -f "$STATE/data" ;;
  dn-pause) load_state; cmd_dn_pause "$@" ;;
  dn-link) load_state; cmd_dn_link "$@" ;;
  agent-stall) load_state; cmd_agent_stall "$@" ;;
  disk-fill) load_state; cmd_disk_fill "$@" ;;
  nn-restart) load_state; cmd_nn_restart ;;
  upgrade) load_state; cmd_upgrade "$@" ;;
  java) load_state; node=$1; main=$2; shift 2
    exec ip netns exec "$(node_field "$node" 2)" java -Xmx${JVM_HEAP} -XX:+UseSerialGC \
      -Djava.library.path="$DIST/lib/native" -Dlog4j.configuration="file:$STATE/conf/$node/log4j.properties" \
      -Djava.net.preferIPv4Stack=true -cp "$STATE/conf/$node:$CLIENT_CP" \
      "$main" "$@" ;;
  *) die "unknown command $cmd" ;;
esac
