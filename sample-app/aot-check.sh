#!/usr/bin/env bash
# Builds the sample AOT-processed (profile aot: spring-boot:process-aot), starts it on the JVM with
# -Dspring.aot.enabled=true, runs README's quick-start requests and checks their answers. Stops the application it
# started, also on failure; exits non-zero when a check fails or the application does not start in time.
#
#   sample-app/aot-check.sh                      # embedded MySQL 8.0 in a temporary directory
#   AOT_CHECK_JDBC_URL='jdbc:mysql://127.0.0.1:3306/bizlock_aot?createDatabaseIfNotExist=true' \
#   AOT_CHECK_DB_USER=root sample-app/aot-check.sh    # any MySQL or MariaDB you have
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${AOT_CHECK_PORT:-18090}
DB_PORT=${AOT_CHECK_DB_PORT:-33308}
START_SECONDS=${AOT_CHECK_START_SECONDS:-150}
base="http://127.0.0.1:$PORT"
work_dir=$(mktemp -d)
app_pid=""
# Kept after the run, for a failure's whole story.
app_log=sample-app/target/aot-check-app.log
rm -f "$app_log"

cleanup() {
    trap - EXIT INT TERM
    if [[ -n "$app_pid" ]]; then
        kill "$app_pid" 2>/dev/null || true
        wait "$app_pid" 2>/dev/null || true
    fi
    rm -rf "$work_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "aot-check: FAILED: $*" >&2
    if [[ -f "$app_log" ]]; then
        echo "--- last lines of the application's log ($app_log) ---" >&2
        tail -40 "$app_log" >&2
    fi
    exit 1
}

echo "aot-check: building the sample AOT-processed..."
./mvnw -B -q -Paot -pl sample-app -am package -DskipTests -Dspotless.check.skip=true -Dmaven.javadoc.skip=true
jar=$(ls sample-app/target/bizlock-sample-app-*.jar | grep -v original | head -1)
# The bean definitions process-aot generated as code: without them -Dspring.aot.enabled=true fails the start.
jar tf "$jar" | grep -q '^BOOT-INF/classes/io/github/bizlock/sample/SampleApplication__ApplicationContextInitializer.class' \
    || fail "$jar holds no AOT-generated initializer: did process-aot run?"
# bizlock's RuntimeHints (META-INF/spring/aot.factories) in the native-image metadata process-aot wrote (JSON, whose
# slashes may be escaped).
grep -rqE '"db\\?/bizlock\\?/migration\\?/\*\.sql"' sample-app/target/spring-aot/main/resources/META-INF/native-image \
    || fail "the AOT-generated native-image metadata lacks bizlock's migration scripts"

db_args=()
if [[ -n "${AOT_CHECK_JDBC_URL:-}" ]]; then
    db_args=(--spring.datasource.url="$AOT_CHECK_JDBC_URL" --spring.datasource.username="${AOT_CHECK_DB_USER:-root}"
             --spring.datasource.password="${AOT_CHECK_DB_PASSWORD:-}")
    echo "aot-check: database $AOT_CHECK_JDBC_URL"
else
    db_args=(--sample.embedded-db.port="$DB_PORT" --sample.embedded-db.directory="$work_dir/mysql")
    echo "aot-check: embedded MySQL 8.0 on 127.0.0.1:$DB_PORT"
fi

java -Dspring.aot.enabled=true -jar "$jar" --server.port="$PORT" "${db_args[@]}" > "$app_log" 2>&1 &
app_pid=$!
started=false
for _ in $(seq 1 $((START_SECONDS * 2))); do
    if curl -s -o /dev/null "$base/actuator/health"; then
        started=true
        break
    fi
    kill -0 "$app_pid" 2>/dev/null || fail "the application exited while starting"
    sleep 0.5
done
$started || fail "the application did not answer within $START_SECONDS s"
grep -q 'Starting AOT-processed SampleApplication' "$app_log" \
    || fail "the application did not start AOT-processed"
echo "aot-check: started AOT-processed (pid $app_pid)"

# call NAME EXPECTED-STATUS CURL-ARGS...: one request; its status must match and its body is kept in $body.
body=""
call() {
    local name=$1 expected=$2
    shift 2
    local status
    status=$(curl -s -o "$work_dir/body" -w '%{http_code}' --max-time 30 "$@") || status="no answer"
    body=$(cat "$work_dir/body" 2>/dev/null || true)
    [[ "$status" == "$expected" ]] || fail "$name: HTTP $status, expected $expected: $body"
    echo "aot-check: $name: $status $body" | cut -c1-200
}
# expect NAME TEXT...: each TEXT must be in the last body (compact JSON).
expect() {
    local name=$1
    shift
    for text in "$@"; do
        [[ "$body" == *"$text"* ]] || fail "$name: no $text in $body"
    done
}

# A SKU and request id of this run: an external database keeps what earlier runs wrote.
run=$(date +%s)
sku="AOT$run"
call "PUT stock" 200 -X PUT "$base/inventory/$sku?stock=4"
expect "PUT stock" "\"sku\":\"$sku\"" '"initialStock":4' '"stockLeft":4'
call "reserve 3" 200 -X POST "$base/inventory/$sku/reserve?quantity=3"
expect "reserve 3" '"accepted":true' '"stockLeft":1'
call "reserve 2, refused" 409 -X POST "$base/inventory/$sku/reserve?quantity=2"
expect "reserve 2, refused" '"accepted":false' '"stockLeft":1'
order="{\"requestId\":\"aot-$run\",\"sku\":\"$sku\",\"quantity\":1}"
call "POST order" 200 -X POST "$base/orders" -H 'Content-Type: application/json' -d "$order"
expect "POST order" '"created":true'
order_id=$(sed -E 's/.*"orderId":([0-9]+).*/\1/' <<< "$body")
call "POST order again" 200 -X POST "$base/orders" -H 'Content-Type: application/json' -d "$order"
expect "POST order again" "\"orderId\":$order_id," '"created":false'
call "orders of the request" 200 "$base/orders/count/aot-$run"
[[ "$body" == 1 ]] || fail "orders of the request: $body, expected 1"
call "GET product" 200 "$base/products/1"
expect "GET product" '"id":1'
call "restock" 200 -X POST "$base/inventory/$sku/restock?quantity=10"
expect "restock" "\"sku\":\"$sku\"" '"written":true' '"stock":11' '"fencingToken":'
call "report" 200 "$base/report?sku=$sku"
# Its duplicateOrders counts every request id in the database: what other runs on an external one left is not this one's.
expect "report" "\"sku\":\"$sku\"" '"restocked":10' '"oversold":0' '"duplicateOrders":' '"seedRuns":'
call "actuator/bizlocks" 200 "$base/actuator/bizlocks"
expect "actuator/bizlocks" '"instance":' '"held":' '"local":'
call "actuator/health/bizlock" 200 "$base/actuator/health/bizlock"
expect "actuator/health/bizlock" '"status":"UP"'

echo "aot-check: passed"
