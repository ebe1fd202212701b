/**
 * A watch over the raw bytes of a `multipart/form-data` upload (RFC 7578; RFC 2046 §5.1.1 syntax),
 * beside the multipart reader, that refuses at once what the reader would wait on or read for
 * ever (ASVS 5.0 V5.2.1):
 * - a body larger than one image plus a few small fields (413);
 * - a preamble that does not reach the first boundary within a few KiB (413);
 * - a part without `Content-Disposition: form-data` (400; the reader skips such a part and, past
 *   16 KiB of it, never answers), or with a header block larger than a few KiB (400).
 * A refusal closes the connection, so the unread rest of the upload is never waited for.
 */
import type { Readable } from 'node:stream';
import { type AssentError, InvalidRequest, TooLarge } from '../../platform/core/errors.js';
import { MAX_IMAGE_BYTES } from './decode.js';

/** Bounds of the watch (bytes). */
export const FORM_BOUNDS = {
  /** The whole body: the image, its part headers and the few small fields of `UPLOAD_LIMITS`. */
  maxBytes: MAX_IMAGE_BYTES + 64 * 1024,
  /** Bytes before the first boundary (clients send none). */
  maxPreambleBytes: 4 * 1024,
  /** One part's header block. */
  maxHeaderBytes: 8 * 1024,
} as const;

// Threat: a refused upload's remaining bytes; the connection closes after the answer instead.
const CLOSE = { closeConnection: true };
const tooLarge = (message: string) => new TooLarge(message, CLOSE);
const malformed = (message: string) => new InvalidRequest(message, undefined, CLOSE);

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const DISPOSITION = /(?:^|\r\n)content-disposition[ \t]*:[ \t]*form-data(?:[ \t]*;|[ \t]*$|\r\n)/i;

/** Scans a multipart body chunk by chunk; `push` returns the first violation found. */
export class MultipartScanner {
  private state: 'preamble' | 'delimiter' | 'headers' | 'body' | 'epilogue' = 'preamble';
  // A virtual CRLF before the body, so that a first boundary at offset 0 matches the delimiter.
  private pending: Buffer = CRLF;
  private skipped = 0;
  private total = 0;
  private readonly delimiter: Buffer;

  /** @param boundary - the `boundary` parameter of the Content-Type. */
  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /**
   * @param chunk - the next bytes of the body.
   * @returns the error to answer with, or undefined while the body is acceptable so far.
   */
  push(chunk: Buffer): AssentError | undefined {
    this.total += chunk.length;
    if (this.total > FORM_BOUNDS.maxBytes) return tooLarge(`The image is larger than 5 MiB (${MAX_IMAGE_BYTES} bytes)`);
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      if (this.state === 'epilogue') {
        this.pending = Buffer.alloc(0);
        return undefined;
      }
      if (this.state === 'preamble' || this.state === 'body') {
        const at = buf.indexOf(this.delimiter);
        if (at < 0) {
          const keep = Math.min(buf.length, this.delimiter.length - 1);
          if (this.state === 'preamble') this.skipped += buf.length - keep;
          this.pending = buf.subarray(buf.length - keep);
          if (this.state === 'preamble' && this.skipped > FORM_BOUNDS.maxPreambleBytes)
            return tooLarge('The form does not reach its first boundary');
          return undefined;
        }
        if (this.state === 'preamble' && this.skipped + at > FORM_BOUNDS.maxPreambleBytes)
          return tooLarge('The form does not reach its first boundary');
        buf = buf.subarray(at + this.delimiter.length);
        this.state = 'delimiter';
        continue;
      }
      if (this.state === 'delimiter') {
        if (buf.length < 2) return this.wait(buf);
        if (buf[0] === 0x2d && buf[1] === 0x2d) {
          this.state = 'epilogue';
          continue;
        }
        const eol = buf.indexOf(CRLF);
        if (eol < 0) return buf.length > 1024 ? malformed('The multipart body is malformed') : this.wait(buf);
        buf = buf.subarray(eol + 2);
        this.state = 'headers';
        continue;
      }
      // headers
      if (buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a)
        return malformed('A form part has no Content-Disposition header');
      const end = buf.indexOf(HEADER_END);
      if (end < 0)
        return buf.length > FORM_BOUNDS.maxHeaderBytes
          ? malformed('A form part’s headers are too large')
          : this.wait(buf);
      if (end > FORM_BOUNDS.maxHeaderBytes) return malformed('A form part’s headers are too large');
      if (!DISPOSITION.test(buf.subarray(0, end + 2).toString('latin1')))
        return malformed('A form part has no Content-Disposition: form-data header');
      buf = buf.subarray(end + HEADER_END.length);
      this.state = 'body';
    }
  }

  private wait(buf: Buffer): undefined {
    this.pending = Buffer.from(buf);
    return undefined;
  }
}

/** The `boundary` parameter of a multipart Content-Type, or undefined (RFC 2046 §5.1.1). */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2];
}

/**
 * Watches `body` from now on (it must not have started flowing: call before the reader pipes it).
 * @param body - the raw request stream.
 * @param boundary - the form's boundary.
 * @returns `failed`, which rejects with the first violation (and never resolves), and `stop`.
 */
export function watchMultipart(body: Readable, boundary: string): { failed: Promise<never>; stop(): void } {
  const scanner = new MultipartScanner(boundary);
  let onData: (chunk: Buffer) => void = () => {};
  const failed = new Promise<never>((_resolve, reject) => {
    onData = (chunk) => {
      const err = scanner.push(chunk);
      if (err) {
        body.removeListener('data', onData);
        reject(err);
      }
    };
  });
  failed.catch(() => {}); // observed by the caller's race; never an unhandled rejection
  // Paused first, so that adding a listener does not start the flow before the reader pipes it.
  body.pause();
  body.on('data', onData);
  return { failed, stop: () => body.removeListener('data', onData) };
}
