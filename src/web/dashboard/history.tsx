/**
 * The individual's own consent history (docs/web.md "Privacy dashboard"): every change, newest
 * first, paged by organisation, with the check of each event against its stored hash and link.
 */
import type { presentEvent } from '../../consent/index.js';
import { consentChange, utcTime } from '../shared/format.js';
import { DashboardPage } from './shell.js';

type Event = ReturnType<typeof presentEvent>;

/** One organisation's page of events. */
export interface HistoryView {
  orgId: string;
  orgName: string;
  events: Event[];
  /** How many of `events` match their hash and link. */
  intact: number;
  /** The next page's cursor, if any. */
  next?: string;
  /** Names of purposes and attributes by ID (those still configured). */
  names: ReadonlyMap<string, string>;
}

const who = (e: Event, self: string) =>
  e.Actor.Type === 'individual'
    ? e.Actor.UserID === self
      ? 'you'
      : 'the organisation’s staff'
    : e.Actor.Type === 'apiKey'
      ? 'the organisation (API key)'
      : 'Assent (expiry)';

function OrgHistory({ view, userId }: { view: HistoryView; userId: string }) {
  const broken = view.events.length - view.intact;
  return (
    <section class="card" aria-labelledby={`h-${view.orgId}`}>
      <h2 id={`h-${view.orgId}`}>{view.orgName}</h2>
      {view.events.length === 0 ? (
        <p>No changes yet.</p>
      ) : broken === 0 ? (
        <p class="ok">
          Verified: each of the {view.events.length} changes below matches its hash and its link in the organisation’s
          evidence chain.
        </p>
      ) : (
        <p class="error" role="alert">
          {broken} of the {view.events.length} changes below do not match their hash or link: the record may have been
          altered. Contact the organisation.
        </p>
      )}
      {view.events.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="muted">Newest first</caption>
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Purpose · attribute</th>
                <th scope="col">Change</th>
                <th scope="col">By</th>
                <th scope="col">Channel</th>
                <th scope="col">Receipt</th>
              </tr>
            </thead>
            <tbody>
              {view.events.map((e) => (
                <tr key={e.ID}>
                  <td>{utcTime(e.TimeStamp)}</td>
                  <td>
                    {view.names.get(e.PurposeID) ?? e.PurposeID} · {view.names.get(e.AttributeID) ?? e.AttributeID}
                  </td>
                  <td>{consentChange(e)}</td>
                  <td>{who(e, userId)}</td>
                  <td class="endpoint">{e.Channel.Endpoint}</td>
                  <td>
                    <a href={`/dashboard/history/${view.orgId}/${e.ID}/receipt`} download>
                      Download
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {view.next && (
        <p class="pager">
          <a href={`/dashboard/history?org=${view.orgId}&startid=${view.next}`}>Older changes</a>
        </p>
      )}
    </section>
  );
}

/** The whole page. */
export function HistoryPage(props: { views: HistoryView[]; userId: string; csrfToken: string }) {
  return (
    <DashboardPage title="History" current="/dashboard/history" csrfToken={props.csrfToken}>
      {props.views.length === 0 && <p>You are not subscribed to any organisation.</p>}
      {props.views.map((v) => (
        <OrgHistory key={v.orgId} view={v} userId={props.userId} />
      ))}
    </DashboardPage>
  );
}
