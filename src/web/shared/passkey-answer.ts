/**
 * A passkey's answer as a web form carries it (docs/security.md "Passkeys"): the JSON text that the passkey script
 * (`passkey-script.ts`) puts into the form's `response` field, parsed for the WebAuthn verification.
 */

/**
 * The answer's object, or undefined for anything that is not a JSON object (which then fails to verify).
 * @param text - the field as sent; absent or empty is no answer.
 */
export function passkeyAnswer(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
