/**
 * A throwaway PostgreSQL cluster of a test's own (initdb in a temp directory, on a free port of
 * 127.0.0.1), so that a test may stop and restart the database server without touching the shared
 * one of TEST_DATABASE_URL. Debian's layout: /usr/lib/postgresql/<version>/bin. As root, the server
 * runs as the `postgres` user (PostgreSQL refuses to run as root).
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './assent.js';

const run = promisify(execFile);

/** How `pg_ctl restart` stops the server (https://www.postgresql.org/docs/current/app-pg-ctl.html). */
export type ShutdownMode = 'smart' | 'fast' | 'immediate';

/** A running cluster of the test's own. */
export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  url: string;
  /** The server's port on 127.0.0.1. */
  port: number;
  /** The URL of database `name` on this cluster. */
  urlOf(name: string): string;
  /** `pg_ctl restart -m mode`: every session is cut, the server answers again when it resolves. */
  restart(mode: ShutdownMode): Promise<void>;
  /** `pg_ctl stop -m fast`. */
  stop(): Promise<void>;
  /** `pg_ctl start`, waiting until it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (immediately) and removes its directory. */
  remove(): Promise<void>;
}

/** The bin directory of the newest installed PostgreSQL; throws when there is none. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin/initdb')))
    : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no initdb under ${root}/*/bin: install the PostgreSQL server package to run this test`);
  return path.join(root, newest, 'bin');
}

/**
 * Creates and starts a cluster with trust authentication on 127.0.0.1 only.
 * @throws when initdb is missing or the server does not start.
 */
export async function startCluster(): Promise<PgCluster> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-pgcluster-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  chmodSync(dir, 0o700);
  const pgAs = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);
  await pgAs('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  // Loopback only, a socket directory of its own, no fsync (a test's data need not survive a crash of the machine).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const ctl = (args: string[]) => pgAs('pg_ctl', ['-D', data, '-w', '-t', '30', '-l', path.join(dir, 'log'), ...args]);
  await ctl(['-o', options, 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    urlOf: (name) => `postgres://postgres@127.0.0.1:${port}/${name}`,
    restart: async (mode) => void (await ctl(['-m', mode, '-o', options, 'restart'])),
    stop: async () => void (await ctl(['-m', 'fast', 'stop'])),
    start: async () => void (await ctl(['-o', options, 'start'])),
    async remove() {
      await ctl(['-m', 'immediate', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
