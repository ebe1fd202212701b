/**
 * CPU accounting (Linux /proc): where the cores went during a measurement, so that a shortfall can
 * be attributed (server main thread vs its thread pool, PostgreSQL, the load generator, strangers).
 * On other platforms the snapshots are null and the report says so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { r2 } from './util.mjs';

const LINUX = process.platform === 'linux' && existsSync('/proc/stat');
const CLK_TCK = (() => {
  if (!LINUX) return 100;
  const res = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(res.stdout?.trim()) || 100;
})();

/** utime + stime of a /proc stat file (clock ticks), or 0 when the process is gone. */
function statTicks(file) {
  try {
    const text = readFileSync(file, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    return Number(fields[11]) + Number(fields[12]); // fields 14 (utime) and 15 (stime)
  } catch {
    return 0;
  }
}

/**
 * CPU ticks of PostgreSQL processes, by pid: the server-wide ones (postmaster, WAL writer,
 * checkpointer…) and the backends of database `dbName` only, so that other users of the same
 * PostgreSQL are not counted as ours.
 */
function postgresTicks(dbName) {
  const ticks = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')) !== 'postgres') continue;
      // A backend's title is "postgres: [<cluster_name>: ]<user> <database> <host>(<port>) <state>".
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      const backend = /^postgres: (?:\S+: )?\S+ (\S+) \S+\(\d+\)/.exec(title);
      if (backend && backend[1] !== dbName) continue;
      ticks.set(pid, statTicks(`/proc/${pid}/stat`));
    } catch {
      // exited meanwhile
    }
  }
  return ticks;
}

export function cpuSnapshot(serverPid, dbName = null) {
  if (!LINUX) return null;
  const [, ...cpu] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, _idle, _iowait, irq, softirq, steal] = cpu.map(Number);
  const self = process.cpuUsage();
  return {
    at: performance.now(),
    busy: user + nice + system + irq + softirq,
    steal,
    serverAll: statTicks(`/proc/${serverPid}/stat`),
    serverMain: statTicks(`/proc/${serverPid}/task/${serverPid}/stat`),
    postgres: postgresTicks(dbName),
    selfMicros: self.user + self.system,
  };
}

/** Average cores used between two snapshots, by consumer. */
export function cpuWindow(a, b) {
  if (!a || !b) return null;
  const seconds = (b.at - a.at) / 1000;
  const cores = (ticks) => r2(ticks / CLK_TCK / seconds);
  const serverAll = cores(b.serverAll - a.serverAll);
  const serverMain = cores(b.serverMain - a.serverMain);
  let pgTicks = 0; // per process, so that one exiting within the window does not count negative
  for (const [pid, t] of b.postgres) pgTicks += t - (a.postgres.get(pid) ?? 0);
  const postgres = cores(pgTicks);
  const loadGenerator = r2((b.selfMicros - a.selfMicros) / 1e6 / seconds);
  const machineBusy = cores(b.busy - a.busy);
  return {
    machineBusy,
    steal: cores(b.steal - a.steal),
    serverMainThread: serverMain,
    serverOtherThreads: r2(serverAll - serverMain),
    postgres,
    loadGenerator,
    otherProcesses: r2(Math.max(0, machineBusy - serverAll - postgres - loadGenerator)),
  };
}
