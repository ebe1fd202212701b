/**
 * TypeBox schemas of a web front end's sign-in page (docs/web.md "Sign-in"): its query and its password form.
 * `next` is checked again by `safeNext` (open redirects); `organisation` offers that organisation's other ways.
 */
import { type Static, Type } from 'typebox';

const Organisation = Type.Optional(Type.String({ maxLength: 100 }));

/** The query of `GET {base}/sign-in`: `next` (≤ 500 characters) and `organisation` (an organisation ID, ≤ 100). */
export const SignInQuery = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 500 })),
  organisation: Organisation,
});
/** A sign-in page query. */
export type SignInQuery = Static<typeof SignInQuery>;

/**
 * The form of `POST {base}/sign-in`: `username` (≤ 320 characters), `password` (≤ 1024), and the page's
 * `next` and `organisation`, sent back as hidden fields.
 */
export const SignInForm = Type.Object({
  username: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  next: Type.Optional(Type.String({ maxLength: 500 })),
  organisation: Organisation,
});
/** A sign-in form. */
export type SignInForm = Static<typeof SignInForm>;

/** The form of `POST {base}/sign-in/second-factor`: the step's token, a TOTP or recovery code, and `next`. */
export const SecondFactorForm = Type.Object({
  mfa_token: Type.String({ minLength: 1, maxLength: 100 }),
  code: Type.Optional(Type.String({ maxLength: 20 })),
  recoverycode: Type.Optional(Type.String({ maxLength: 40 })),
  /** A passkey's answer instead of a code, as JSON text (the passkey script fills it in). */
  response: Type.Optional(Type.String({ maxLength: 20000 })),
  next: Type.Optional(Type.String({ maxLength: 500 })),
});

/** The form of `POST {base}/sign-in/passkey`: the passkey's answer (JSON text, from the passkey script) and `next`. */
export const PasskeyForm = Type.Object({
  response: Type.String({ minLength: 1, maxLength: 20000 }),
  next: Type.Optional(Type.String({ maxLength: 500 })),
});
