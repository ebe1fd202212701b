/**
 * "My consents" (docs/web.md "Privacy dashboard"): per organisation the individual is subscribed
 * to, each purpose with its description, lawful basis, policy and data retention, and each data
 * attribute with Allow / Disallow / AskMe and, for AskMe, its days, changed in place (htmx swaps the
 * one attribute, and the page script shows the outcome next to it; without script the form posts
 * and the page comes back).
 */
import type { ConsentRecordBody, ConsentsAndPurposeBody } from '../../consent/index.js';
import { consentState } from '../shared/format.js';
import { Csrf } from '../shared/layout.js';
import { DashboardPage } from './shell.js';

type Attribute = ConsentsAndPurposeBody['Consents'][number];

/** One organisation's record, as the consents API answers it. */
export interface OrgConsents {
  orgName: string;
  record: ConsentRecordBody;
}

const VALUES = ['Allow', 'Disallow', 'AskMe'] as const;

const date = (rfc3339: string) => (rfc3339 ? rfc3339.slice(0, 10) : '');

/** The path an attribute's form posts to. */
export function attributePath(orgId: string, purposeId: string, attributeId: string): string {
  return `/dashboard/consents/${orgId}/${purposeId}/${attributeId}`;
}

/**
 * One data attribute: its value and days, and (under consent) the form that changes them with the
 * row's live region next to it, outside the part htmx swaps, which the page script (`../page-script.ts`)
 * fills with a save's outcome (WCAG 2.2 SC 4.1.3). `data-stored` is the stored value in words, for
 * the script's "saved" and "back to" messages; the controls carry ids so that focus survives the swap.
 */
export function AttributeRow(props: {
  orgId: string;
  purposeId: string;
  attribute: Attribute;
  editable: boolean;
  csrfToken: string;
  saved?: boolean;
}) {
  const { orgId, purposeId, attribute: a, editable, csrfToken, saved } = props;
  const id = `a-${purposeId}-${a.ID}`;
  const status = a.Status;
  const summary = consentState(status);
  if (!editable)
    return (
      <div class="attribute" id={id}>
        <span class="name">{a.Description}</span>
        <span>{summary}</span>
      </div>
    );
  const action = attributePath(orgId, purposeId, a.ID);
  return (
    <form
      class="attribute"
      id={id}
      method="post"
      action={action}
      hx-post={action}
      hx-target="this"
      hx-swap="outerHTML"
      hx-sync="this:drop"
      data-stored={summary}
    >
      <Csrf token={csrfToken} />
      <span class="name">
        {a.Description}
        <br />
        <span class="muted">
          Now: {summary}
          {saved ? ' · saved' : ''}
        </span>
      </span>
      <fieldset>
        <legend>Consent to {a.Description}</legend>
        {VALUES.map((v) => (
          <label key={v}>
            <input type="radio" id={`${id}-${v}`} name="consented" value={v} checked={status.Consent === v} /> {v}
          </label>
        ))}
      </fieldset>
      <span class="days">
        <label for={`${id}-days`}>Days (0 = no limit)</label>
        <input
          id={`${id}-days`}
          name="days"
          type="number"
          min="0"
          max="3650"
          value={String(status.Consent === 'AskMe' ? status.Days : 0)}
          aria-describedby={`${id}-days-hint`}
        />
        <span class="hint" id={`${id}-days-hint`}>
          With AskMe only
        </span>
      </span>
      <button type="submit" id={`${id}-save`}>
        Save
      </button>
    </form>
  );
}

/** An editable attribute's row: its form, and the live region the page script writes a save's outcome to. */
function EditableRow(props: Parameters<typeof AttributeRow>[0]) {
  const id = `a-${props.purposeId}-${props.attribute.ID}`;
  return (
    <div class="attribute-row">
      <AttributeRow {...props} />
      <p class="save-status" id={`${id}-status`} role="status" aria-live="polite" />
    </div>
  );
}

function Purpose({ p, orgId, csrfToken }: { p: ConsentsAndPurposeBody; orgId: string; csrfToken: string }) {
  const consentBased = !p.Purpose.LawfulUsage;
  const Row = consentBased ? EditableRow : AttributeRow;
  return (
    <section class="card" aria-labelledby={`p-${p.Purpose.ID}`}>
      <h3 id={`p-${p.Purpose.ID}`}>{p.Purpose.Name}</h3>
      <p>{p.Purpose.Description}</p>
      <dl class="facts">
        <dt>Lawful basis</dt>
        <dd>{consentBased ? 'Your consent (GDPR Art. 6(1)(a))' : 'Another lawful basis than consent'}</dd>
        <dt>Policy</dt>
        <dd>{p.Purpose.PolicyURL ? <a href={p.Purpose.PolicyURL}>{p.Purpose.PolicyURL}</a> : 'none given'}</dd>
        <dt>Data kept until</dt>
        <dd>{date(p.DataRetention?.Expiry ?? '') || 'no retention period applies'}</dd>
        <dt>Allowed</dt>
        <dd>
          {p.Count.Consented} of {p.Count.Total} data attributes
        </dd>
      </dl>
      {!consentBased && (
        <p class="note">
          Consent is not the lawful basis of this purpose: the organisation uses these data attributes under another
          basis, so there is no choice to make here.
        </p>
      )}
      {p.Consents.map((a) => (
        <Row
          key={a.ID}
          orgId={orgId}
          purposeId={p.Purpose.ID}
          attribute={a}
          editable={consentBased}
          csrfToken={csrfToken}
        />
      ))}
    </section>
  );
}

/** The whole page. */
export function ConsentsPage({ orgs, csrfToken }: { orgs: OrgConsents[]; csrfToken: string }) {
  return (
    <DashboardPage title="My consents" current="/dashboard/consents" csrfToken={csrfToken}>
      {orgs.length === 0 && <p>You are not subscribed to any organisation.</p>}
      {orgs.map(({ orgName, record }) => (
        <section key={record.OrgID} aria-labelledby={`o-${record.OrgID}`}>
          <h2 id={`o-${record.OrgID}`}>{orgName}</h2>
          {record.ConsentsAndPurposes.map((p) => (
            <Purpose key={p.Purpose.ID} p={p} orgId={record.OrgID} csrfToken={csrfToken} />
          ))}
        </section>
      ))}
    </DashboardPage>
  );
}
