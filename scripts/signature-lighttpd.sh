#!/bin/sh
# signature-lighttpd.sh [DIR] - varscope signature on a real server:
# Debian's lighttpd (built without frame pointers, so --method=probes on
# its exported functions), signatures from a normal load, then a
# recording of the same load plus a storm of requests for files that do
# not exist (a broken crawler: the induced anomaly), and the inference.
# Needs root, lighttpd (scripts/install-deps.sh --bench) and python3.
# Documented, with its output, in Documentation/varscope-signature.txt.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
vs=${VARSCOPE:-$top/varscope}
dir=${1:-$(mktemp -d /tmp/vs-lighttpd.XXXXXX)}
port=${PORT:-8099}
mkdir -p "$dir/www"
cd "$dir"
i=1
while [ $i -le 40 ]; do
	head -c $((i * 512)) /dev/urandom >www/f$i.html
	i=$((i + 1))
done
head -c 3000000 /dev/urandom >www/medium.bin
cat >lt.conf <<EOC
server.document-root = "$dir/www"
server.port = $port
server.bind = "127.0.0.1"
server.errorlog = "$dir/error.log"
mimetype.assign = ("" => "application/octet-stream")
EOC
# the load: keep-alive GETs of the 40 small files and, every 20th, the
# 3 MB one, 1 ms apart; with "storm", also GETs of missing files back to
# back from second 1
cat >client.py <<'EOC'
import http.client, random, socket, sys, threading, time
secs, port = float(sys.argv[1]), int(sys.argv[2])
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", port)).close()
        break
    except OSError:
        time.sleep(0.05)
def storm():
    time.sleep(1)
    c = http.client.HTTPConnection("127.0.0.1", port)
    n, end = 0, time.time() + secs - 1.5
    while time.time() < end:
        n += 1
        c.request("GET", "/missing/%d/page.html" % n)
        c.getresponse().read()
if len(sys.argv) > 3:
    threading.Thread(target=storm).start()
rnd = random.Random(1)
c = http.client.HTTPConnection("127.0.0.1", port)
n, end = 0, time.time() + secs
while time.time() < end:
    n += 1
    c.request("GET", "/medium.bin" if n % 20 == 0 else
              "/f%d.html" % rnd.randint(1, 40))
    c.getresponse().read()
    time.sleep(0.001)
EOC
funcs='connection_*,fdevent_*,http_response_*,stat_cache_*,chunkqueue_*,network_*'
# lighttpd -i 1: a graceful exit after one idle second
python3 client.py 3 "$port" &
"$vs" signature build -o lighttpd.sig --method=probes --functions "$funcs" \
	-- lighttpd -D -i 1 -f lt.conf
wait
python3 client.py 4 "$port" storm &
"$vs" record --syscalls -o storm.data -- lighttpd -D -i 1 -f lt.conf 2>/dev/null
wait
"$vs" signature infer -s lighttpd.sig -i storm.data
