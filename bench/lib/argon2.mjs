/**
 * Step 1: the raw @node-rs/argon2 `verify` rate with the production parameters: in this process at
 * concurrency 2 and 4 (thread pool of 4), and in a child process whose libuv thread pool has one
 * thread per core and always a verification queued, so that no core ever waits for the main thread
 * between two verifications. The best of the three is the most logins per second the machine could
 * do if a login cost nothing but its password check.
 *
 * Run as `node bench/lib/argon2.mjs --child PHC SECONDS CONCURRENCY` it is that child: it prints one
 * run as JSON.
 */

import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Algorithm, hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import { opts, USER } from './config.mjs';
import { cpuSnapshot, cpuWindow } from './cpu.mjs';
import { log, r1, r2 } from './util.mjs';

async function verifyRate(phc, concurrency, seconds) {
  let done = 0;
  const cpu0 = cpuSnapshot(process.pid);
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        if (!(await argonVerify(phc, USER.password))) throw new Error('argon2 verify returned false');
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const cpu = cpuWindow(cpu0, cpuSnapshot(process.pid));
  return {
    concurrency,
    seconds: r2(elapsed),
    verifies: done,
    perSecond: r1(done / elapsed),
    msPerVerifyPerWorker: r1((elapsed * 1000 * concurrency) / done),
    cpuCores: cpu && {
      bench: cpu.loadGenerator,
      otherProcesses: r2(Math.max(0, cpu.machineBusy - cpu.loadGenerator)),
      steal: cpu.steal,
    },
  };
}

/**
 * The gapless configuration, in a child process: a pool of one thread per core, twice as many
 * verifications in flight. Synchronous (the child runs `opts.verifySeconds`).
 */
function gaplessRate(phc) {
  const cores = availableParallelism();
  const run = JSON.parse(
    execFileSync(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', phc, String(opts.verifySeconds), String(cores * 2)],
      {
        env: { ...process.env, UV_THREADPOOL_SIZE: String(cores) },
        encoding: 'utf8',
        timeout: (opts.verifySeconds + 30) * 1000,
      },
    ),
  );
  return { ...run, pool: cores };
}

/**
 * The gapless rate again, right after the PostgreSQL login storm, stored as `verify.after`: argon2
 * is bound by memory bandwidth that other tenants of the host share, and the rate drifted by 10 %
 * within minutes here; the ratios' reference (report.mjs, `verifyReference`) is the mean of the
 * rate before the storm and this one.
 * @param verify - what `benchVerify` returned.
 */
export function verifyAfterStorm(verify) {
  const after = gaplessRate(verify.phc);
  log(
    `argon2id verify again after the login storm, concurrency ${after.concurrency}, ` +
      `thread pool ${after.pool}: ${after.perSecond} verifies/s`,
  );
  verify.after = after;
}

export async function benchVerify(argon2) {
  log(
    `argon2id verify: m=${argon2.memoryCost} KiB, t=${argon2.timeCost}, p=${argon2.parallelism}; ` +
      `UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`,
  );
  const phc = await argonHash(USER.password, { algorithm: Algorithm.Argon2id, ...argon2 });
  await verifyRate(phc, 4, 1); // warm-up: thread pool and allocator
  const runs = [];
  for (const concurrency of [2, 4]) {
    const run = await verifyRate(phc, concurrency, opts.verifySeconds);
    log(`  concurrency ${concurrency}: ${run.perSecond} verifies/s (${run.verifies} in ${run.seconds}s)`);
    runs.push(run);
  }
  const child = gaplessRate(phc);
  log(
    `  concurrency ${child.concurrency}, thread pool ${child.pool}: ` +
      `${child.perSecond} verifies/s (${child.verifies} in ${child.seconds}s)`,
  );
  runs.push(child);
  const perCore = runs.map((r) => (r.cpuCores?.bench ? r.perSecond / r.cpuCores.bench : null)).filter((x) => x != null);
  const result = {
    params: argon2,
    runs,
    best: Math.max(...runs.map((r) => r.perSecond)),
    // Verifies per CPU-second of this process: insensitive to other processes taking cores.
    bestPerCoreSecond: perCore.length ? r1(Math.max(...perCore)) : null,
  };
  // For `verifyAfterStorm`; not written to latest.json.
  Object.defineProperty(result, 'phc', { value: phc, enumerable: false });
  return result;
}

if (process.argv[2] === '--child') {
  const [phc, seconds, concurrency] = process.argv.slice(3);
  await verifyRate(phc, Number(concurrency), 1); // warm-up
  console.log(JSON.stringify(await verifyRate(phc, Number(concurrency), Number(seconds))));
}
