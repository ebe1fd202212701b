/** A real SMTP server (`smtp-server`) on 127.0.0.1 that keeps every mail it accepts, for the mail tests. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './receiver.js';

/** One accepted mail. */
export interface SmtpMail {
  /** Envelope recipients. */
  to: string[];
  /** The raw RFC 5322 message. */
  raw: string;
  /** The decoded plain-text body (quoted-printable and soft line breaks undone). */
  text: string;
  /** The `Subject` field. */
  subject: string;
}

/** A running SMTP server. */
export interface Smtp {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  mails: SmtpMail[];
  /** When set, a message is received in full and then refused with this reply code (e.g. 554). */
  refuseWith: number | null;
  /** Milliseconds to wait, after receiving a message, before answering the client (a slow relay). */
  delayMs: number;
  /** Mails to `to` so far. */
  mailsTo(to: string): SmtpMail[];
  /** Waits until `count` mails to `to` have arrived, then returns them (at most 20 s). */
  waitForMails(to: string, count: number): Promise<SmtpMail[]>;
  close(): Promise<void>;
}

/** Undoes quoted-printable (`=XX` and soft breaks) in a plain-text body. */
function decodeQuotedPrintable(body: string): string {
  return Buffer.from(
    body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

function parse(to: string[], raw: string): SmtpMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split);
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const qp = /^Content-Transfer-Encoding:\s*quoted-printable/im.test(head);
  const b64 = /^Content-Transfer-Encoding:\s*base64/im.test(head);
  const text = qp ? decodeQuotedPrintable(body) : b64 ? Buffer.from(body, 'base64').toString('utf8') : body;
  const subject = /^Subject: (.*)$/m.exec(head)?.[1]?.trim() ?? '';
  return { to, raw, text: text.replace(/\r\n/g, '\n'), subject };
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startSmtp(): Promise<Smtp> {
  const smtp: Smtp = {
    url: '',
    mails: [],
    refuseWith: null,
    delayMs: 0,
    mailsTo: (to) => smtp.mails.filter((m) => m.to.includes(to)),
    waitForMails: (to, count) =>
      waitFor(
        async () => smtp.mailsTo(to),
        (m) => m.length >= count,
      ),
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        smtp.mails.push(
          parse(
            session.envelope.rcptTo.map((r) => r.address),
            raw,
          ),
        );
        const refuse = smtp.refuseWith;
        setTimeout(() => {
          if (refuse) callback(Object.assign(new Error('message refused by the test relay'), { responseCode: refuse }));
          else callback();
        }, smtp.delayMs);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  smtp.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  smtp.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return smtp;
}
