/**
 * TypeBox schemas of the SAML 2.0 federation routes (docs/federation.md "SAML 2.0"): the assertion consumer's form,
 * the logout query and the single logout messages (SAML 2.0 Bindings §3.4 HTTP-Redirect, §3.5 HTTP-POST). The
 * path, tags, security and the authorize query are federation's shared ones (`../schemas.ts`).
 */
import { type Static, Type } from 'typebox';
import { MAX_RESPONSE_CHARS } from './broker.js';
import { MAX_LOGOUT_CHARS } from './logout-binding.js';

/**
 * The form of `POST …/idp/saml/acs` (HTTP-POST binding): the base64 `SAMLResponse` (1 to `MAX_RESPONSE_CHARS`
 * characters) and the `RelayState` Assent sent with its AuthnRequest (≤ 2000).
 */
export const AcsBody = Type.Object({
  SAMLResponse: Type.String({ minLength: 1, maxLength: MAX_RESPONSE_CHARS }),
  RelayState: Type.Optional(Type.String({ maxLength: 2000 })),
});
/** An assertion consumer form. */
export type AcsBody = Static<typeof AcsBody>;

/** The query of `POST …/idp/saml/logout`: where the browser returns after the IdP's logout (≤ 2000 characters). */
export const LogoutQuery = Type.Object({ redirect_uri: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })) });
/** A logout query. */
export type LogoutQuery = Static<typeof LogoutQuery>;

/** The fields of a logout message in either binding: a `SAMLRequest` or `SAMLResponse` (base64) and `RelayState`. */
const message = {
  SAMLRequest: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_LOGOUT_CHARS })),
  SAMLResponse: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_LOGOUT_CHARS })),
  RelayState: Type.Optional(Type.String({ maxLength: 2000 })),
};

/**
 * The query of `GET …/idp/saml/logout/callback` (HTTP-Redirect binding): the message's fields, and its `SigAlg` and
 * `Signature` (SAML 2.0 Bindings §3.4.4.1), checked against the query's octets as sent.
 */
export const LogoutRedirectQuery = Type.Object({
  ...message,
  SigAlg: Type.Optional(Type.String({ maxLength: 200 })),
  Signature: Type.Optional(Type.String({ maxLength: 2000 })),
});
/** A logout callback query. */
export type LogoutRedirectQuery = Static<typeof LogoutRedirectQuery>;

/** The form of `POST …/idp/saml/logout/callback` (HTTP-POST binding): the message's fields, signed inside the XML. */
export const LogoutPostBody = Type.Object(message);
/** A logout callback form. */
export type LogoutPostBody = Static<typeof LogoutPostBody>;

/** The 200 answer of the logout callback when there is no app URI to return to: whether the session ended. */
export const LoggedOutBody = Type.Object({ LoggedOut: Type.Boolean() });
/** A logged-out answer. */
export type LoggedOutBody = Static<typeof LoggedOutBody>;
