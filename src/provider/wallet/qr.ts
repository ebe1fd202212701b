/**
 * The QR code of a wallet request (docs/wallet.md "The sign-in page"), shared by
 * the OpenID provider's wallet page (src/provider/openid/page.ts) and the privacy dashboard's wallet
 * sign-in (src/web/dashboard/wallet-sign-in.tsx).
 */

/**
 * The request as an inline SVG QR code: paths only (no script, style or link), so it is safe to
 * inline under a page's CSP without a `data:` URL.
 * @param deepLink - the OpenID4VP request (`openid4vp://…`).
 * @returns the `<svg>` element's markup.
 */
export async function qrSvg(deepLink: string): Promise<string> {
  // One byte-mode segment (ISO/IEC 18004 §7.4.5): a percent-encoded deep link is byte mode anyway,
  // and it spares qrcode's search for the shortest mix of modes (2.5 → 1 ms a page, the same QR version).
  const segments = [{ data: Buffer.from(deepLink, 'utf8'), mode: 'byte' as const }];
  // Loaded with the first QR code, not at start-up (a process that draws none need not load it).
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(segments, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
