/** The console's first page: the organisations where the signed-in user holds a role (docs/web.md "Console"). */
import { Layout } from '../shared/layout.js';

const ROLE_NAMES: Record<number, string> = { 1: 'Admin', 2: 'Dpo', 3: 'Developer', 4: 'Owner' };

/** The page; an account without any role is told so (403). */
export function ConsoleHome(props: { orgs: Array<{ id: string; name: string; roles: number[] }>; csrfToken: string }) {
  return (
    <Layout
      title="Organisations"
      app="Console"
      home="/console"
      csrfToken={props.csrfToken}
      signOutAction="/console/sign-out"
    >
      <h1>Organisations</h1>
      {props.orgs.length === 0 ? (
        <p class="error" role="alert">
          This account holds no role in any organisation. The console is for organisation staff; individuals manage
          their consents in the <a href="/dashboard">privacy dashboard</a>.
        </p>
      ) : (
        <ul>
          {props.orgs.map((o) => (
            <li key={o.id}>
              <a href={`/console/${o.id}/organisation`}>{o.name}</a>{' '}
              <span class="muted">({o.roles.map((r) => ROLE_NAMES[r] ?? String(r)).join(', ')})</span>
            </li>
          ))}
        </ul>
      )}
    </Layout>
  );
}
