/** Raw HTTP/1.1 over a loopback socket, for requests `fetch` refuses to send (bad URLs, slow or malformed bodies). */
import net from 'node:net';

/** What came back on the socket. */
export interface RawAnswer {
  /** HTTP status of the first answer, or 0 when none came. */
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The body as text (Content-Length bytes, or all until close). */
  body: string;
  /** Whether the server closed the socket before `waitMs` ran out. */
  closed: boolean;
  /** Milliseconds from the first byte sent to the end of the answer (close or timeout). */
  ms: number;
}

/**
 * Sends `chunks` to `url`'s host and port (string chunks as latin1), `gapMs` apart, and reads the
 * answer until the server closes the socket, a complete answer has arrived, or `waitMs` passes.
 * @param url - origin, e.g. http://127.0.0.1:8080.
 * @param chunks - the raw request, in pieces.
 */
export async function rawRequest(
  url: string,
  chunks: (string | Buffer)[],
  opts: { gapMs?: number; waitMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const started = Date.now();
  let received = Buffer.alloc(0);
  let closed = false;
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, opts.waitMs ?? 5000);
    socket.on('data', (d) => {
      received = Buffer.concat([received, d]);
      if (complete(received)) {
        clearTimeout(timer);
        setTimeout(resolve, 300); // time for the server to close the socket, when it does
      }
    });
    socket.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve();
    });
    socket.on('error', () => {});
  });
  void (async () => {
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0 && opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      if (socket.destroyed) return;
      socket.write(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk);
    }
  })();
  await done;
  const ms = Date.now() - started;
  socket.destroy();
  return { ...parse(received), closed, ms };
}

function split(data: Buffer): { head: string; rest: Buffer } | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  return { head: data.subarray(0, end).toString('latin1'), rest: data.subarray(end + 4) };
}

function complete(data: Buffer): boolean {
  const parts = split(data);
  if (!parts) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(parts.head);
  return length ? parts.rest.length >= Number(length[1]) : false;
}

function parse(data: Buffer): Omit<RawAnswer, 'closed' | 'ms'> {
  const parts = split(data);
  if (!parts) return { status: 0, headers: {}, body: '' };
  const [statusLine, ...lines] = parts.head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'] === undefined ? parts.rest.length : Number(headers['content-length']);
  return {
    status: Number(statusLine?.split(' ')[1] ?? 0),
    headers,
    body: parts.rest.subarray(0, length).toString('utf8'),
  };
}
