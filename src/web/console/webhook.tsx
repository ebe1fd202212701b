/**
 * One event webhook's console page (docs/web.md "Console"; docs/events.md "Webhooks"): its settings and state, its
 * recent deliveries (newest first, keyset-paged, filtered by state) with every attempt, and for the roles the API
 * lets manage webhooks (Owner, Admin) the forms that edit it, rotate its secret, send a ping, redeliver a delivery
 * and delete it. The Dpo and the Developer read it all and find no form but the deliveries' filter (a GET).
 */
import type { DeliveryView, WebhookView } from '../../notifications/index.js';
import { FormError, type RefusedForm } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import { EventsFrame, WebhookFields, webhookState, when } from './events.js';
import { DeleteForm } from './organisation-forms.js';
import { allows } from './shell.js';
import { ColumnHeads } from './table.js';

/** What the page shows. */
export interface WebhookPageView {
  orgId: string;
  orgName: string;
  roles: readonly number[];
  csrfToken: string;
  /** The confirmation of the change just made, if any. */
  done?: string;
  webhook: WebhookView;
  /** One page of its deliveries, newest first, and the next page's start; null when the roles may not read them. */
  deliveries: { items: DeliveryView[]; next?: string } | null;
  /** The state the deliveries are filtered by, if any. */
  state?: string;
  /** The edit form as refused: as typed, the error by its field. */
  editForm?: RefusedForm;
  /** The delivery of a ping just sent, shown with its outcome. */
  pinged?: DeliveryView;
}

/** The states the deliveries can be filtered by (the API's `state`), with their words; '' is all. */
const STATES: ReadonlyArray<[string, string]> = [
  ['', 'All deliveries'],
  ['failed', 'Failed only'],
  ['pending', 'Pending only'],
  ['succeeded', 'Succeeded only'],
];

/** One attempt in words: its number, time, the answer's status or the error, and how long it took. */
function attemptText(a: DeliveryView['attempts'][number]): string {
  const answer =
    a.status !== undefined ? `HTTP ${a.status}${a.error ? ` (${a.error})` : ''}` : (a.error ?? 'no answer');
  return `#${a.attempt}, ${when(a.at)}: ${answer}, ${a.durationMs} ms`;
}

/** A delivery's state in words (a pending one's next attempt). */
function deliveryState(d: DeliveryView): string {
  if (d.state === 'pending') return `pending, next attempt ${when(d.nextAttemptAt)}`;
  return d.finishedAt ? `${d.state}, ${when(d.finishedAt)}` : d.state;
}

/** The outcome of a ping just sent (its one attempt). */
function PingOutcome({ d }: { d: DeliveryView }) {
  const last = d.attempts[d.attempts.length - 1];
  const ok = d.state === 'succeeded';
  return (
    <p class={ok ? 'ok' : 'error'} role="status">
      {ok ? 'Ping delivered' : 'Ping not delivered'}: {last ? attemptText(last) : 'no attempt was made'}. Event ID{' '}
      <code>{d.eventId}</code>.
    </p>
  );
}

/** The page's URL with this filter and start of the deliveries. */
function pageUrl(v: WebhookPageView, q: { state?: string; startid?: string }): string {
  const params = new URLSearchParams();
  for (const [k, val] of Object.entries(q)) if (val) params.set(k, val);
  const query = params.toString();
  return `/console/${v.orgId}/integrations/events/${v.webhook.id}${query ? `?${query}` : ''}`;
}

function Settings({ v }: { v: WebhookPageView }) {
  const w = v.webhook;
  const action = `/console/${v.orgId}/integrations/events/${w.id}`;
  return (
    <section class="card" aria-labelledby="settings">
      <h2 id="settings">Settings</h2>
      <dl class="facts">
        <dt>Payload URL</dt>
        <dd>
          <code>{w.payloadUrl}</code>
        </dd>
        <dt>Event types</dt>
        <dd>{w.subscribedEvents.join(', ')}</dd>
        <dt>State</dt>
        <dd>{webhookState(w)}</dd>
        <dt>Last success</dt>
        <dd>{when(w.lastSuccessAt)}</dd>
        <dt>Failing since</dt>
        <dd>{when(w.failingSince)}</dd>
        <dt>Created</dt>
        <dd>{when(w.createdAt)}</dd>
      </dl>
      {w.disabledReason === 'failing' && (
        <p class="note">
          Enable it again once the receiver works, then redeliver what failed below, or read the events of the time
          between from the change feed.
        </p>
      )}
      {allows(v.roles, 'webhooks.update') && (
        <form method="post" action={action}>
          <h3>Edit</h3>
          <FormError refused={v.editForm} />
          <Csrf token={v.csrfToken} />
          <WebhookFields prefix="edit" stored={w} refused={v.editForm} />
          <p class="muted">Enabled again, it receives the events committed from then on.</p>
          <p>
            <button type="submit">Save webhook</button>
          </p>
        </form>
      )}
    </section>
  );
}

function Actions({ v }: { v: WebhookPageView }) {
  const action = `/console/${v.orgId}/integrations/events/${v.webhook.id}`;
  const rotate = allows(v.roles, 'webhooks.secret.rotate');
  const ping = allows(v.roles, 'webhooks.ping');
  if (!rotate && !ping) return null;
  return (
    <section class="card" aria-labelledby="secret-and-ping">
      <h2 id="secret-and-ping">Signing secret and test</h2>
      {rotate && (
        <form method="post" action={`${action}/secret`}>
          <Csrf token={v.csrfToken} />
          <p>
            A new secret is generated and shown once. The previous secret keeps signing too, as a second signature, for
            24 hours, so that the receiver can switch without missing a delivery.
          </p>
          <p>
            <button type="submit" class="secondary">
              Rotate the secret
            </button>
          </p>
        </form>
      )}
      {ping && (
        <form method="post" action={`${action}/ping`}>
          <Csrf token={v.csrfToken} />
          <p>
            Sends a <code>webhook.ping</code> event now, once and without retries, even while the webhook is disabled.
          </p>
          <p>
            <button type="submit" class="secondary">
              Send a ping
            </button>
          </p>
        </form>
      )}
    </section>
  );
}

function Deliveries({ v }: { v: WebhookPageView }) {
  const page = v.deliveries;
  if (!page) return null;
  const redeliver = allows(v.roles, 'webhooks.redeliver');
  const base = `/console/${v.orgId}/integrations/events/${v.webhook.id}`;
  return (
    <section class="card" aria-labelledby="deliveries">
      <h2 id="deliveries">Recent deliveries</h2>
      <form method="get" action={base} aria-label="Filter the deliveries">
        <label for="state">Show</label>
        <select id="state" name="state">
          {STATES.map(([value, label]) => (
            <option key={value} value={value} selected={(v.state ?? '') === value}>
              {label}
            </option>
          ))}
        </select>
        <p>
          <button type="submit">Show</button>
        </p>
      </form>
      {page.items.length === 0 ? (
        <p>No deliveries{v.state ? ` in the state ${v.state}` : ''} here.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="muted">Newest first; times in UTC.</caption>
            <ColumnHeads names={['Created', 'Event', 'State', 'Attempts', ...(redeliver ? ['Redeliver'] : [])]} />
            <tbody>
              {page.items.map((d) => (
                <tr key={d.id}>
                  <td>{when(d.createdAt)}</td>
                  <td>
                    {d.eventType}
                    <div>
                      <code>{d.eventId}</code>
                    </div>
                    {d.redeliveryOf && <div class="muted">a redelivery</div>}
                  </td>
                  <td>{deliveryState(d)}</td>
                  <td>
                    {d.attempts.length === 0 ? (
                      'none yet'
                    ) : (
                      <ol>
                        {d.attempts.map((a) => (
                          <li key={a.attempt}>{attemptText(a)}</li>
                        ))}
                      </ol>
                    )}
                  </td>
                  {redeliver && (
                    <td>
                      <form method="post" action={`${base}/deliveries/${d.id}/redeliver`}>
                        <Csrf token={v.csrfToken} />
                        <button type="submit" class="secondary" aria-label={`Redeliver ${d.eventType} ${d.eventId}`}>
                          Redeliver
                        </button>
                      </form>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.next && (
        <p class="pager">
          <a href={`${pageUrl(v, { state: v.state, startid: page.next })}#deliveries`}>Older deliveries</a>
        </p>
      )}
    </section>
  );
}

/** The page. */
export function WebhookPage(v: WebhookPageView) {
  return (
    <EventsFrame v={v} title="Event webhook">
      {v.pinged && <PingOutcome d={v.pinged} />}
      <p>
        <a href={`/console/${v.orgId}/integrations/events`}>All event webhooks</a>
      </p>
      <Settings v={v} />
      <Actions v={v} />
      <Deliveries v={v} />
      {allows(v.roles, 'webhooks.delete') && (
        <section class="card" aria-labelledby="delete-webhook">
          <h2 id="delete-webhook">Delete</h2>
          <DeleteForm
            id="webhook-delete"
            action={`/console/${v.orgId}/integrations/events/${v.webhook.id}/delete`}
            csrfToken={v.csrfToken}
            what="this webhook"
            consequence="Its deliveries stop at once, and its deliveries log is deleted with it."
          />
        </section>
      )}
    </EventsFrame>
  );
}
