/**
 * The console's organisation page (docs/web.md "Console"): the organisation's details, its data
 * retention, its purposes and its data attributes, each editable by those the API lets change
 * them (Owner, Admin) and read-only for the others (Dpo, Developer).
 */
import type { DataAttributeBody, OrganisationBody } from '../../consent/index.js';
import {
  AttributeForm,
  DeleteForm,
  PurposeForm,
  type RefusedOrgForm,
  RetentionForm,
  refusedHere,
} from './organisation-forms.js';
import { allows, ConsolePage } from './shell.js';

const DAY = 86_400;
/** What a deletion does, as its confirmation box says. */
const KEPT = 'Individuals are no longer asked about it; their consent history keeps it.';

/** What the page shows. */
export interface OrganisationProps {
  org: OrganisationBody;
  attributes: DataAttributeBody[];
  roles: readonly number[];
  csrfToken: string;
  done?: string;
  /** The form just refused, shown again with what was typed and its error. */
  refused?: RefusedOrgForm;
}

/** The page. */
export function OrganisationPage({ org, attributes, roles, csrfToken, done, refused }: OrganisationProps) {
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
          <RetentionForm
            action={`${base}/retention`}
            csrfToken={csrfToken}
            retention={org.DataRetention}
            refused={refusedHere(refused, 'retention')}
          />
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
              <details open={refused?.form.startsWith(`p-${p.ID}`)}>
                <summary>Edit {p.Name}</summary>
                <PurposeForm
                  action={`${base}/purposes/${p.ID}`}
                  csrfToken={csrfToken}
                  p={p}
                  submit="Save purpose"
                  refused={refusedHere(refused, `p-${p.ID}`)}
                />
                <DeleteForm
                  id={`p-${p.ID}-delete`}
                  action={`${base}/purposes/${p.ID}/delete`}
                  csrfToken={csrfToken}
                  what={p.Name}
                  consequence={KEPT}
                  refused={refusedHere(refused, `p-${p.ID}-delete`)}
                />
              </details>
            )}
          </section>
        ))}
        {allows(roles, 'purposes.create') && (
          <section class="card" aria-labelledby="add-purpose">
            <h3 id="add-purpose">Add a purpose</h3>
            <PurposeForm
              action={`${base}/purposes`}
              csrfToken={csrfToken}
              submit="Add purpose"
              refused={refusedHere(refused, 'p-new')}
            />
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
              <details open={refused?.form.startsWith(`t-${a.ID}`)}>
                <summary>Edit {a.Consent}</summary>
                <AttributeForm
                  action={`${base}/attributes/${a.ID}`}
                  csrfToken={csrfToken}
                  purposes={org.Purposes}
                  a={a}
                  submit="Save attribute"
                  refused={refusedHere(refused, `t-${a.ID}`)}
                />
                <DeleteForm
                  id={`t-${a.ID}-delete`}
                  action={`${base}/attributes/${a.ID}/delete`}
                  csrfToken={csrfToken}
                  what={a.Consent}
                  consequence={KEPT}
                  refused={refusedHere(refused, `t-${a.ID}-delete`)}
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
              refused={refusedHere(refused, 't-new')}
            />
          </section>
        )}
      </section>
    </ConsolePage>
  );
}
