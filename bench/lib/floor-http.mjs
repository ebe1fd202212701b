/**
 * The HTTP side shared by the floor servers (floor-server.mjs for logins, wallet-floor-server.mjs
 * for wallet responses): `GET /readyz`, every other request's body read whole and handed to
 * `handle`, and SIGTERM closing the server and the database pool. What a floor measures is in its
 * `handle`; this part is kept as small as an HTTP endpoint can be.
 */
import http from 'node:http';

/**
 * Serves on `PORT` (and `HOST`, default 127.0.0.1) until SIGTERM.
 * @param handle - the request body (UTF-8) → `{status, body}` (body an object, sent as JSON); a
 *   rejection → `failStatus` with `{error}` (the error's `reason` or message).
 * @param failStatus - the status of a failed request (e.g. 400 or 500).
 * @param pool - a `pg` pool to end on SIGTERM, when the floor has one.
 */
export function serveFloor(handle, failStatus, pool) {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/readyz') {
      res.end('ok');
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      handle(body).then(
        (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer.body));
        },
        (err) => {
          res.writeHead(failStatus, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: String(err.reason ?? err.message) }));
        },
      );
    });
  });
  server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    Promise.resolve(pool?.end()).finally(() => process.exit(0));
  });
}
