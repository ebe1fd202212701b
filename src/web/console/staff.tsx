/**
 * The console's Staff page (docs/staff.md; docs/web.md "Console"): the organisation's staff with their roles, for
 * the roles that may read them (`orgs.admins.list`); and for an Owner (`orgs.admins.update`) the forms the API offers:
 * invite an address with roles, change a member's roles, remove a member (behind a confirmation box), revoke a pending
 * invitation. A refused form comes back with its message and what was sent.
 */
import type { StaffBody, StaffInvitationBody } from '../../organisations/index.js';
import { CheckboxGroup, FormError, type RefusedForm, shown, TextField } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import { allows, ConsolePage } from './shell.js';
import { ColumnHeads } from './table.js';

/** What the page shows. */
export interface StaffProps {
  orgId: string;
  orgName: string;
  /** The signed-in user's RoleIDs in the organisation. */
  roles: readonly number[];
  /** The signed-in user's ID: their own row says "you". */
  userId: string;
  csrfToken: string;
  staff: StaffBody[];
  /** The next page's `startid`, when another page exists. */
  next?: string;
  /** The pending invitations (shown to Owners only). */
  invitations: StaffInvitationBody[];
  /** Whether the organisation requires its staff to use a second factor (docs/security.md "Staff policy"). */
  factorRequired: boolean;
  /** The message of a change just made, if any. */
  done?: string;
  /** The form just refused (`invite`, or `roles-{userID}`, `remove-{userID}`) with what was sent and the error. */
  refused?: RefusedForm & { form: string };
}

/** The roles an Owner can grant, in the order the API numbers them. */
const ROLE_OPTIONS = [
  { value: '4', label: 'Owner: manages staff and everything else' },
  { value: '1', label: 'Admin: manages the configuration and individuals' },
  { value: '2', label: 'Dpo: reads consents, their history and the audit log' },
  { value: '3', label: 'Developer: reads the configuration, integrates with the API' },
];

const refusedFor = (p: StaffProps, form: string) => (p.refused?.form === form ? p.refused : undefined);

function InviteForm(p: StaffProps) {
  const refused = refusedFor(p, 'invite');
  return (
    <section class="card" aria-labelledby="invite">
      <h2 id="invite">Invite someone</h2>
      <form method="post" action={`/console/${p.orgId}/staff/invite`}>
        <FormError refused={refused} />
        <Csrf token={p.csrfToken} />
        <TextField
          id="invite-email"
          name="email"
          label="E-mail address (the link is mailed there; it works once)"
          type="email"
          maxLength={354}
          required
          autocomplete="off"
          value={shown(refused, 'email', '')}
          refused={refused}
        />
        <CheckboxGroup
          id="invite-roles"
          name="roles"
          legend="Roles"
          options={ROLE_OPTIONS}
          stored={(v) => v === '2'}
          refused={refused}
        />
        <p>
          <button type="submit">Send the invitation</button>
        </p>
      </form>
    </section>
  );
}

function MemberForms({ p, m }: { p: StaffProps; m: StaffBody }) {
  const roles = refusedFor(p, `roles-${m.ID}`);
  const remove = refusedFor(p, `remove-${m.ID}`);
  const held = m.Roles.map((r) => String(r.RoleID));
  const name = m.Name || m.Username;
  return (
    <details open={Boolean(roles || remove)}>
      <summary>Change {name}</summary>
      <form method="post" action={`/console/${p.orgId}/staff/${m.ID}`}>
        <FormError refused={roles} />
        <Csrf token={p.csrfToken} />
        <CheckboxGroup
          id={`roles-${m.ID}`}
          name="roles"
          legend={`Roles of ${name}`}
          options={ROLE_OPTIONS}
          stored={(v) => held.includes(v)}
          refused={roles}
        />
        <p>
          <button type="submit">Save roles</button>
        </p>
      </form>
      <form method="post" action={`/console/${p.orgId}/staff/${m.ID}/remove`}>
        <FormError refused={remove} />
        <Csrf token={p.csrfToken} />
        <label>
          <input type="checkbox" name="confirm" value="on" required /> I confirm: {name} loses every role in {p.orgName}{' '}
          at once (their account stays).
        </label>
        <p>
          <button type="submit" class="danger">
            Remove from the staff
          </button>
        </p>
      </form>
    </details>
  );
}

function PolicyForm(p: StaffProps) {
  return (
    <section class="card" aria-labelledby="policy">
      <h2 id="policy">Second factor</h2>
      <form method="post" action={`/console/${p.orgId}/staff/policy`}>
        <Csrf token={p.csrfToken} />
        <label>
          <input type="checkbox" name="required" value="on" checked={p.factorRequired} /> Staff must use a second
          factor: without one, the console shows them only their Security page, where they set one up.
        </label>
        <p>
          <button type="submit">Save</button>
        </p>
      </form>
    </section>
  );
}

function Invitations(p: StaffProps) {
  if (p.invitations.length === 0) return <p class="muted">No pending invitations.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>Pending invitations</caption>
        <ColumnHeads names={['E-mail', 'Roles', 'Expires (UTC)', '']} />
        <tbody>
          {p.invitations.map((i) => (
            <tr key={i.ID}>
              <td>{i.Email}</td>
              <td>
                {i.Roles.map((r) => ROLE_OPTIONS.find((o) => o.value === String(r))!.label.split(':')[0]).join(', ')}
              </td>
              <td>{i.ExpiresAt.slice(0, 16).replace('T', ' ')}</td>
              <td>
                <form method="post" action={`/console/${p.orgId}/staff/invitations/${i.ID}/revoke`}>
                  <Csrf token={p.csrfToken} />
                  <button type="submit">Revoke</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The Staff page. */
export function StaffPage(p: StaffProps) {
  const manages = allows(p.roles, 'orgs.admins.update');
  const refusedElsewhere = p.refused && !manages ? p.refused : undefined;
  return (
    <ConsolePage
      title="Staff"
      orgId={p.orgId}
      orgName={p.orgName}
      roles={p.roles}
      current={`/console/${p.orgId}/staff`}
      csrfToken={p.csrfToken}
    >
      {p.done && (
        <p class="ok" role="status">
          {p.done}
        </p>
      )}
      <FormError refused={refusedElsewhere} />
      <p class="muted">
        The people who administer {p.orgName}. Only an Owner changes who they are; the last Owner always stays.
      </p>
      <div class="table-wrap">
        <table>
          <caption>Staff and their roles</caption>
          <ColumnHeads names={['Name', 'Username', 'E-mail', 'Roles']} />
          <tbody>
            {p.staff.map((m) => (
              <tr key={m.ID}>
                <td>
                  {m.Name}
                  {m.ID === p.userId ? ' (you)' : ''}
                </td>
                <td>{m.Username}</td>
                <td>{m.Email}</td>
                <td>{m.Roles.map((r) => r.Role).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {manages && (
        <section class="card" aria-labelledby="change">
          <h2 id="change">Change roles or remove</h2>
          {p.staff.map((m) => (
            <MemberForms key={m.ID} p={p} m={m} />
          ))}
        </section>
      )}
      {p.next && (
        <p>
          <a href={`/console/${p.orgId}/staff?startid=${p.next}`}>Next page</a>
        </p>
      )}
      {!manages && <p>Second factor for staff: {p.factorRequired ? 'required' : 'not required'} (an Owner decides).</p>}
      {manages && (
        <>
          <PolicyForm {...p} />
          <InviteForm {...p} />
          <section class="card" aria-labelledby="pending">
            <h2 id="pending">Invitations</h2>
            <Invitations {...p} />
          </section>
        </>
      )}
    </ConsolePage>
  );
}
