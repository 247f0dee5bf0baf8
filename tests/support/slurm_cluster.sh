# A real Slurm cluster of one node for a test: munged with a key made for
# it, slurmctld and slurmd on localhost with a slurm.conf of its own (free
# ports, state in the test's folder), partition "test". Sourced by
# tests/cli/slurm/slurm_cluster_test.sh and tests/daemon/daemon_slurm_test.sh.
#
# start_slurm_cluster DIR: starts the three daemons with their files in DIR
# (made 0755; DIR/shared is for the jobs' files), exports SLURM_CONF and adds
# their pids to the caller's array `pids` (which the caller stops, by pid,
# when it ends). Expects the caller's fail MESSAGE and
# wait_for SECONDS WHAT COMMAND... Needs root (the daemons run as root).
# slurm_cluster_logs DIR: the last lines of each daemon's log (for a failure).
# slurm_cluster_stop: stops what `pids` names (TERM, then KILL after 5 s).

slurm_free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

slurm_cluster_logs() {
  local log
  for log in "$1"/slurmctld.log "$1"/slurmd.log "$1"/munged.log; do
    [ -f "$log" ] && { echo "--- $log"; tail -n 30 "$log"; }
  done
  return 0
}

slurm_cluster_stop() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
}

slurm_node_idle() { sinfo -h -N -o '%T' | grep -qx idle; }

start_slurm_cluster() {
  local tmp=$1
  for tool in munged mungekey slurmctld slurmd sbatch srun squeue scontrol sinfo; do
    command -v "$tool" >/dev/null || fail "$tool not found (Debian: slurm-wlm, munge; tools/install-deps.sh)"
  done
  chmod 0755 "$tmp"
  # munge: a key of the test's own, its socket in the folder.
  mkdir -m 0711 "$tmp/munge"
  mungekey --create --keyfile="$tmp/munge/munge.key" --bits=1024
  chmod 0400 "$tmp/munge/munge.key"
  munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.sock" \
    --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" --foreground >>"$tmp/munged.log" 2>&1 &
  pids+=($!)
  wait_for 10 "munged did not start" test -S "$tmp/munge/munge.sock"
  local host ctld_port slurmd_port cpus
  host=$(hostname -s)
  ctld_port=$(slurm_free_port)
  slurmd_port=$(slurm_free_port)
  [ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$(slurm_free_port)
  cpus=$(nproc)
  mkdir -p "$tmp/state" "$tmp/spool" "$tmp/shared"
  export SLURM_CONF=$tmp/slurm.conf
  cat >"$SLURM_CONF" <<CONF
ClusterName=seertest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MaxArraySize=1001
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  slurmctld -D -i -f "$SLURM_CONF" >>"$tmp/slurmctld.log" 2>&1 &
  pids+=($!)
  wait_for 20 "slurmctld did not answer" scontrol ping
  slurmd -D -N "$host" -f "$SLURM_CONF" >>"$tmp/slurmd.log" 2>&1 &
  pids+=($!)
  wait_for 30 "the node did not come up idle ($(sinfo -h -N -o '%T' 2>&1))" slurm_node_idle
}
