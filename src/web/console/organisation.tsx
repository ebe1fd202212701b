/**
 * The console's organisation page (docs/web.md "Console"): the organisation's details, its data
 * retention, its purposes and its data attributes, each editable by those the API lets change
 * them (Owner, Admin) and read-only for the others (Dpo, Developer).
 */
import type { DataAttributeBody } from '../../data-attributes/service.js';
import type { OrganizationBody } from '../../purposes/present.js';
import { Csrf } from '../layout.js';
import { allows, ConsolePage } from './shell.js';

/** What the page shows. */
export interface OrganisationProps {
  org: OrganizationBody;
  attributes: DataAttributeBody[];
  roles: readonly number[];
  csrfToken: string;
  done?: string;
}

const DAY = 86_400;

function PurposeForm(props: {
  action: string;
  csrfToken: string;
  p?: OrganizationBody['Purposes'][number];
  submit: string;
}) {
  const { action, csrfToken, p, submit } = props;
  const id = p ? `p-${p.ID}` : 'p-new';
  return (
    <form method="post" action={action}>
      <Csrf token={csrfToken} />
      <label for={`${id}-name`}>Name</label>
      <input id={`${id}-name`} name="name" type="text" required maxLength={200} value={p?.Name ?? ''} />
      <label for={`${id}-description`}>Description</label>
      <input id={`${id}-description`} name="description" type="text" maxLength={2000} value={p?.Description ?? ''} />
      <label for={`${id}-policyurl`}>Policy URL</label>
      <input
        id={`${id}-policyurl`}
        name="policyurl"
        type="text"
        inputMode="url"
        maxLength={2000}
        value={p?.PolicyURL ?? ''}
      />
      <label>
        <input type="checkbox" name="lawfulusage" value="on" checked={p?.LawfulUsage ?? false} /> The lawful basis is
        not consent
      </label>
      <p>
        <button type="submit">{submit}</button>
      </p>
    </form>
  );
}

function AttributeForm(props: {
  action: string;
  csrfToken: string;
  purposes: OrganizationBody['Purposes'];
  a?: DataAttributeBody;
  submit: string;
}) {
  const { action, csrfToken, purposes, a, submit } = props;
  const id = a ? `t-${a.ID}` : 't-new';
  return (
    <form method="post" action={action}>
      <Csrf token={csrfToken} />
      <label for={`${id}-name`}>Name</label>
      <input id={`${id}-name`} name="consent" type="text" required maxLength={200} value={a?.Consent ?? ''} />
      <fieldset>
        <legend>Purposes</legend>
        {purposes.map((p) => (
          <label key={p.ID}>
            <input type="checkbox" name="purposeids" value={p.ID} checked={a?.PurposeIDs.includes(p.ID) ?? false} />{' '}
            {p.Name}
          </label>
        ))}
      </fieldset>
      <p>
        <button type="submit">{submit}</button>
      </p>
    </form>
  );
}

/**
 * A deletion's form with its confirmation step (as the unsubscribe form of `individual.tsx`): the box
 * must be ticked, which the browser checks (`required`) and the route checks again.
 * @param consequence - what the deletion does, said in the box's label.
 */
function DeleteForm(props: { action: string; csrfToken: string; what: string; consequence: string }) {
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrfToken} />
      <label>
        <input type="checkbox" name="confirm" value="on" required /> I confirm: delete {props.what}. {props.consequence}
      </label>
      <p>
        <button type="submit" class="danger" aria-label={`Delete ${props.what}`}>
          Delete
        </button>
      </p>
    </form>
  );
}

/** The page. */
export function OrganisationPage({ org, attributes, roles, csrfToken, done }: OrganisationProps) {
  const base = `/console/${org.ID}`;
  const edit = allows(roles, 'purposes.update');
  const names = new Map(org.Purposes.map((p) => [p.ID, p.Name]));
  return (
    <ConsolePage
      title="Organisation"
      orgId={org.ID}
      orgName={org.Name}
      roles={roles}
      current={`${base}/organisation`}
      csrfToken={csrfToken}
    >
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      <section class="card" aria-labelledby="details">
        <h2 id="details">Details</h2>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{org.Name}</dd>
          <dt>Type</dt>
          <dd>{org.Type.Type}</dd>
          <dt>Location</dt>
          <dd>{org.Location}</dd>
          <dt>Description</dt>
          <dd>{org.Description}</dd>
          <dt>Policy</dt>
          <dd>{org.PolicyURL}</dd>
        </dl>
        <p class="muted">These are set by the organisation's import file (assent import).</p>
      </section>
      <section class="card" aria-labelledby="retention">
        <h2 id="retention">Data retention</h2>
        <p>
          {org.DataRetention.Enabled ? 'On' : 'Off'}; period {Math.round(org.DataRetention.RetentionPeriod / DAY)} days.
        </p>
        {allows(roles, 'retention.update') && (
          <form method="post" action={`${base}/retention`}>
            <Csrf token={csrfToken} />
            <label>
              <input type="checkbox" name="enabled" value="on" checked={org.DataRetention.Enabled} /> Retention on
            </label>
            <label for="period">Period (days)</label>
            <input
              id="period"
              name="days"
              type="number"
              min="1"
              max="36500"
              required
              value={String(Math.max(1, Math.round(org.DataRetention.RetentionPeriod / DAY)))}
            />
            <p>
              <button type="submit">Save retention</button>
            </p>
          </form>
        )}
      </section>
      <section aria-labelledby="purposes">
        <h2 id="purposes">Purposes</h2>
        {org.Purposes.length === 0 && <p>No purposes yet.</p>}
        {org.Purposes.map((p) => (
          <section class="card" key={p.ID} aria-label={p.Name}>
            <h3>{p.Name}</h3>
            <p>{p.Description}</p>
            <p class="muted">
              {p.LawfulUsage ? 'Lawful basis: not consent' : 'Lawful basis: consent'}
              {p.PolicyURL ? ` · ${p.PolicyURL}` : ''}
            </p>
            {edit && (
              <details>
                <summary>Edit {p.Name}</summary>
                <PurposeForm action={`${base}/purposes/${p.ID}`} csrfToken={csrfToken} p={p} submit="Save purpose" />
                <DeleteForm
                  action={`${base}/purposes/${p.ID}/delete`}
                  csrfToken={csrfToken}
                  what={p.Name}
                  consequence="Individuals are no longer asked about it; their consent history keeps it."
                />
              </details>
            )}
          </section>
        ))}
        {allows(roles, 'purposes.create') && (
          <section class="card" aria-labelledby="add-purpose">
            <h3 id="add-purpose">Add a purpose</h3>
            <PurposeForm action={`${base}/purposes`} csrfToken={csrfToken} submit="Add purpose" />
          </section>
        )}
      </section>
      <section aria-labelledby="attributes">
        <h2 id="attributes">Data attributes</h2>
        {attributes.length === 0 && <p>No data attributes yet.</p>}
        {attributes.map((a) => (
          <section class="card" key={a.ID} aria-label={a.Consent}>
            <h3>{a.Consent}</h3>
            <p class="muted">Purposes: {a.PurposeIDs.map((id) => names.get(id) ?? id).join(', ') || 'none'}</p>
            {allows(roles, 'templates.update') && (
              <details>
                <summary>Edit {a.Consent}</summary>
                <AttributeForm
                  action={`${base}/attributes/${a.ID}`}
                  csrfToken={csrfToken}
                  purposes={org.Purposes}
                  a={a}
                  submit="Save attribute"
                />
                <DeleteForm
                  action={`${base}/attributes/${a.ID}/delete`}
                  csrfToken={csrfToken}
                  what={a.Consent}
                  consequence="Individuals are no longer asked about it; their consent history keeps it."
                />
              </details>
            )}
          </section>
        ))}
        {allows(roles, 'templates.create') && (
          <section class="card" aria-labelledby="add-attribute">
            <h3 id="add-attribute">Add a data attribute</h3>
            <AttributeForm
              action={`${base}/attributes`}
              csrfToken={csrfToken}
              purposes={org.Purposes}
              submit="Add attribute"
            />
          </section>
        )}
      </section>
    </ConsolePage>
  );
}
