/**
 * The device kinds of `User.Client.Type` (the User of docs/api.md "Resources": `Client` is `{Token, Type}`, Type an
 * integer). The values are those of the iGrant.io API that the deployed SDKs were written against:
 * 1 is an iOS device, 2 an Android device; 0 (the default) is no device. `PATCH {base}/user` also
 * takes the kind by name, without regard to case (`ios`/`apns`/`iphone`/`ipad` → 1,
 * `android`/`fcm`/`gcm`/`firebase` → 2) or as a decimal string, and stores the integer
 * (docs/notifications.md "Mobile push").
 */

/** `Client.Type` of an iOS device (integer). */
export const CLIENT_TYPE_IOS = 1;
/** `Client.Type` of an Android device (integer). */
export const CLIENT_TYPE_ANDROID = 2;

const NAMES: Record<string, number> = {
  ios: CLIENT_TYPE_IOS,
  apns: CLIENT_TYPE_IOS,
  iphone: CLIENT_TYPE_IOS,
  ipad: CLIENT_TYPE_IOS,
  android: CLIENT_TYPE_ANDROID,
  fcm: CLIENT_TYPE_ANDROID,
  gcm: CLIENT_TYPE_ANDROID,
  firebase: CLIENT_TYPE_ANDROID,
};

/**
 * The integer `Client.Type` of what a client sent.
 * @param value - an integer 0–100, a decimal string of one, or a device name above.
 * @returns the integer, or null when `value` names no device kind (the caller answers 400).
 */
export function clientTypeOf(value: number | string): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 100 ? value : null;
  const text = value.trim().toLowerCase();
  if (/^\d{1,3}$/.test(text)) return clientTypeOf(Number(text));
  return NAMES[text] ?? null;
}
