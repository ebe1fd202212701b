/**
 * The access policy: one table naming, for every operation, which credential may call it.
 * The access-policy table of docs/access-policy.md is generated from this table (`npm run docs`).
 *
 * Credential kinds:
 * - `none`: no credential (logins, refresh, health, JWKS, the API description);
 * - `any`: a live access token or API key of any user (docs/api.md "Authentication"; docs/api.md "Authorization header");
 * - `session`: a live access token only; an API key is refused (operations that end a session or
 *   change a password);
 * - `web`: the pages of the web front ends (docs/web.md); the API's guard lets them through and the
 *   web guard (`src/web/shared/guard.ts`) checks the browser's session cookie and CSRF token instead.
 *
 * Every route names its operation in `config.operation`; a route without one fails the server's
 * start-up, so nothing is reachable by omission (ASVS 5.0 V8.1.1, deny by default).
 */

import { ORG_MANAGERS, ORG_STAFF, Role, type RoleId } from '../core/roles.js';
import { ADMIN_POLICY } from './policy-admin.js';
import { EVENTS_POLICY } from './policy-events.js';
import { FACTORS_POLICY } from './policy-factors.js';
import { WEB_POLICY } from './policy-web.js';

const { Owner, Admin, Dpo, Developer } = Role;

/** Readers of an individual's consent record; `consent/records/access.ts` decides per request. */
const SUBJECT_READ =
  "the individual; an API key of the organisation's Owner, Admin or Developer; Owner, Admin or Dpo (checked by the consent service)";
/** Writers of an individual's consent record; `consent/records/access.ts` decides per request. */
const SUBJECT_WRITE =
  "the individual; an API key of the organisation's Owner, Admin or Developer, for a subscribed individual (checked by the consent service)";

/** Readers of an individual's consent history; `consent/records/access.ts` decides per request. */
const HISTORY_READ = 'the individual, or the Dpo of the organisation (checked by the consent service)';

/** The credential an operation requires. */
export type Credential = 'none' | 'any' | 'session' | 'web';

/** One row of the policy. */
export interface PolicyRule {
  /** Who may call it. */
  credential: Credential;
  /** Who, in words, for docs/access-policy.md and the OpenAPI description. */
  who: string;
  /**
   * When set, the caller must hold one of these roles (1 Admin, 2 Dpo, 3 Developer, 4 Owner) in
   * the organisation of the path's `organizationID`; an unknown organisation is a 404.
   */
  orgRoles?: readonly RoleId[];
}

/** The access policy, by operation name. */
export const ACCESS_POLICY = {
  'health.live': { credential: 'none', who: 'anyone' },
  'health.ready': { credential: 'none', who: 'anyone' },
  'keys.jwks': { credential: 'none', who: 'anyone' },
  'docs.openapi': { credential: 'none', who: 'anyone' },
  'users.login': { credential: 'none', who: 'anyone with a username and password' },
  'users.login.old': { credential: 'none', who: 'anyone with a username and password' },
  'users.admin.login': { credential: 'none', who: 'a user holding at least one admin role (else 403)' },
  'users.token.refresh': { credential: 'none', who: 'the holder of a live refresh token, for its own client' },
  'users.logout': { credential: 'session', who: 'the signed-in user, for a refresh token of their own' },
  'organizations.roles.list': { credential: 'any', who: 'any signed-in user or API key' },
  'user.read': { credential: 'any', who: 'the signed-in user (their own record)' },
  'user.update': { credential: 'any', who: 'the signed-in user (their own record)' },
  'user.export': { credential: 'any', who: 'the signed-in user (their own data; the path names no user)' },
  'user.apikey.revoke': { credential: 'session', who: 'the signed-in user with an access token (their own API keys)' },
  'user.image.upload': {
    credential: 'any',
    who: 'the user themself (staff who may view the image get 403, anyone else 404; checked by the image service)',
  },
  'user.image.read': {
    credential: 'any',
    who: 'the user, or the Owner, Admin or Dpo of an organisation the user is subscribed to (anyone else 404; checked by the image service)',
  },
  'user.image.delete': {
    credential: 'any',
    who: 'the user themself (staff who may view the image get 403, anyone else 404; checked by the image service)',
  },
  'user.password.reset': {
    credential: 'session',
    who: 'the signed-in user with an access token, not an API key (their own password)',
  },
  'user.password.forgot': { credential: 'none', who: 'anyone (always 200; rate-limited per username and per IP)' },
  'user.password.forgot.complete': { credential: 'none', who: 'the holder of a live reset token from the mailed link' },
  'password.reset.page': { credential: 'none', who: 'anyone (the page of the mailed reset link)' },
  'purposes.create': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'purposes.list': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation',
    orgRoles: ORG_STAFF,
  },
  'purposes.read': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation',
    orgRoles: ORG_STAFF,
  },
  'purposes.update': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'purposes.delete': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'retention.read': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation',
    orgRoles: ORG_STAFF,
  },
  'retention.update': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'templates.create': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'templates.list': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation',
    orgRoles: ORG_STAFF,
  },
  'templates.update': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'templates.delete': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'consents.list': { credential: 'any', who: SUBJECT_READ },
  'consents.read': { credential: 'any', who: SUBJECT_READ },
  'consents.purpose.read': { credential: 'any', who: SUBJECT_READ },
  'consents.purpose.status.read': { credential: 'any', who: SUBJECT_READ },
  'consents.purpose.update': { credential: 'any', who: SUBJECT_WRITE },
  'consents.purpose.status.update': { credential: 'any', who: SUBJECT_WRITE },
  'consents.attribute.update': { credential: 'any', who: SUBJECT_WRITE },
  'consents.history.list': { credential: 'any', who: HISTORY_READ },
  'consents.history.receipt': { credential: 'any', who: HISTORY_READ },
  'consents.history.at': {
    credential: 'any',
    who: 'the individual named by `userid`, or the Dpo of the organisation (checked by the consent service)',
  },
  'consents.history.verify': {
    credential: 'any',
    who: 'Owner, Admin or Dpo of the organisation',
    orgRoles: [Owner, Admin, Dpo],
  },
  'consented.attribute.users': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation',
    orgRoles: ORG_STAFF,
  },
  'consented.purpose.users': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation',
    orgRoles: ORG_STAFF,
  },
  // Counts only, naming nobody: the staff who may list the consented users themselves (the rows above) may read them.
  'consents.overview': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation: counts of what the consented-user pages list (docs/api.md "Permissions and consents")',
    orgRoles: ORG_STAFF,
  },
  'consents.trend': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation: daily counts, naming nobody, as the overview',
    orgRoles: ORG_STAFF,
  },
  // Values of named individuals, as the consented-user pages name them: the same staff.
  'consents.check': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation: the values the consented-user pages list by (docs/api.md "Bulk consent check")',
    orgRoles: ORG_STAFF,
  },
  'consent.request.create': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'jobs.read': { credential: 'any', who: 'Owner, Admin or Dpo of the organisation', orgRoles: [Owner, Admin, Dpo] },
  // The change feed and the webhooks (docs/events.md), in policy-events.ts.
  ...EVENTS_POLICY,
  'notifications.transports.read': {
    credential: 'any',
    who: 'Owner or Admin of the organisation',
    orgRoles: ORG_MANAGERS,
  },
  'notifications.transports.update': {
    credential: 'any',
    who: 'Owner or Admin of the organisation',
    orgRoles: ORG_MANAGERS,
  },
  'notifications.webhook.attempts': {
    credential: 'any',
    who: 'Owner or Admin of the organisation',
    orgRoles: ORG_MANAGERS,
  },
  'users.anonymous.create': {
    credential: 'any',
    who: 'Owner, Admin or Developer of the organisation (token or API key)',
    orgRoles: [Owner, Admin, Developer],
  },
  'users.anonymous.upgrade': {
    credential: 'any',
    who: 'Owner, Admin or Developer of the organisation (token or API key), for an anonymous user subscribed to it',
    orgRoles: [Owner, Admin, Developer],
  },
  'users.unregister': { credential: 'session', who: 'the signed-in user with an access token (their own account)' },
  'individuals.list': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation',
    orgRoles: ORG_STAFF,
  },
  'individuals.count': {
    credential: 'any',
    who: 'Owner, Admin, Dpo or Developer of the organisation',
    orgRoles: ORG_STAFF,
  },
  'individuals.add': {
    credential: 'any',
    who: "the user themself, with their own ID (self-subscription); Owner or Admin of the organisation to create a user, or for a user already subscribed (anyone else's ID is a 404; checked by the individual service)",
  },
  'invitations.create': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'invitations.list': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'invitations.revoke': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  // Joining is the individual's own act: an API key (which an organisation's back end may hold) cannot accept for them.
  'user.invitations.accept': {
    credential: 'session',
    who: 'the invited person, signed in with their own access token (not an API key), holding the mailed token',
  },
  'invitation.page': { credential: 'none', who: 'anyone (the page of the mailed invitation link)' },
  'individuals.remove': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.idp.create': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.idp.update': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.idp.read': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.idp.delete': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.redirect-uri.read': {
    credential: 'any',
    who: 'Owner or Admin of the organisation',
    orgRoles: ORG_MANAGERS,
  },
  'federation.app-redirect-uris.read': {
    credential: 'any',
    who: 'Owner or Admin of the organisation',
    orgRoles: ORG_MANAGERS,
  },
  'federation.app-redirect-uris.update': {
    credential: 'any',
    who: 'Owner or Admin of the organisation',
    orgRoles: ORG_MANAGERS,
  },
  'federation.authorize': {
    credential: 'none',
    who: 'anyone (a browser starting a sign-in; the redirect URI must be registered)',
  },
  'federation.callback': {
    credential: 'none',
    who: 'anyone (the browser coming back from the provider; the state must be pending)',
  },
  'federation.exchange': { credential: 'none', who: 'anyone with a code (throttled per client IP like a login)' },
  'federation.logout': { credential: 'session', who: 'the signed-in user with an access token (their own session)' },
  'federation.saml.create': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.saml.update': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.saml.read': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.saml.delete': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'federation.saml.metadata': { credential: 'none', who: 'anyone (public SP metadata, like a JWKS)' },
  'federation.saml.authorize': {
    credential: 'none',
    who: 'anyone (a browser starting a sign-in; the redirect URI must be registered)',
  },
  'federation.saml.acs': {
    credential: 'none',
    who: 'anyone (the browser posting the IdP’s response; the RelayState must be pending)',
  },
  'federation.saml.logout': {
    credential: 'session',
    who: 'the signed-in user with an access token (their own session)',
  },
  'federation.saml.logout-callback': {
    credential: 'none',
    who: 'anyone (the browser carrying the IdP’s signed LogoutResponse or LogoutRequest)',
  },
  // Relying parties are a security setting like the IdP configuration: Owner or Admin only, reads included.
  'oidc.clients.create': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'oidc.clients.list': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'oidc.clients.read': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'oidc.clients.update': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'oidc.clients.secret.rotate': {
    credential: 'any',
    who: 'Owner or Admin of the organisation',
    orgRoles: ORG_MANAGERS,
  },
  'oidc.clients.delete': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'wallet.settings.read': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'wallet.settings.put': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'wallet.settings.delete': { credential: 'any', who: 'Owner or Admin of the organisation', orgRoles: ORG_MANAGERS },
  'wallet.oid4vp.request': { credential: 'none', who: 'a wallet holding the request_uri (once)' },
  'wallet.oid4vp.response': { credential: 'none', who: "a wallet answering a live transaction's request" },
  'oidc.provider': {
    credential: 'none',
    who: 'anyone: the OpenID provider (docs/api.md "Authorization endpoint") authenticates relying parties and individuals itself',
  },
  'oidc.wallet.page': { credential: 'none', who: 'the browser holding the interaction cookie' },
  'oidc.wallet.status': { credential: 'none', who: 'the browser holding the interaction cookie' },
  'oidc.wallet.refresh': { credential: 'none', who: 'the browser holding the interaction cookie' },
  'oidc.wallet.complete': { credential: 'none', who: 'the browser holding the interaction cookie' },
  'oidc.wallet.return': { credential: 'none', who: 'the wallet, in the browser holding the interaction cookie' },
  'oidc.wallet.abort': { credential: 'none', who: 'the browser holding the interaction cookie' },
  'oidc.wallet.asset': { credential: 'none', who: "anyone (the sign-in page's script and style)" },
  // The pages of the web front ends (docs/web.md), in policy-web.ts.
  ...WEB_POLICY,
  // The audit log and the staff (docs/audit.md, docs/staff.md), in policy-admin.ts.
  ...ADMIN_POLICY,
  // Second factors and re-authentication (docs/security.md), in policy-factors.ts.
  ...FACTORS_POLICY,
} as const satisfies Record<string, PolicyRule>;

/** An operation name of the policy. */
export type Operation = keyof typeof ACCESS_POLICY;

/** Route config carrying the operation name. */
export interface OperationConfig {
  operation?: Operation;
}
