# sql/bigtable/emulator.sh: sourced by the Bigtable examples (demo.sh,
# existing.sh), not run.  Starts Google's Bigtable emulator on a free
# loopback port, exports BIGTABLE_EMULATOR_HOST, waits until cbt answers,
# and leaves the emulator's PID in $emulator_pid; its EXIT trap stops it
# (a caller that sets its own trap kills $emulator_pid there too).
emulator=$(command -v cbtemulator 2>/dev/null || \
  dpkg -L google-cloud-cli-bigtable-emulator 2>/dev/null | grep '/cbtemulator$' | head -n 1)
if [ -z "$emulator" ]; then
  echo "no cbtemulator: apt-get install google-cloud-cli-bigtable-emulator google-cloud-cli-cbt" >&2
  exit 1
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$emulator" -host 127.0.0.1 -port "$port" >/dev/null 2>&1 &
emulator_pid=$!
trap 'kill $emulator_pid 2>/dev/null' EXIT
export BIGTABLE_EMULATOR_HOST=127.0.0.1:$port
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  cbt -project demo -instance widecol ls >/dev/null 2>&1 && break
  sleep 0.25
done
echo "Bigtable emulator on $BIGTABLE_EMULATOR_HOST"
