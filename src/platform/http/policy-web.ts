/**
 * The access-policy rows of the web front ends' pages (docs/web.md), spread into `ACCESS_POLICY`
 * (src/platform/http/policy.ts), whose header explains the credential kinds. A console page names, in its
 * route's `api`, the JSON API operation whose `orgRoles` the web guard applies (src/web/shared/guard.ts);
 * its row here says so in words, for docs/access-policy.md.
 */

import type { PolicyRule } from './policy.js';

/** The rows of the web front ends' pages and files, by operation name. */
export const WEB_POLICY = {
  'web.asset': { credential: 'none', who: "anyone (the web front ends' scripts and stylesheet)" },
  'web.dashboard.sign-in.page': { credential: 'web', who: 'anyone' },
  'web.dashboard.sign-in': { credential: 'web', who: 'anyone, from this origin' },
  'web.dashboard.sign-in.second-factor': {
    credential: 'web',
    who: 'the holder of a live second step of a password sign-in, from this origin',
  },
  'web.dashboard.sign-in.idp': {
    credential: 'web',
    who: "anyone: starts the organisation's external OpenID provider sign-in (the broker's rate limit)",
  },
  'web.dashboard.sign-in.idp.callback': {
    credential: 'web',
    who: 'the browser that started the sign-in (its binding cookie must match `state`)',
  },
  'web.dashboard.sign-in.wallet': { credential: 'web', who: 'anyone: starts a wallet transaction for this browser' },
  'web.dashboard.sign-in.wallet.status': { credential: 'web', who: 'the browser holding the transaction’s cookie' },
  'web.dashboard.sign-in.wallet.complete': {
    credential: 'web',
    who: 'the browser holding the transaction’s cookie, from this origin',
  },
  'web.dashboard.sign-in.wallet.return': {
    credential: 'web',
    who: 'the browser holding the transaction’s cookie, with the wallet’s `response_code`',
  },
  'web.dashboard.home': { credential: 'web', who: 'a signed-in browser' },
  'web.dashboard.sign-out': { credential: 'web', who: 'a signed-in browser, with its CSRF token' },
  'web.dashboard.consents': { credential: 'web', who: 'a signed-in browser: the individual’s own consents' },
  'web.dashboard.consent.update': {
    credential: 'web',
    who: 'a signed-in browser, with its CSRF token: the individual’s own consents',
  },
  'web.dashboard.history': { credential: 'web', who: 'a signed-in browser: the individual’s own history' },
  'web.dashboard.receipt': { credential: 'web', who: 'a signed-in browser: the individual’s own receipts' },
  'web.dashboard.data': { credential: 'web', who: 'a signed-in browser: the individual’s own profile' },
  'web.dashboard.export': { credential: 'web', who: 'a signed-in browser: the individual’s own data' },
  'web.dashboard.profile.update': { credential: 'web', who: 'a signed-in browser, with its CSRF token' },
  'web.dashboard.image.upload': { credential: 'web', who: 'a signed-in browser, with its CSRF token in the form' },
  'web.dashboard.image': { credential: 'web', who: 'a signed-in browser: the individual’s own image' },
  'web.dashboard.password.update': { credential: 'web', who: 'a signed-in browser, with its CSRF token' },
  'web.dashboard.delete.page': { credential: 'web', who: 'a signed-in browser' },
  'web.dashboard.delete': { credential: 'web', who: 'a signed-in browser, with its CSRF token' },
  'web.console.sign-in.page': { credential: 'web', who: 'anyone' },
  'web.console.sign-in': { credential: 'web', who: 'anyone, from this origin' },
  'web.console.sign-in.second-factor': {
    credential: 'web',
    who: 'the holder of a live second step of a password sign-in, from this origin',
  },
  'web.console.sign-out': { credential: 'web', who: 'a signed-in browser, with its CSRF token' },
  'web.console.home': {
    credential: 'web',
    who: 'a signed-in browser (the organisations where the user holds a role; none: 403)',
  },
  'web.console.org': { credential: 'web', who: 'a signed-in browser with the roles of `purposes.list`' },
  'web.console.organisation': { credential: 'web', who: 'a signed-in browser with the roles of `purposes.list`' },
  'web.console.retention.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `retention.update`',
  },
  'web.console.purposes.create': { credential: 'web', who: 'a signed-in browser with the roles of `purposes.create`' },
  'web.console.purposes.update': { credential: 'web', who: 'a signed-in browser with the roles of `purposes.update`' },
  'web.console.purposes.delete': { credential: 'web', who: 'a signed-in browser with the roles of `purposes.delete`' },
  'web.console.attributes.create': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `templates.create`',
  },
  'web.console.attributes.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `templates.update`',
  },
  'web.console.attributes.delete': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `templates.delete`',
  },
  'web.console.requests': { credential: 'web', who: 'a signed-in browser with the roles of `jobs.read`' },
  'web.console.requests.create': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `consent.request.create`',
  },
  'web.console.requests.job': { credential: 'web', who: 'a signed-in browser with the roles of `jobs.read`' },
  'web.console.requests.progress': { credential: 'web', who: 'a signed-in browser with the roles of `jobs.read`' },
  'web.console.integrations': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `notifications.transports.read` (each section: its API read)',
  },
  'web.console.transports.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `notifications.transports.update`',
  },
  'web.console.push.fcm.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `notifications.transports.update`',
  },
  'web.console.push.fcm.delete': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `notifications.transports.update`',
  },
  'web.console.push.apns.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `notifications.transports.update`',
  },
  'web.console.push.apns.delete': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `notifications.transports.update`',
  },
  'web.console.app-redirect-uris.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `federation.app-redirect-uris.update`',
  },
  'web.console.idp.create': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `federation.idp.create`',
  },
  'web.console.idp.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `federation.idp.update`',
  },
  'web.console.idp.delete': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `federation.idp.delete`',
  },
  'web.console.wallet.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `wallet.settings.put`',
  },
  'web.console.wallet.delete': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `wallet.settings.delete`',
  },
  'web.console.relying-parties.create': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `oidc.clients.create`',
  },
  'web.console.relying-parties.delete': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `oidc.clients.delete`',
  },
  'web.console.webhooks': { credential: 'web', who: 'a signed-in browser with the roles of `webhooks.list`' },
  'web.console.webhooks.create': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `webhooks.create`',
  },
  'web.console.webhook': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `webhooks.read` (its deliveries: `webhooks.deliveries`)',
  },
  'web.console.webhooks.update': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `webhooks.update`',
  },
  'web.console.webhooks.delete': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `webhooks.delete`',
  },
  'web.console.webhooks.secret.rotate': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `webhooks.secret.rotate`',
  },
  'web.console.webhooks.ping': { credential: 'web', who: 'a signed-in browser with the roles of `webhooks.ping`' },
  'web.console.webhooks.redeliver': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `webhooks.redeliver`',
  },
  'web.console.consents': { credential: 'web', who: 'a signed-in browser with the roles of `consents.overview`' },
  'web.console.consents.users': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `consented.purpose.users`',
  },
  'web.console.audit': { credential: 'web', who: 'a signed-in browser with the roles of `orgs.audit-log.read`' },
  'web.console.audit.export': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `orgs.audit-log.export`',
  },
  'web.console.individuals': { credential: 'web', who: 'a signed-in browser with the roles of `individuals.list`' },
  'web.console.individual': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `individuals.list`; the record as `consents.read`, the history as `consents.history.list` (checked by the consent service)',
  },
  'web.console.individuals.add': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `individuals.list`; creating as `individuals.add`: Owner or Admin (checked by the individual service)',
  },
  'web.console.individuals.remove': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `individuals.remove`',
  },
  'web.console.staff': { credential: 'web', who: 'a signed-in browser with the roles of `orgs.admins.list`' },
  'web.console.staff.invite': { credential: 'web', who: 'a signed-in browser with the roles of `orgs.admins.invite`' },
  'web.console.staff.update': { credential: 'web', who: 'a signed-in browser with the roles of `orgs.admins.update`' },
  'web.console.staff.remove': { credential: 'web', who: 'a signed-in browser with the roles of `orgs.admins.remove`' },
  'web.console.staff.policy': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `orgs.staff-policy.update`',
  },
  'web.console.staff.revoke': {
    credential: 'web',
    who: 'a signed-in browser with the roles of `orgs.admins.invitations.revoke`',
  },
} as const satisfies Record<string, PolicyRule>;
