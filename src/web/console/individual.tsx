/**
 * One individual in the console (docs/web.md "Console"): their details, their consent record
 * read-only (as `consents.read` answers it), a page of their consent history newest first with each
 * event checked against its hash and link (for the roles `consents.history.list` allows), and, for
 * those the API lets unsubscribe (Owner, Admin), the unsubscribe form with its confirmation box.
 */
import type { ConsentEventBody, ConsentRecordBody } from '../../consent/index.js';
import type { IndividualBody } from '../../organisations/index.js';
import { consentChange, consentState, utcTime } from '../shared/format.js';
import { Csrf } from '../shared/layout.js';
import { type IndividualsBase, IndividualsShell } from './individuals.js';
import { allows } from './shell.js';

/** A page of history as `HistoryService.page` answers it. */
export interface HistoryPageView {
  events: ConsentEventBody[];
  /** How many of `events` match their hash and link. */
  intact: number;
  /** The next (older) page's cursor, if any. */
  next?: string;
}

/** What the page shows. */
export interface IndividualProps extends IndividualsBase {
  individual: IndividualBody;
  record: ConsentRecordBody;
  /** Null when the caller's roles may not read the history. */
  history: HistoryPageView | null;
  /** The page size as asked (`limit`), kept in the older page's link. */
  limit?: string;
}

function by(e: ConsentEventBody, individualId: string): string {
  if (e.Actor.Type === 'individual') return e.Actor.UserID === individualId ? 'the individual' : 'staff';
  return e.Actor.Type === 'apiKey' ? 'the organisation (API key)' : 'Assent (expiry)';
}

function Consents({ record }: { record: ConsentRecordBody }) {
  if (record.ConsentsAndPurposes.length === 0) return <p>No purpose has data attributes yet.</p>;
  return (
    <>
      {record.ConsentsAndPurposes.map((p) => (
        <section class="card" key={p.Purpose.ID} aria-label={p.Purpose.Name}>
          <h3>{p.Purpose.Name}</h3>
          <p class="muted">
            {p.Purpose.LawfulUsage
              ? 'Lawful basis: not consent (the attributes are used without a choice)'
              : 'Lawful basis: consent'}
            {` · ${p.Count.Consented} of ${p.Count.Total} consented`}
            {p.DataRetention?.Expiry ? ` · retained until ${utcTime(p.DataRetention.Expiry)} UTC` : ''}
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Data attribute</th>
                  <th scope="col">Consent</th>
                  <th scope="col">Since (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {p.Consents.map((a) => (
                  <tr key={a.ID}>
                    <th scope="row">{a.Description}</th>
                    <td>{consentState(a.Status)}</td>
                    <td>{utcTime(a.Status.TimeStamp)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </>
  );
}

function History(props: { history: HistoryPageView; names: ReadonlyMap<string, string>; self: string; older: string }) {
  const { history, names } = props;
  if (history.events.length === 0) return <p>No changes on this page.</p>;
  const broken = history.events.length - history.intact;
  return (
    <>
      {broken === 0 ? (
        <p class="ok">Verified: each change below matches its hash and its link in the evidence chain.</p>
      ) : (
        <p class="error" role="alert">
          {broken} of the {history.events.length} changes below do not match their hash or link: the record may have
          been altered.
        </p>
      )}
      <div class="table-wrap">
        <table>
          <caption class="muted">Newest first</caption>
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">Purpose · data attribute</th>
              <th scope="col">Change</th>
              <th scope="col">By</th>
              <th scope="col">Channel</th>
            </tr>
          </thead>
          <tbody>
            {history.events.map((e) => (
              <tr key={e.ID}>
                <td>{utcTime(e.TimeStamp)}</td>
                <td>
                  {names.get(e.PurposeID) ?? e.PurposeID} · {names.get(e.AttributeID) ?? e.AttributeID}
                </td>
                <td>{consentChange(e)}</td>
                <td>{by(e, props.self)}</td>
                <td class="endpoint">{e.Channel.Endpoint}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {history.next && (
        <p class="pager">
          <a href={props.older} rel="next">
            Older changes
          </a>
        </p>
      )}
    </>
  );
}

/** The page. */
export function IndividualPage(props: IndividualProps) {
  const { individual: u, record, history } = props;
  const list = `/console/${props.orgId}/individuals`;
  const self = `${list}/${u.ID}`;
  const label = u.Name || u.Email || u.ID;
  const names = new Map<string, string>();
  for (const p of record.ConsentsAndPurposes) {
    names.set(p.Purpose.ID, p.Purpose.Name);
    for (const a of p.Consents) names.set(a.ID, a.Description);
  }
  const older = new URLSearchParams({ startid: history?.next ?? '' });
  if (props.limit) older.set('limit', props.limit);
  return (
    <IndividualsShell base={props} title={label}>
      <p>
        <a href={list}>All individuals</a>
      </p>
      <section class="card" aria-labelledby="details">
        <h2 id="details">Details</h2>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{u.Name}</dd>
          <dt>E-mail</dt>
          <dd>{u.Email}</dd>
          <dt>Phone</dt>
          <dd>{u.Phone}</dd>
          <dt>User ID</dt>
          <dd>{u.ID}</dd>
          <dt>Consent record</dt>
          <dd>{record.ID}</dd>
        </dl>
      </section>
      <section aria-labelledby="consents">
        <h2 id="consents">Consents</h2>
        <Consents record={record} />
      </section>
      <section aria-labelledby="history">
        <h2 id="history">Consent history</h2>
        {history ? (
          <History history={history} names={names} self={u.ID} older={`${self}?${older}`} />
        ) : (
          <p class="note">
            Your roles do not let you read this history: the API lets the organisation’s Dpo read it
            (consents.history.list).
          </p>
        )}
      </section>
      {allows(props.roles, 'individuals.remove') && (
        <section class="card" aria-labelledby="unsubscribe">
          <h2 id="unsubscribe">Unsubscribe</h2>
          <form method="post" action={`${self}/remove`}>
            <Csrf token={props.csrfToken} />
            <label>
              <input type="checkbox" name="confirm" value="on" required /> I confirm: unsubscribe {label} from{' '}
              {props.orgName}. Their consent record and its history are kept.
            </label>
            <p>
              <button type="submit" class="danger">
                Unsubscribe
              </button>
            </p>
          </form>
        </section>
      )}
    </IndividualsShell>
  );
}
