/**
 * The console's consent overview (docs/web.md "Console"): per purpose and data attribute, how many
 * subscribed individuals Allow, Disallow, AskMe or have not decided (the API's
 * `GET …/consents/overview`), the trend over the last days (`GET …/consents/trend`) as a chart and a
 * table, and links to the consented users of each purpose and attribute.
 */
import type { OverviewBody, TrendBody } from '../../consent/index.js';
import type { IndividualBody } from '../../organisations/index.js';
import { utcTime } from '../shared/format.js';
import { ConsolePage } from './shell.js';
import { TrendChart } from './trend-chart.js';

/** What the overview page shows. */
export interface OverviewProps {
  overview: OverviewBody;
  trend: TrendBody;
  orgName: string;
  roles: readonly number[];
  csrfToken: string;
}

const usersLink = (orgId: string, purposeId: string, attributeId?: string) =>
  `/console/${orgId}/consents/users?purposeid=${purposeId}${attributeId ? `&attributeid=${attributeId}` : ''}`;

/** The overview page. */
export function OverviewPage({ overview, trend, orgName, roles, csrfToken }: OverviewProps) {
  const orgId = overview.OrgID;
  return (
    <ConsolePage
      title="Consent overview"
      orgId={orgId}
      orgName={orgName}
      roles={roles}
      current={`/console/${orgId}/consents`}
      csrfToken={csrfToken}
    >
      <p>
        {overview.Individuals} subscribed individuals, counted at {utcTime(overview.At)} UTC.
      </p>
      {overview.Purposes.map((p) => (
        <section class="card" key={p.ID} aria-labelledby={`ov-${p.ID}`}>
          <h2 id={`ov-${p.ID}`}>{p.Name}</h2>
          <p class="muted">
            {p.LawfulUsage
              ? 'Lawful basis: not consent (undecided reads Allow)'
              : 'Lawful basis: consent (undecided reads Disallow)'}{' '}
            · <a href={usersLink(orgId, p.ID)}>Individuals who consented to the whole purpose</a>
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Data attribute</th>
                  <th scope="col">Allow</th>
                  <th scope="col">Disallow</th>
                  <th scope="col">AskMe</th>
                  <th scope="col">Not decided</th>
                </tr>
              </thead>
              <tbody>
                {p.Attributes.map((a) => (
                  <tr key={a.ID}>
                    <th scope="row">
                      <a href={usersLink(orgId, p.ID, a.ID)}>{a.Name}</a>
                    </th>
                    <td>{a.Allow}</td>
                    <td>{a.Disallow}</td>
                    <td>{a.AskMe}</td>
                    <td>{a.Undecided}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
      <section class="card" aria-labelledby="trend">
        <h2 id="trend">The last {trend.Days.length} days</h2>
        <TrendChart trend={trend} />
        <details>
          <summary>The figures by day</summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day (UTC)</th>
                  <th scope="col">Changes to Allow</th>
                  <th scope="col">to Disallow</th>
                  <th scope="col">to AskMe</th>
                  <th scope="col">Allow at the end</th>
                  <th scope="col">Disallow</th>
                  <th scope="col">AskMe</th>
                </tr>
              </thead>
              <tbody>
                {[...trend.Days].reverse().map((d) => (
                  <tr key={d.Date}>
                    <th scope="row">{d.Date}</th>
                    <td>{d.Changes.Allow}</td>
                    <td>{d.Changes.Disallow}</td>
                    <td>{d.Changes.AskMe}</td>
                    <td>{d.Totals.Allow}</td>
                    <td>{d.Totals.Disallow}</td>
                    <td>{d.Totals.AskMe}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </section>
    </ConsolePage>
  );
}

/** One page of the individuals who consented to a purpose (or one of its attributes). */
export function ConsentedUsersPage(props: {
  orgId: string;
  orgName: string;
  what: string;
  users: IndividualBody[];
  next?: string;
  nextHref: (startId: string) => string;
  roles: readonly number[];
  csrfToken: string;
}) {
  const { orgId, orgName, what, users, next, nextHref, roles, csrfToken } = props;
  return (
    <ConsolePage
      title={`Consented to ${what}`}
      orgId={orgId}
      orgName={orgName}
      roles={roles}
      current={`/console/${orgId}/consents`}
      csrfToken={csrfToken}
    >
      <p>
        <a href={`/console/${orgId}/consents`}>Back to the overview</a>
      </p>
      {users.length === 0 ? (
        <p>Nobody on this page.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.ID}>
                  <td>
                    <a href={`/console/${orgId}/individuals/${u.ID}`}>{u.Name || u.ID}</a>
                  </td>
                  <td>{u.Email}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <p class="pager">
          <a href={nextHref(next)}>Next page</a>
        </p>
      )}
    </ConsolePage>
  );
}
