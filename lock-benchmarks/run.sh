#!/usr/bin/env bash
# Runs every benchmark scenario of issue 7 on the embedded MySQL 8.0 and on the local MariaDB, with a local Redis for
# Redisson, and writes one markdown table per server to lock-benchmarks/results/<date>-<server>.md.
#
#   lock-benchmarks/run.sh                 # both servers, 3 runs each (medians)
#   lock-benchmarks/run.sh mysql           # one server
#   BENCH_RUNS=1 BENCH_SECONDS=1 BENCH_RESULTS=/tmp/bench lock-benchmarks/run.sh mariadb    # a quick look
#
# Starts Redis and MariaDB only if they do not answer, and stops only what it started. The embedded MySQL runs from a
# data directory made for this run (in /dev/shm when there is one), removed at the end.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
servers=("$@")
if [ ${#servers[@]} -eq 0 ]; then
    servers=(mysql mariadb)
fi

results=${BENCH_RESULTS:-$root/lock-benchmarks/results}
mysql_data=$(mktemp -d /dev/shm/bizlock-bench-mysql.XXXXXX 2>/dev/null || mktemp -d)
export BENCH_MYSQL_DATA="$mysql_data"
started_redis=false
started_mariadb=false
cleanup() {
    rm -rf "$mysql_data"
    if $started_redis; then
        redis-cli -h 127.0.0.1 -p 6379 shutdown nosave >/dev/null 2>&1 || true
    fi
    if $started_mariadb; then
        start-stop-daemon --stop --oknodo --retry 30 --exec /usr/sbin/mariadbd >/dev/null 2>&1 || true
    fi
}
trap cleanup EXIT

answers() { # host port
    (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

wait_for() { # host port name
    for _ in $(seq 1 60); do
        if answers "$1" "$2"; then
            return 0
        fi
        sleep 0.5
    done
    echo "$3 did not answer at $1:$2" >&2
    exit 1
}

revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- . ":!lock-benchmarks/results" 2>/dev/null)" ]; then
    revision="$revision with uncommitted changes"
fi
export BENCH_REVISION="$revision"

echo "== building lock-benchmarks"
./mvnw -B -q -Pbenchmarks -pl lock-benchmarks -am package -DskipTests

if ! answers 127.0.0.1 6379; then
    if ! command -v redis-server >/dev/null; then
        echo "== installing redis-server"
        apt-get install -y -q redis-server >/dev/null
    fi
    echo "== starting Redis"
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
    started_redis=true
    wait_for 127.0.0.1 6379 Redis
fi

for server in "${servers[@]}"; do
    if [ "$server" = mariadb ] && ! answers 127.0.0.1 3306; then
        echo "== starting MariaDB"
        start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
        started_mariadb=true
        wait_for 127.0.0.1 3306 MariaDB
    fi
    echo "== $server"
    java -Xmx1g -Djava.awt.headless=true -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
        -cp "lock-benchmarks/target/classes:lock-benchmarks/target/lib/*" \
        io.github.bizlock.benchmarks.Bench "$server" "$results"
done
