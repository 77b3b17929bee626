#!/bin/sh
# status --json and doctor --json, on this host and on every good fixture,
# validate against share/schema/{status,doctor}.schema.json; the checker
# itself rejects documents that break the schema.
. "$(dirname "$0")/lib.sh"

check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }

validate() {	# validate NAME SCHEMA DOC
	if ! "$check" "$SCHEMAS/$2.schema.json" "$3" >"$scratch/v.out" 2>&1; then
		fail "$1 does not validate against $2.schema.json:"
		head -20 "$scratch/v.out"
	fi
}

for root in / $(good_fixtures); do
	case $root in /) name=live; sr=/ ;; *) name=$root; sr=$FIXTURES/$root ;; esac
	"$SWAPTUNE" status --json --sysroot "$sr" --db "$scratch/db" >"$scratch/status-$name.json" ||
		fail "status --json on $name: exit $?"
	validate "status --json on $name" status "$scratch/status-$name.json"
	grep -q '"schema":[[:space:]]*"swaptune.status/1"' "$scratch/status-$name.json" ||
		fail "status --json on $name: no schema tag"
	"$SWAPTUNE" doctor --json --sysroot "$sr" --db "$scratch/db" >"$scratch/doctor-$name.json"
	rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "doctor --json on $name: exit $rc"
	validate "doctor --json on $name" doctor "$scratch/doctor-$name.json"
done

# values, not just shapes: the live host is what /proc says
kernel=$(cat /proc/sys/kernel/osrelease)
grep -q "\"kernel\":[[:space:]]*\"$kernel\"" "$scratch/status-live.json" || fail "live status: kernel is not $kernel"
grep -q '"pswpin":[[:space:]]*null' "$scratch/status-no-zswap.json" && fail "no-zswap: pswpin should be a number"
grep -q '"zswpin":[[:space:]]*null' "$scratch/status-no-zswap.json" || fail "no-zswap: zswpin should be null"
grep -q '"compressor":[[:space:]]*"zstd"' "$scratch/status-v2-zswap-on.json" || fail "v2-zswap-on: compressor zstd"
grep -q '"memory_root":[[:space:]]*"sys/fs/cgroup/memory"' "$scratch/status-vm-v1.json" || fail "vm-v1: memory root"

# identity: the sysroot's machine id, hostname and boot id, and the version
idroot=$scratch/idroot
cp -r "$FIXTURES/v2-zswap-on" "$idroot"
mkdir -p "$idroot/proc/sys/kernel/random"
echo 6f0c3a2e-1111-4222-8333-944445555666 >"$idroot/proc/sys/kernel/random/boot_id"
"$SWAPTUNE" status --json --sysroot "$idroot" --db "$scratch/db" >"$scratch/id.json" || fail "status on idroot: exit $?"
validate "status --json with a boot id" status "$scratch/id.json"
tr -d ' \t\n' <"$scratch/id.json" >"$scratch/id.flat"
want="\"host\":{\"machine_id\":\"$(cat "$idroot/etc/machine-id")\",\"hostname\":\"$(cat "$idroot/proc/sys/kernel/hostname")\",\"boot_id\":\"6f0c3a2e-1111-4222-8333-944445555666\"}"
grep -qF "$want" "$scratch/id.flat" || fail "status --json: host identity is not the sysroot's: $(grep -o '"host":{[^}]*}' "$scratch/id.flat")"
grep -q '"swaptune_version":"[^"]' "$scratch/id.flat" || fail "status --json: no swaptune_version"
tr -d ' \t\n' <"$scratch/status-no-zswap.json" | grep -qF '"boot_id":"unknown"' ||
	fail "no boot id under the sysroot should be \"unknown\""
if [ -r /proc/sys/kernel/random/boot_id ]; then
	tr -d ' \t\n' <"$scratch/status-live.json" | grep -qF "\"boot_id\":\"$(cat /proc/sys/kernel/random/boot_id)\"" ||
		fail "live status --json: boot_id is not this boot's"
fi
sed 's/"swaptune_version"/"swaptune_versio"/' "$scratch/id.json" >"$scratch/bad-id.json"
"$check" "$SCHEMAS/status.schema.json" "$scratch/bad-id.json" >/dev/null 2>&1 &&
	fail "schema-check accepted a status document without swaptune_version"

# the checker catches what the schema forbids (one mutation each)
doc=$scratch/status-vm-v1.json
mutate() {	# mutate FROM TO: the mutated document must be rejected
	sed "s|$1|$2|" "$doc" >"$scratch/bad.json"
	cmp -s "$doc" "$scratch/bad.json" && { fail "mutation $1 did not apply"; return; }
	if "$check" "$SCHEMAS/status.schema.json" "$scratch/bad.json" >"$scratch/v.out" 2>&1; then
		fail "schema-check accepted $1 -> $2"
	elif [ $? -ne 1 ]; then
		fail "schema-check: exit $? for $1 -> $2 (want 1)"
	fi
}
mutate '"schema":[[:space:]]*"swaptune.status/1"' '"schema": "swaptune.status/2"'
mutate '"kernel":' '"kernal":'
grep -q 'missing required key "kernel"' "$scratch/v.out" || fail "schema-check: no message for the missing key"
mutate '"total_bytes":[[:space:]]*[0-9]*' '"total_bytes": "many"'
mutate '"total_bytes":[[:space:]]*[0-9]*' '"total_bytes": 1.5'
mutate '"rotational":[[:space:]]*true' '"rotational": 1'
mutate '"mode":[[:space:]]*"hybrid"' '"mode": "v3"'
mutate '"algorithm":[[:space:]]*"cluster"' '"algorithm": null'
echo '{' >"$scratch/broken.json"
"$check" "$SCHEMAS/status.schema.json" "$scratch/broken.json" >/dev/null 2>&1
[ $? -eq 2 ] || fail "schema-check: invalid JSON should exit 2"
done_testing
