/**
 * Outgoing mail through nodemailer: to the SMTP relay of `SMTP_URL`, or, when none is set, into
 * the outbox folder `<ASSENT_DATA_DIR>/outbox` as one `.eml` file per message (RFC 5322), so that
 * the embedded default can run with no mail server (docs/decisions/0009-mail-without-a-relay.md, "Notification
 * transports").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';

/** One message. */
export interface Mail {
  /** Recipient address. */
  to: string;
  subject: string;
  /** Plain-text body. */
  text: string;
  /**
   * RFC 5322 Message-ID without angle brackets, e.g. `<job>.<user>@assent`. It is deterministic
   * per notification, so a message sent again after a crash carries the same ID and the outbox
   * overwrites rather than duplicates.
   */
  messageId: string;
  /** Extra header fields. */
  headers?: Record<string, string>;
}

/** Sends mail. */
export interface Mailer {
  /** `smtp` or `outbox`. */
  kind: 'smtp' | 'outbox';
  /**
   * Sends one message.
   * @throws the transport's error when the relay refuses it or cannot be reached (the caller retries).
   */
  send(mail: Mail): Promise<void>;
  /** Closes pooled SMTP connections. */
  close(): void;
}

/** The nodemailer message of `mail` from `from`: the same for both transports. */
function message(from: string, mail: Mail) {
  return {
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    messageId: `<${mail.messageId}>`,
    headers: mail.headers,
  };
}

/**
 * Creates the mailer of the configuration.
 * @param opts.smtpUrl - `smtp://` or `smtps://` URL, or undefined for the outbox.
 * @param opts.from - the `From` field.
 * @param opts.dataDir - the data directory holding `outbox/` (absolute path).
 */
export function createMailer(opts: { smtpUrl: string | undefined; from: string; dataDir: string }): Mailer {
  if (opts.smtpUrl) {
    const transport: Transporter = nodemailer.createTransport(opts.smtpUrl, { pool: true, maxConnections: 4 } as never);
    return {
      kind: 'smtp',
      async send(mail) {
        await transport.sendMail(message(opts.from, mail));
      },
      close: () => transport.close(),
    };
  }
  const outbox = path.join(opts.dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    async send(mail) {
      const info = await transport.sendMail(message(opts.from, mail));
      mkdirSync(outbox, { recursive: true, mode: 0o700 });
      // Mails hold personal data: readable by the service account only.
      writeFileSync(
        path.join(outbox, `${mail.messageId.replace(/[^A-Za-z0-9.@_-]/g, '_')}.eml`),
        info.message as Buffer,
        { mode: 0o600 },
      );
    },
    close: () => transport.close(),
  };
}
