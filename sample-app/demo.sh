#!/usr/bin/env bash
# Starts 3 replicas of the sample on one database, sends the same load to the protected and the unprotected
# endpoints, and prints what each let through. Stops everything it started, also on Ctrl-C or failure.
#
#   sample-app/demo.sh                      # embedded MySQL 8.0 (started by the first replica)
#   DEMO_JDBC_URL='jdbc:mysql://127.0.0.1:3306/bizlock_demo?createDatabaseIfNotExist=true' \
#   DEMO_DB_USER=root sample-app/demo.sh    # any MySQL or MariaDB you have
set -euo pipefail
cd "$(dirname "$0")/.."

REQUESTS=${DEMO_REQUESTS:-200}
STOCK=${DEMO_STOCK:-50}
PORTS=(18081 18082 18083)
DB_PORT=${DEMO_DB_PORT:-33307}
work_dir=$(mktemp -d)
pids=()

cleanup() {
    trap - EXIT INT TERM
    # Replica 1 started the embedded database; stop it last so the others shut down cleanly.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill "${pids[$i]}" 2>/dev/null || true
        wait "${pids[$i]}" 2>/dev/null || true
    done
    rm -rf "$work_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "building the sample..."
./mvnw -B -q -pl sample-app -am package -DskipTests -Dspotless.check.skip=true
jar=$(ls sample-app/target/bizlock-sample-app-*.jar | grep -v original | head -1)

db_args=()
if [[ -n "${DEMO_JDBC_URL:-}" ]]; then
    db_args=(--spring.datasource.url="$DEMO_JDBC_URL" --spring.datasource.username="${DEMO_DB_USER:-root}"
             --spring.datasource.password="${DEMO_DB_PASSWORD:-}")
    echo "database: $DEMO_JDBC_URL"
else
    db_args=(--sample.embedded-db.port="$DB_PORT" --sample.embedded-db.directory="$work_dir/mysql")
    echo "database: embedded MySQL 8.0 on 127.0.0.1:$DB_PORT (started by the first replica)"
fi

wait_up() {
    local port=$1 pid=$2
    for _ in $(seq 1 180); do
        if curl -s -o /dev/null "http://127.0.0.1:$port/products/1"; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { echo "replica on $port died; see $work_dir/replica-$port.log" >&2; tail -20 "$work_dir/replica-$port.log" >&2; return 1; }
        sleep 0.5
    done
    echo "replica on $port did not start" >&2
    return 1
}

for port in "${PORTS[@]}"; do
    java -jar "$jar" --server.port="$port" --sample.work=5ms "${db_args[@]}" > "$work_dir/replica-$port.log" 2>&1 &
    pids+=($!)
    # The first replica may have to start the database; the others join it.
    if [[ $port == "${PORTS[0]}" ]]; then
        wait_up "$port" "${pids[0]}"
    fi
done
for i in 1 2; do
    wait_up "${PORTS[$i]}" "${pids[$i]}"
done
echo "3 replicas up on ports ${PORTS[*]}"

run_id=$(date +%s)
reserve() { # endpoint sku
    local endpoint=$1 sku=$2
    curl -s -o /dev/null -X PUT "http://127.0.0.1:${PORTS[0]}/inventory/$sku?stock=$STOCK"
    seq 1 "$REQUESTS" | xargs -P 64 -I{} sh -c \
        'curl -s -o /dev/null -w "%{http_code}\n" -X POST "http://127.0.0.1:$(( '"${PORTS[0]}"' + {} % 3 ))/inventory/'"$sku"'/'"$endpoint"'"' \
        > "$work_dir/$endpoint.codes"
}
submit_orders() { # path prefix
    local path=$1 prefix=$2
    local calls
    for n in $(seq 1 20); do
        calls=()
        for port in "${PORTS[@]}"; do
            curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
                -d "{\"requestId\":\"$prefix-$n\",\"sku\":\"PHONE\",\"quantity\":1}" \
                "http://127.0.0.1:$port/orders$path" &
            calls+=($!)
        done
        wait "${calls[@]}" # not a bare wait: that would wait for the replicas too
    done
}

reserve reserve "LOCKED-$run_id"
reserve reserve-unprotected "UNLOCKED-$run_id"
submit_orders "" "locked-$run_id"
submit_orders "/unprotected" "unlocked-$run_id"

report() { # label endpoint sku order-prefix
    local json accepted left reserved oversold extra
    json=$(curl -s "http://127.0.0.1:${PORTS[1]}/inventory/$3")
    accepted=$(grep -c '^200$' "$work_dir/$2.codes" || true)
    left=$(sed -E 's/.*"stockLeft":(-?[0-9]+).*/\1/' <<< "$json")
    reserved=$(sed -E 's/.*"reserved":([0-9]+).*/\1/' <<< "$json")
    oversold=$(sed -E 's/.*"oversold":([0-9]+).*/\1/' <<< "$json")
    extra=$(curl -s "http://127.0.0.1:${PORTS[2]}/orders/extra?prefix=$4")
    printf '%-12s | %10s | %19s | %8s | %16s\n' "$1" "$left" "$accepted ($reserved)" "$oversold" "$extra"
}

echo
echo "$REQUESTS concurrent reservations of 1 unit, stock $STOCK, over 3 replicas;"
echo "20 orders each submitted 3 times at once, once to each replica:"
echo
printf '%-12s | %10s | %19s | %8s | %16s\n' endpoint "stock left" "accepted (in table)" oversold "duplicate orders"
printf '%s\n' "-------------|------------|---------------------|----------|-----------------"
report protected reserve "LOCKED-$run_id" "locked-$run_id"
report unprotected reserve-unprotected "UNLOCKED-$run_id" "unlocked-$run_id"
