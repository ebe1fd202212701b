/** TypeBox schemas of the second-factor routes (docs/api.md "Second factor"; docs/security.md). */
import { Type } from 'typebox';
import { MAX_PASSWORD_INPUT } from '../passwords/policy.js';

/** A TOTP code as typed: six digits, spaces allowed. */
const Code = Type.String({ maxLength: 20, description: 'six digits of the authenticator app' });
/** A recovery code as typed (`xxxxx-xxxxx`). */
const RecoveryCode = Type.String({ maxLength: 40, description: 'one of the ten recovery codes' });

/** The second factors of the signed-in person. */
export const FactorStatus = Type.Object({
  TOTP: Type.Object({
    Enabled: Type.Boolean(),
    Since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
  RecoveryCodesLeft: Type.Integer({ description: 'unused recovery codes' }),
});

/** The start of a TOTP enrolment. */
export const TotpEnrolment = Type.Object({
  Secret: Type.String({ description: 'base32, for typing into the app' }),
  URI: Type.String({ description: 'the otpauth:// URI the QR code holds' }),
  QRCodeSVG: Type.String({ description: 'the QR code as an SVG document' }),
});

/** Ten recovery codes, shown this once. */
export const RecoveryCodes = Type.Object({ RecoveryCodes: Type.Array(Type.String()) });

/** The body of the enrolment's confirmation. */
export const ConfirmBody = Type.Object({ code: Code });

/** A password, and a code when the person has a second factor. */
export const ReauthBody = Type.Object({
  password: Type.String({ maxLength: MAX_PASSWORD_INPUT }),
  code: Type.Optional(Code),
  recoverycode: Type.Optional(RecoveryCode),
});

/** A passkey's answer (WebAuthn `AuthenticationResponseJSON`), to options of `…/login/mfa/passkey-options`. */
const PasskeyAnswer = Type.Object({}, { additionalProperties: true, description: 'a passkey’s answer (JSON)' });

/** The second step of a login: its token and a TOTP code, a recovery code or a passkey's answer. */
export const MfaLoginBody = Type.Object({
  mfa_token: Type.String({ minLength: 1, maxLength: 100, description: 'from the login’s 401 answer' }),
  code: Type.Optional(Code),
  recoverycode: Type.Optional(RecoveryCode),
  passkey: Type.Optional(PasskeyAnswer),
});
