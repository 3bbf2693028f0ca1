#!/usr/bin/env bash
# A 3-node MariaDB Galera cluster on 127.0.0.1 for bizlock's cluster tests (BIZLOCK_TEST_DB=galera).
#
# usage: cluster.sh start          start the nodes that are not running (creating the data on first use); prints
#                                  "reused" when all three already answered; waits until every node is Synced
#        cluster.sh stop           stop the nodes this script started (SIGTERM to the pid in each node's pid file)
#        cluster.sh status         pid and wsrep state of each node
#        cluster.sh clean          stop, then delete the data
#        cluster.sh kill-node N    kill -9 node N (by its pid); cluster.sh start-node N restarts it (IST rejoin)
#        cluster.sh sql N "stmt"   run SQL on node N
#        cluster.sh urls           the nodes' host:port, comma-separated
#
# Settings (environment): BIZLOCK_GALERA_DIR (data, default /dev/shm/bizlock-galera, else $TMPDIR), BIZLOCK_GALERA_PORT
# (SQL port of node 1, default 4311; nodes 2 and 3 use the next two), BIZLOCK_GALERA_GCOMM (base of the cluster
# ports, default 4700: node i uses base+10i for gcomm, +1 for IST, +2 for SST).
#
# Every node starts with --defaults-file=<its own my.cnf> (the first option, so no /etc/mysql file is read) and runs as
# the current user: the system MariaDB on 3306 and its files are never touched. Needs the Debian packages
# mariadb-server, galera-4, mariadb-backup and socat (mariabackup SST for a node whose data is too far behind; rsync SST
# cannot write a root-owned data directory).
#
# The first start creates one data directory and copies it to the other nodes after a clean shutdown of node 1, so all
# three share the cluster's state and join without a state transfer (about 15 s instead of 40 s with two SSTs).
set -uo pipefail

if [ -z "${BIZLOCK_GALERA_DIR:-}" ]; then
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then BIZLOCK_GALERA_DIR=/dev/shm/bizlock-galera; else BIZLOCK_GALERA_DIR="${TMPDIR:-/tmp}/bizlock-galera"; fi
fi
BASE=$BIZLOCK_GALERA_DIR
SQL_PORT=${BIZLOCK_GALERA_PORT:-4311}
GCOMM_BASE=${BIZLOCK_GALERA_GCOMM:-4700}
WAIT_S=${BIZLOCK_GALERA_WAIT:-180}
PROVIDER=${BIZLOCK_GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}

ndir() { echo "$BASE/n$1"; }
sqlp() { echo $((SQL_PORT + $1 - 1)); }
gport() { echo $((GCOMM_BASE + 10 * $1)); }
iport() { echo $((GCOMM_BASE + 10 * $1 + 1)); }
sport() { echo $((GCOMM_BASE + 10 * $1 + 2)); }
cluster_address() { echo "gcomm://127.0.0.1:$(gport 1),127.0.0.1:$(gport 2),127.0.0.1:$(gport 3)"; }
now() { date +%s.%N; }
since() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }

require_packages() {
    local missing=()
    command -v mariadbd >/dev/null || missing+=(mariadb-server)
    [ -f "$PROVIDER" ] || missing+=(galera-4)
    command -v mariadb-backup >/dev/null || missing+=(mariadb-backup)
    command -v socat >/dev/null || missing+=(socat)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "cluster.sh needs the Debian packages: ${missing[*]} (apt-get install -y ${missing[*]})" >&2
        exit 2
    fi
}

write_cnf() {
    local i=$1 d
    d=$(ndir "$i")
    mkdir -p "$d"
    cat >"$d/my.cnf" <<EOF
[mysqld]
user=$(id -un)
datadir=$d/data
socket=$d/mysqld.sock
pid-file=$d/mysqld.pid
log-error=$d/error.log
port=$(sqlp "$i")
bind-address=127.0.0.1
max_connections=200
performance_schema=OFF
innodb_buffer_pool_size=64M
innodb_log_file_size=32M
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=bizlock_galera
wsrep_cluster_address=$(cluster_address)
wsrep_node_name=n$i
wsrep_node_address=127.0.0.1:$(gport "$i")
wsrep_node_incoming_address=127.0.0.1:$(sqlp "$i")
wsrep_sst_method=mariabackup
wsrep_sst_auth=root:
wsrep_sst_receive_address=127.0.0.1:$(sport "$i")
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$(gport "$i");ist.recv_addr=127.0.0.1:$(iport "$i");gcache.size=64M"
wsrep_slave_threads=1

[client]
socket=$d/mysqld.sock
EOF
}

node_pid() {
    local f
    f="$(ndir "$1")/mysqld.pid"
    [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"
}

# "<state> <cluster size> <ready>" of node i over TCP, or nothing when it does not answer.
wstate() {
    mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$(sqlp "$1")" -uroot -N -B --connect-timeout=2 -e \
        "SELECT MAX(IF(VARIABLE_NAME='WSREP_LOCAL_STATE_COMMENT',VARIABLE_VALUE,NULL)),
                MAX(IF(VARIABLE_NAME='WSREP_CLUSTER_SIZE',VARIABLE_VALUE,NULL)),
                MAX(IF(VARIABLE_NAME='WSREP_READY',VARIABLE_VALUE,NULL))
           FROM information_schema.GLOBAL_STATUS
          WHERE VARIABLE_NAME IN ('WSREP_LOCAL_STATE_COMMENT','WSREP_CLUSTER_SIZE','WSREP_READY')" 2>/dev/null | tr '\t' ' '
}

synced() { case "$(wstate "$1")" in Synced*ON) return 0 ;; *) return 1 ;; esac; }

wait_synced() {
    local i=$1 t0 s
    t0=$(date +%s)
    while ! synced "$i"; do
        if [ $(($(date +%s) - t0)) -gt "$WAIT_S" ]; then
            echo "n$i: not Synced after ${WAIT_S}s (last state: '$(wstate "$i")'); see $(ndir "$i")/error.log" >&2
            return 1
        fi
        if [ -s "$(ndir "$i")/launcher.pid" ] && ! kill -0 "$(cat "$(ndir "$i")/launcher.pid")" 2>/dev/null; then
            echo "n$i: mariadbd exited; the end of $(ndir "$i")/error.log:" >&2
            tail -20 "$(ndir "$i")/error.log" >&2
            return 1
        fi
        sleep 0.2
    done
}

# Starts node i's mariadbd in the background with extra options; its pid goes to launcher.pid (mariadbd writes the same
# pid to mysqld.pid once it runs).
launch() {
    local i=$1 d extra=()
    shift
    d=$(ndir "$i")
    # After a kill -9, grastate.dat says seqno -1 and a plain start would ask for a full state transfer: recover the
    # position from InnoDB first so the node rejoins by IST.
    if [ -f "$d/data/grastate.dat" ] && grep -q '^seqno: *-1' "$d/data/grastate.dat"; then
        mariadbd --defaults-file="$d/my.cnf" --wsrep-recover --log-error="$d/recover.log" >/dev/null 2>&1
        local pos
        pos=$(grep -oE 'WSREP: Recovered position: [0-9a-f-]+:-?[0-9]+' "$d/recover.log" | tail -1 | awk '{print $NF}')
        [ -n "$pos" ] && extra=(--wsrep_start_position="$pos")
    fi
    setsid mariadbd --defaults-file="$d/my.cnf" "${extra[@]}" "$@" >"$d/stdout.log" 2>&1 </dev/null &
    echo $! >"$d/launcher.pid"
}

stop_node() {
    local i=$1 p
    p=$(node_pid "$i") || return 0
    kill -TERM "$p"
    for _ in $(seq 1 600); do
        kill -0 "$p" 2>/dev/null || { echo "n$i stopped (pid $p)"; return 0; }
        sleep 0.1
    done
    echo "n$i still running 60 s after SIGTERM (pid $p)" >&2
    return 1
}

# First start: one data directory, bootstrapped once and shut down cleanly, copied to all nodes with its grastate.dat,
# so the nodes hold the same state and join without a state transfer.
create_data() {
    local t0 d1
    t0=$(now)
    d1=$(ndir 1)
    for i in 1 2 3; do write_cnf "$i"; done
    rm -rf "$d1/data"
    mariadb-install-db --defaults-file="$d1/my.cnf" --datadir="$d1/data" --auth-root-authentication-method=normal \
        --skip-test-db >"$d1/install.log" 2>&1 || { echo "mariadb-install-db failed, see $d1/install.log" >&2; return 1; }
    launch 1 --wsrep-new-cluster
    wait_synced 1 || return 1
    stop_node 1 >/dev/null || return 1
    for i in 2 3; do
        rm -rf "$(ndir "$i")/data"
        cp -a "$d1/data" "$(ndir "$i")/data"
    done
    echo "data created in $(since "$t0") s"
}

cmd_start() {
    require_packages
    local t0 running=0
    t0=$(now)
    for i in 1 2 3; do synced "$i" && running=$((running + 1)); done
    if [ "$running" -eq 3 ]; then
        echo "reused: 3 nodes Synced at 127.0.0.1:$(sqlp 1),$(sqlp 2),$(sqlp 3)"
        return 0
    fi
    mkdir -p "$BASE"
    if [ ! -d "$(ndir 1)/data/mysql" ] || [ ! -d "$(ndir 2)/data/mysql" ] || [ ! -d "$(ndir 3)/data/mysql" ]; then
        create_data || return 1
    fi
    for i in 1 2 3; do write_cnf "$i"; done
    # Bootstrap from node 1 unless some node already runs (then the others join it).
    local any=0
    for i in 1 2 3; do node_pid "$i" >/dev/null && any=1; done
    if [ "$any" -eq 0 ]; then
        sed -i 's/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/' "$(ndir 1)/data/grastate.dat"
        launch 1 --wsrep-new-cluster
        wait_synced 1 || return 1
    fi
    for i in 1 2 3; do
        node_pid "$i" >/dev/null || launch "$i"
    done
    for i in 1 2 3; do wait_synced "$i" || return 1; done
    echo "started: 3 nodes Synced at 127.0.0.1:$(sqlp 1),$(sqlp 2),$(sqlp 3) in $(since "$t0") s"
}

cmd_start_node() {
    local i=$1 t0
    t0=$(now)
    write_cnf "$i"
    node_pid "$i" >/dev/null || launch "$i"
    wait_synced "$i" || return 1
    echo "n$i Synced in $(since "$t0") s"
}

cmd_stop() { for i in 3 2 1; do stop_node "$i"; done; }

cmd_status() {
    for i in 1 2 3; do
        local p
        p=$(node_pid "$i") || p="-"
        echo "n$i pid=$p sql=127.0.0.1:$(sqlp "$i") state=[$(wstate "$i")]"
    done
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    clean) cmd_stop && rm -rf "$BASE" ;;
    start-node) cmd_start_node "$2" ;;
    stop-node) stop_node "$2" ;;
    kill-node) p=$(node_pid "$2") && kill -9 "$p" && echo "n$2 killed -9 (pid $p)" ;;
    sql) mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$(sqlp "$2")" -uroot -e "$3" ;;
    urls) echo "127.0.0.1:$(sqlp 1),127.0.0.1:$(sqlp 2),127.0.0.1:$(sqlp 3)" ;;
    *)
        echo "usage: $0 start|stop|status|clean|start-node N|stop-node N|kill-node N|sql N stmt|urls" >&2
        exit 2
        ;;
esac
