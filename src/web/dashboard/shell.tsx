/** The dashboard's navigation and shell (docs/web.md "Privacy dashboard"). */
import type { ComponentChildren } from 'preact';
import { Layout } from '../shared/layout.js';

/** The dashboard's pages, in navigation order. */
export const DASHBOARD_NAV = [
  { href: '/dashboard/consents', label: 'My consents' },
  { href: '/dashboard/history', label: 'History' },
  { href: '/dashboard/data', label: 'My data' },
  { href: '/dashboard/security', label: 'Security' },
];

/** A signed-in dashboard page. */
export function DashboardPage(props: {
  title: string;
  current: string;
  csrfToken: string;
  children: ComponentChildren;
}) {
  return (
    <Layout
      title={props.title}
      app="Privacy dashboard"
      home="/dashboard"
      nav={DASHBOARD_NAV}
      current={props.current}
      csrfToken={props.csrfToken}
      signOutAction="/dashboard/sign-out"
    >
      <h1>{props.title}</h1>
      {props.children}
    </Layout>
  );
}
