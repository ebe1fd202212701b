/**
 * TypeBox schemas of the privacy dashboard's pages and its sign-in ways (docs/web.md "Privacy dashboard",
 * "Sign-in"): the paths, queries and forms of its routes. A form carries the CSRF field the web guard checks.
 */
import { type Static, Type } from 'typebox';

/** The CSRF field of a dashboard form (checked by the web guard), to spread into a form's fields. */
const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 100 })) };
/** An optional text field of at most `max` characters. */
const Str = (max: number) => Type.Optional(Type.String({ maxLength: max }));

/** The path of `POST /dashboard/consents/{organizationID}/{purposeID}/{attributeID}`: the attribute to change. */
export const ConsentParams = Type.Object({
  organizationID: Type.String(),
  purposeID: Type.String(),
  attributeID: Type.String(),
});
/** A consent change's path. */
export type ConsentParams = Static<typeof ConsentParams>;

/**
 * The consent form of one attribute: `consented` (Allow, Disallow or AskMe, ≤ 20 characters; the API's rule
 * reads it) and `days`, the AskMe period (0 to 4 digits).
 */
export const ConsentForm = Type.Object({
  ...Csrf,
  consented: Type.Optional(Type.String({ maxLength: 20 })),
  days: Type.Optional(Type.String({ pattern: '^[0-9]{0,4}$', description: 'days' })),
});
/** A consent form. */
export type ConsentForm = Static<typeof ConsentForm>;

/** The query of `GET /dashboard/history`: the organisation filter `org` (≤ 100) and the page's `startid` (≤ 20). */
export const HistoryQuery = Type.Object({
  org: Type.Optional(Type.String({ maxLength: 100 })),
  startid: Type.Optional(Type.String({ maxLength: 20 })),
});
/** A history page query. */
export type HistoryQuery = Static<typeof HistoryQuery>;

/** The path of `GET /dashboard/history/{organizationID}/{eventID}/receipt`: the consent event whose receipt. */
export const ReceiptParams = Type.Object({ organizationID: Type.String(), eventID: Type.String() });
/** A receipt's path. */
export type ReceiptParams = Static<typeof ReceiptParams>;

/** The profile form: `name` (≤ 200 characters) and `phone` (≤ 40). */
export const ProfileForm = Type.Object({
  ...Csrf,
  name: Type.String({ maxLength: 200 }),
  phone: Type.String({ maxLength: 40 }),
});
/** A profile form. */
export type ProfileForm = Static<typeof ProfileForm>;

/** The password form: `currentpassword` and the new `password` (each ≤ 1024 characters; the API's policy applies). */
export const PasswordForm = Type.Object({
  ...Csrf,
  currentpassword: Type.String({ maxLength: 1024 }),
  password: Type.String({ maxLength: 1024 }),
});
/** A password form. */
export type PasswordForm = Static<typeof PasswordForm>;

/** The account deletion form: `confirm` (≤ 20 characters) must be `DELETE`, else a 400 page and nothing changes. */
export const DeleteForm = Type.Object({ ...Csrf, confirm: Type.String({ maxLength: 20 }) });
/** An account deletion form. */
export type DeleteForm = Static<typeof DeleteForm>;

/**
 * The query of a sign-in way's start (`GET /dashboard/sign-in/idp`, `GET /dashboard/sign-in/wallet` and its
 * status): the `organisation` (an ID, ≤ 100 characters) and `next` (≤ 500; checked again by `safeNext`).
 */
export const SignInWayQuery = Type.Object({ organisation: Type.String({ maxLength: 100 }), next: Str(500) });
/** A sign-in way's query. */
export type SignInWayQuery = Static<typeof SignInWayQuery>;

/**
 * The query of the broker's redirect to `GET /dashboard/sign-in/idp/callback` (RFC 6749, 4.1.2 and
 * 4.1.2.1): `code` or `error` and `error_description`, with `state`.
 */
export const IdpCallbackQuery = Type.Object({
  code: Str(4000),
  state: Str(500),
  error: Str(200),
  error_description: Str(2000),
});
/** An external provider callback's query. */
export type IdpCallbackQuery = Static<typeof IdpCallbackQuery>;

/** The path of the wallet's same-device return: the organisation and the transaction's `handle` (each ≤ 100). */
export const WalletReturnParams = Type.Object({
  organizationID: Type.String({ maxLength: 100 }),
  handle: Type.String({ maxLength: 100 }),
});
/** A wallet return's path. */
export type WalletReturnParams = Static<typeof WalletReturnParams>;

/** The query of the wallet's same-device return: `next` (≤ 500) and the verifier's `response_code` (≤ 200). */
export const WalletReturnQuery = Type.Object({ next: Str(500), response_code: Type.String({ maxLength: 200 }) });
/** A wallet return's query. */
export type WalletReturnQuery = Static<typeof WalletReturnQuery>;
