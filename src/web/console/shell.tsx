/** The console's navigation and shell (docs/web.md "Console"). */
import type { ComponentChildren } from 'preact';
import { ACCESS_POLICY, type Operation } from '../../platform/http/policy.js';
import { Layout } from '../shared/layout.js';

/**
 * Whether roles allow an API operation (its access-policy row's `orgRoles`): the console shows a
 * control only to those the API would let do it.
 */
export function allows(roles: readonly number[], operation: Operation): boolean {
  const rule = ACCESS_POLICY[operation];
  return 'orgRoles' in rule && roles.some((r) => (rule.orgRoles as readonly number[]).includes(r));
}

/**
 * Where the console's Integrations entry leads: the Integrations page for the roles that may read the notification
 * transports (Owner, Admin), else the event webhooks (Dpo, Developer read those: docs/events.md "Webhooks").
 */
export function integrationsHome(orgId: string, roles: readonly number[]): string {
  const path = allows(roles, 'notifications.transports.read') ? '' : '/events';
  return `/console/${orgId}/integrations${path}`;
}

/**
 * The Integrations section's own navigation (its pages the roles may read), shown when there are two to choose from.
 * @param current - the page's path among them; a webhook's page passes the event webhooks' path.
 */
export function IntegrationsNav({
  orgId,
  roles,
  current,
}: {
  orgId: string;
  roles: readonly number[];
  current: string;
}) {
  const base = `/console/${orgId}/integrations`;
  const items: Array<{ href: string; label: string; op: Operation }> = [
    { href: base, label: 'Transports and sign-in', op: 'notifications.transports.read' },
    { href: `${base}/events`, label: 'Event webhooks', op: 'webhooks.list' },
  ];
  const shown = items.filter((i) => allows(roles, i.op));
  if (shown.length < 2) return null;
  return (
    <nav class="sub" aria-label="Integrations">
      <ul>
        {shown.map((i) => (
          <li key={i.href}>
            <a href={i.href} aria-current={i.href === current ? 'page' : undefined}>
              {i.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The console's pages of the signed-in person, beside any organisation's: their organisations, their Security page. */
export const CONSOLE_USER_NAV = [
  { href: '/console', label: 'Organisations' },
  { href: '/console/security', label: 'Security' },
];

/** The console's sections for one organisation, each shown to the roles that may read it; then the person's Security. */
export function consoleNav(orgId: string, roles: readonly number[]) {
  const at = (path: string) => `/console/${orgId}${path}`;
  const items: Array<{ href: string; label: string; op: Operation }> = [
    { href: at('/organisation'), label: 'Organisation', op: 'purposes.list' },
    { href: at('/individuals'), label: 'Individuals', op: 'individuals.list' },
    { href: at('/consents'), label: 'Consent overview', op: 'consented.purpose.users' },
    { href: at('/requests'), label: 'Consent requests', op: 'jobs.read' },
    {
      href: integrationsHome(orgId, roles),
      label: 'Integrations',
      op: allows(roles, 'notifications.transports.read') ? 'notifications.transports.read' : 'webhooks.list',
    },
    { href: at('/staff'), label: 'Staff', op: 'orgs.admins.list' },
    { href: at('/audit'), label: 'Audit log', op: 'orgs.audit-log.read' },
  ];
  const shown = items.filter((i) => allows(roles, i.op)).map(({ href, label }) => ({ href, label }));
  return [...shown, CONSOLE_USER_NAV[1]!];
}

/** A signed-in console page of one organisation. */
export function ConsolePage(props: {
  title: string;
  orgId: string;
  orgName: string;
  roles: readonly number[];
  current: string;
  csrfToken: string;
  children: ComponentChildren;
}) {
  return (
    <Layout
      title={`${props.title} · ${props.orgName}`}
      app="Console"
      home="/console"
      nav={consoleNav(props.orgId, props.roles)}
      current={props.current}
      csrfToken={props.csrfToken}
      signOutAction="/console/sign-out"
    >
      <p class="muted">{props.orgName}</p>
      <h1>{props.title}</h1>
      {props.children}
    </Layout>
  );
}
