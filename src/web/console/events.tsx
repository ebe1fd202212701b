/**
 * The console's event webhooks list (docs/web.md "Console"; docs/events.md "Webhooks"), in the Integrations section:
 * the organisation's webhooks with their state, and for the roles the API lets create one (`webhooks.create`) the
 * form that adds one. The Dpo and the Developer read the list (`webhooks.list`) and find no form. The webhook's own
 * page is `webhook.tsx`; the fields its edit form shares with this one are here.
 */
import type { ComponentChildren } from 'preact';
import { EVENT_TYPES, type WebhookView } from '../../notifications/index.js';
import { CheckboxGroup, FormError, type RefusedForm, shown, TextField } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import { allows, ConsolePage, IntegrationsNav, integrationsHome } from './shell.js';
import { ColumnHeads } from './table.js';

/** What the list page shows. */
export interface EventsView {
  orgId: string;
  orgName: string;
  roles: readonly number[];
  csrfToken: string;
  /** The confirmation of the change just made, if any. */
  done?: string;
  /** The organisation's webhooks, oldest first (never a secret). */
  webhooks: WebhookView[];
  /** The new webhook's form as refused: as typed (never the secret), the error by its field. */
  createForm?: RefusedForm;
}

/** A webhook's state in words: enabled, or disabled and why (docs/events.md "Retries"). */
export function webhookState(w: WebhookView): string {
  if (!w.disabled) return 'Enabled';
  if (w.disabledReason === 'failing') return 'Disabled: every attempt failed for the disable window (failing)';
  return 'Disabled by an Owner or Admin (admin)';
}

/** An RFC 3339 time as shown, or a dash. */
export const when = (at: string | undefined) => (at ? at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—');

/** The page heading and framing of the section's pages. */
export function EventsFrame(props: {
  v: { orgId: string; orgName: string; roles: readonly number[]; csrfToken: string; done?: string };
  title: string;
  children: ComponentChildren;
}) {
  const { v } = props;
  return (
    <ConsolePage
      title={props.title}
      orgId={v.orgId}
      orgName={v.orgName}
      roles={v.roles}
      current={integrationsHome(v.orgId, v.roles)}
      csrfToken={v.csrfToken}
    >
      <IntegrationsNav orgId={v.orgId} roles={v.roles} current={`/console/${v.orgId}/integrations/events`} />
      {v.done && (
        <p class="ok" role="status">
          {v.done}
        </p>
      )}
      {props.children}
    </ConsolePage>
  );
}

/**
 * The fields of a webhook form: the payload URL, the event types as a group of checkboxes, and the disabled box;
 * filled in as stored (`stored`), as refused (`refused`), or empty for a new webhook.
 * @param prefix - the fields' ID prefix (`new`, `edit`), so that each page's IDs are unique.
 */
export function WebhookFields(props: { prefix: string; stored?: WebhookView; refused?: RefusedForm }) {
  const { prefix, stored, refused: r } = props;
  const disabled = r ? r.values.disabled === 'on' : (stored?.disabled ?? false);
  return (
    <>
      <TextField
        id={`${prefix}-payloadurl`}
        name="payloadurl"
        label="Payload URL (https)"
        inputMode="url"
        maxLength={2048}
        required
        value={shown(r, 'payloadurl', stored?.payloadUrl ?? '')}
        refused={r}
      />
      <CheckboxGroup
        id={`${prefix}-types`}
        name="types"
        legend="Event types to deliver"
        options={EVENT_TYPES.map((t) => ({ value: t, label: t }))}
        stored={(t) => stored?.subscribedEvents.includes(t) ?? false}
        refused={r}
      />
      <label>
        <input type="checkbox" name="disabled" value="on" checked={disabled} /> Disabled (no deliveries are made while
        it is)
      </label>
    </>
  );
}

function CreateForm({ v }: { v: EventsView }) {
  const r = v.createForm;
  return (
    <section class="card" aria-labelledby="add-webhook">
      <h2 id="add-webhook">Add a webhook</h2>
      <form method="post" action={`/console/${v.orgId}/integrations/events`}>
        <FormError refused={r} />
        <Csrf token={v.csrfToken} />
        <WebhookFields prefix="new" refused={r} />
        <TextField
          id="new-secret"
          name="secret"
          label="Signing secret (optional: whsec_ and base64; empty: Assent generates one)"
          maxLength={200}
          autocomplete="off"
          // Threat: a secret echoed into a page: a refused form never fills it in again.
          value=""
          refused={r}
        />
        <p class="muted">The signing secret is shown once, on the page after adding; Assent never shows it again.</p>
        <p>
          <button type="submit">Add webhook</button>
        </p>
      </form>
    </section>
  );
}

/** The list page. */
export function EventsPage(v: EventsView) {
  const base = `/console/${v.orgId}/integrations/events`;
  return (
    <EventsFrame v={v} title="Event webhooks">
      <p class="muted">
        Each webhook receives the organisation's events of the types it subscribes to, signed (Standard Webhooks), in
        each individual's order, retried for three days. The change feed has the same events, to read or catch up on.
      </p>
      <section class="card" aria-labelledby="webhooks">
        <h2 id="webhooks">Webhooks</h2>
        {v.webhooks.length === 0 ? (
          <p>No webhooks registered.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <ColumnHeads names={['Payload URL', 'Event types', 'State', 'Last success', 'Failing since']} />
              <tbody>
                {v.webhooks.map((w) => (
                  <tr key={w.id}>
                    <th scope="row">
                      <a href={`${base}/${w.id}`}>
                        <code>{w.payloadUrl}</code>
                      </a>
                    </th>
                    <td>{w.subscribedEvents.join(', ')}</td>
                    <td>{webhookState(w)}</td>
                    <td>{when(w.lastSuccessAt)}</td>
                    <td>{when(w.failingSince)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {allows(v.roles, 'webhooks.create') && <CreateForm v={v} />}
    </EventsFrame>
  );
}
