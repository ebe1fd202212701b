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

/** The console's sections for one organisation, each shown to the roles that may read it. */
export function consoleNav(orgId: string, roles: readonly number[]) {
  const at = (path: string) => `/console/${orgId}${path}`;
  const items: Array<{ href: string; label: string; op: Operation }> = [
    { href: at('/organisation'), label: 'Organisation', op: 'purposes.list' },
    { href: at('/individuals'), label: 'Individuals', op: 'individuals.list' },
    { href: at('/consents'), label: 'Consent overview', op: 'consented.purpose.users' },
    { href: at('/requests'), label: 'Consent requests', op: 'jobs.read' },
    { href: at('/integrations'), label: 'Integrations', op: 'notifications.transports.read' },
    { href: at('/audit'), label: 'Audit log', op: 'orgs.audit-log.read' },
  ];
  return items.filter((i) => allows(roles, i.op)).map(({ href, label }) => ({ href, label }));
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
