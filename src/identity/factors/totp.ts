/**
 * TOTP (RFC 6238) through otplib, with the parameters every authenticator app reads (SHA-1, 6 digits, 30-second
 * steps), and the enrolment's QR code drawn by Assent itself as SVG (the `qrcode` package), so that the secret never
 * reaches a third-party service (docs/security.md "Second factors").
 */
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/** Seconds per time step (RFC 6238 §4.1 X; the apps' default). */
export const TOTP_PERIOD_SECONDS = 30;
/** Seconds of clock skew accepted each way: one step (RFC 6238 §5.2 recommends at most one). */
const SKEW_SECONDS = TOTP_PERIOD_SECONDS;

/** A new secret: 20 random bytes (160 bits, RFC 4226 §4 R6), base32 without padding. */
export function newTotpSecret(): string {
  return generateSecret();
}

/**
 * The `otpauth://` URI an authenticator app reads (Key Uri Format, Google Authenticator).
 * @param issuer - shown by the app (the service's name).
 * @param label - the account, shown by the app.
 */
export function totpUri(issuer: string, label: string, secret: string): string {
  return generateURI({ issuer, label, secret });
}

/** The QR code of a URI as an SVG document (text), black on white, error correction M. */
export function qrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/**
 * Checks a code against a secret, within one step of skew, accepting only a step after `afterStep` (a code is used
 * once: RFC 6238 §5.2).
 * @param code - six digits as typed (spaces ignored).
 * @param afterStep - the last step already used (0 for none).
 * @returns the code's time step, or null when it does not match or its step was used.
 */
export async function checkTotp(secret: string, code: string, afterStep: number): Promise<number | null> {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const result = await verify({
    secret,
    token,
    epochTolerance: SKEW_SECONDS,
    ...(afterStep > 0 ? { afterTimeStep: afterStep } : {}),
  });
  // The TOTP strategy's result carries the step (otplib types the HOTP one beside it).
  return result.valid ? (result as { timeStep: number }).timeStep : null;
}
