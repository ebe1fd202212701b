/**
 * The console's individuals page (docs/web.md "Console"): the organisation's subscribed individuals,
 * searched by name or e-mail, in keyset pages of the API's list, with their count; and, for those
 * the API lets create individuals (Owner, Admin), the form that adds one.
 */
import type { ComponentChildren } from 'preact';
import { MAX_PASSWORD_INPUT } from '../../identity/index.js';
import type { IndividualBody } from '../../organisations/index.js';
import { FormError, type RefusedForm, shown, TextField } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import { ConsolePage } from './shell.js';

/** What every individuals page shows around its content. */
export interface IndividualsBase {
  orgId: string;
  orgName: string;
  /** The signed-in user's RoleIDs in the organisation. */
  roles: readonly number[];
  csrfToken: string;
  /** The message of a change just made, if any. */
  done?: string;
}

/** What the page shows. */
export interface IndividualsProps extends IndividualsBase {
  /** This page of individuals, in user-ID order. */
  users: IndividualBody[];
  /** The next page's `startid`, when another page exists. */
  next?: string;
  /** How many individuals are subscribed (all of them, whatever the search). */
  count: number;
  /** The search text ('' for none). */
  search: string;
  /** The page size as asked (`limit`), kept in the next page's link. */
  limit?: string;
  /** Whether the add form is shown (the roles `individuals.add` lets create). */
  canAdd: boolean;
  /** The add form as just refused: what was typed (never the password) and the error by its field. */
  refused?: RefusedForm;
}

/** The console page of the individuals section, with the message of a change just made. */
export function IndividualsShell(props: { base: IndividualsBase; title: string; children: ComponentChildren }) {
  const { base } = props;
  return (
    <ConsolePage
      title={props.title}
      orgId={base.orgId}
      orgName={base.orgName}
      roles={base.roles}
      current={`/console/${base.orgId}/individuals`}
      csrfToken={base.csrfToken}
    >
      {base.done && (
        <p class="ok" role="status">
          {base.done}
        </p>
      )}
      {props.children}
    </ConsolePage>
  );
}

/** The list page's URL with a query. */
function listUrl(base: string, query: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}

function AddForm({ action, csrfToken, refused }: { action: string; csrfToken: string; refused?: RefusedForm }) {
  const field = (id: string, name: string, label: string, maxLength: number, type: 'text' | 'email' | 'tel') => (
    <TextField
      id={id}
      name={name}
      label={label}
      type={type}
      maxLength={maxLength}
      required={name === 'username'}
      autocomplete="off"
      value={shown(refused, name, '')}
      refused={refused}
    />
  );
  return (
    <section class="card" aria-labelledby="add-individual">
      <h2 id="add-individual">Add an individual</h2>
      <form method="post" action={action}>
        <FormError refused={refused} />
        <Csrf token={csrfToken} />
        {field('new-username', 'username', 'Username (what they sign in with)', 254, 'text')}
        {field('new-name', 'name', 'Name', 200, 'text')}
        {field('new-email', 'email', 'E-mail', 254, 'email')}
        {field('new-phone', 'phone', 'Phone', 40, 'tel')}
        {/* Write-only: never filled in again, even when the form was refused. */}
        <TextField
          id="new-password"
          name="password"
          label="Password"
          type="password"
          maxLength={MAX_PASSWORD_INPUT}
          autocomplete="new-password"
          hint="new-password-hint"
          value=""
          refused={refused}
        />
        <p id="new-password-hint" class="muted">
          Optional. Empty: they cannot sign in with a password. Otherwise 8 to 128 characters, not a common password.
        </p>
        <p>
          <button type="submit">Add individual</button>
        </p>
      </form>
    </section>
  );
}

/** The page. */
export function IndividualsPage(props: IndividualsProps) {
  const base = `/console/${props.orgId}/individuals`;
  const { users, search } = props;
  return (
    <IndividualsShell base={props} title="Individuals">
      <p>
        {props.count} {props.count === 1 ? 'individual is' : 'individuals are'} subscribed.
      </p>
      <form method="get" action={base}>
        <label for="search">Search by name or e-mail</label>
        <input
          id="search"
          name="search"
          type="search"
          maxLength={200}
          value={search}
          hx-get={base}
          hx-trigger="input changed delay:300ms, search"
          hx-target="#results"
          hx-select="#results"
          hx-swap="outerHTML"
          hx-push-url="true"
        />
        <p>
          <button type="submit">Search</button>
        </p>
      </form>
      <div id="results">
        {users.length === 0 ? (
          <p>{search ? 'No individual’s name or e-mail contains this.' : 'No individuals here.'}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <caption class="muted">{search ? `Names or e-mails containing “${search}”` : 'By user ID'}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Phone</th>
                </tr>
              </thead>
              <tbody>
                {users.map((u) => (
                  <tr key={u.ID}>
                    <th scope="row">
                      <a href={`${base}/${u.ID}`}>{u.Name || u.ID}</a>
                    </th>
                    <td>{u.Email}</td>
                    <td>{u.Phone}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {props.next && (
          <p class="pager">
            <a href={listUrl(base, { search, limit: props.limit, startid: props.next })} rel="next">
              Next page
            </a>
          </p>
        )}
      </div>
      {props.canAdd && <AddForm action={base} csrfToken={props.csrfToken} refused={props.refused} />}
    </IndividualsShell>
  );
}
