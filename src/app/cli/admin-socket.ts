/**
 * The admin socket of an embedded-store server: `<dataDir>/assent.sock`, mode 0600. PGlite
 * admits one process, so while `assent serve` holds the data directory, `assent import`,
 * `assent keys rotate` and `assent migrate` send their work here and the server runs it.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { safeErrorMessage } from '../../platform/util/errors.js';

/** An admin command's outcome: the JSON to print, or an error message and exit code. */
export type AdminOutcome = { ok: true; result: unknown } | { ok: false; message: string; exitCode: number };

/** Runs one admin command in the serving process. */
export type AdminHandler = (command: string, payload: unknown) => Promise<AdminOutcome>;

/** Path of the socket in a data directory. */
export function socketPath(dataDir: string): string {
  return path.join(dataDir, 'assent.sock');
}

const MAX_BODY = 64 * 1024 * 1024;

/**
 * Listens on the admin socket.
 * @param dataDir - the data directory (absolute path).
 * @param handler - runs the commands.
 * @returns a function that closes the socket.
 */
export async function serveAdminSocket(dataDir: string, handler: AdminHandler): Promise<() => Promise<void>> {
  const file = socketPath(dataDir);
  if (existsSync(file)) unlinkSync(file); // left by a crashed server; we hold the directory lock
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', async () => {
      let outcome: AdminOutcome;
      try {
        const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
        outcome = await handler((req.url ?? '/').slice(1), body);
      } catch (err) {
        outcome = { ok: false, message: safeErrorMessage(err), exitCode: 1 };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(outcome));
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(file, resolve));
  // Only the service account may drive the store: other local users must not import or rotate keys.
  chmodSync(file, 0o600);
  return () => new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Sends a command to a running server's admin socket.
 * @param dataDir - the data directory (absolute path).
 * @param command - `import`, `keys/rotate`, `keys/activate-saml` or `migrate`.
 * @param payload - JSON payload.
 * @throws when no server answers on the socket.
 */
export function callAdminSocket(dataDir: string, command: string, payload: unknown): Promise<AdminOutcome> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath: socketPath(dataDir),
        path: `/${command}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminOutcome);
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(payload));
  });
}
