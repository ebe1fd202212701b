/**
 * TypeBox schemas of the password routes (docs/api.md "User management"): the bodies of the reset, the forgot
 * request and its completion, and the forgot request's answer.
 */
import { type Static, Type } from 'typebox';
import { MAX_PASSWORD_INPUT } from './policy.js';

const POLICY =
  'NIST SP 800-63B policy: 8 to 128 characters (Unicode code points after NFKC normalisation), ' +
  'any characters, no composition rules, not in the list of common or breached passwords, ' +
  'not the username. A refusal is a 400 whose Message names the rule.';
const NewPassword = Type.String({ maxLength: MAX_PASSWORD_INPUT, format: 'password', description: POLICY });

/** The answer of `PUT …/user/password/forgot`: `{"msg": …}`, the same text whether or not the account exists. */
export const ForgotAnswer = Type.Object({
  msg: Type.String({ description: 'the same text whether or not the account exists' }),
});
/** A forgot request's answer. */
export type ForgotAnswer = Static<typeof ForgotAnswer>;

/**
 * The body of `POST|PUT …/user/password/reset`: the new `password` (NIST SP 800-63B policy, at most
 * `MAX_PASSWORD_INPUT` characters) and optionally the `currentpassword`, which must then be right (else 400).
 */
export const ResetBody = Type.Object({
  password: NewPassword,
  currentpassword: Type.Optional(
    Type.String({
      maxLength: MAX_PASSWORD_INPUT,
      format: 'password',
      description: 'the current password; optional, and when sent it must be right (else 400)',
    }),
  ),
});
/** A password reset body. */
export type ResetBody = Static<typeof ResetBody>;

/** The body of `PUT …/user/password/forgot`: the `username` (≤ 320 characters; without it the route answers 400). */
export const ForgotBody = Type.Object({
  username: Type.Optional(
    Type.String({ maxLength: 320, description: 'required in practice: a body without it is a 400' }),
  ),
});
/** A forgot request body. */
export type ForgotBody = Static<typeof ForgotBody>;

/**
 * The body of `POST …/user/password/forgot/complete`: the reset link's `token` (1 to 256 characters, from the
 * link's fragment) and the new `password` (NIST SP 800-63B policy).
 */
export const CompleteBody = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'the `token` of the reset link’s fragment (`/password/reset#token=…`)',
  }),
  password: NewPassword,
});
/** A forgot completion body. */
export type CompleteBody = Static<typeof CompleteBody>;
