/**
 * The console's Consent requests pages (docs/web.md "Console"): start a special consent request
 * (docs/api.md "Permissions and consents", the 202 operation) for a purpose, about all or chosen data attributes, and follow its
 * job live: a `<progress>` with its text equivalent, polled by htmx every second until the job ends
 * (the fragment then carries no `hx-trigger`, so the polling stops). Without script the job page
 * shows the state at load and a link to reload it.
 */

import type { ComponentChildren } from 'preact';
import type { DataAttributeBody, JobView, OrganisationBody } from '../../consent/index.js';
import { CheckboxGroup, FormError, type RefusedForm } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import { allows, ConsolePage } from './shell.js';

/** What every Consent requests page shows around its content. */
interface Frame {
  org: OrganisationBody;
  roles: readonly number[];
  csrfToken: string;
}

/** What the start page shows. */
export interface RequestsProps extends Frame {
  attributes: DataAttributeBody[];
  /** The form just refused (its `purposeid` says which): the ticks as sent and the error by the attributes. */
  refused?: RefusedForm;
}

/** What a job's page shows. */
export interface JobProps extends Frame {
  job: JobView;
  attributes: DataAttributeBody[];
}

/** Whether a job has ended (`completed` or `failed`): its counts no longer change. */
function jobEnded(job: JobView): boolean {
  return job.State === 'completed' || job.State === 'failed';
}

const requestsPath = (orgId: string) => `/console/${orgId}/requests`;

function Shell({ org, roles, csrfToken, title, children }: Frame & { title: string; children: ComponentChildren }) {
  const current = requestsPath(org.ID);
  return (
    <ConsolePage {...{ title, orgId: org.ID, orgName: org.Name, roles, current, csrfToken }}>{children}</ConsolePage>
  );
}

function PurposeRequest(
  props: { orgId: string; csrfToken: string; purpose: OrganisationBody['Purposes'][number] } & {
    attributes: DataAttributeBody[];
    refused?: RefusedForm;
  },
) {
  const { orgId, csrfToken, purpose, attributes, refused: r } = props;
  const id = `r-${purpose.ID}`;
  return (
    <section class="card" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{purpose.Name}</h3>
      <p class="muted">{purpose.LawfulUsage ? 'Lawful basis other than consent' : 'Lawful basis: consent'}</p>
      {attributes.length === 0 ? (
        <p>This purpose has no data attributes to ask about.</p>
      ) : (
        <form method="post" action={requestsPath(orgId)}>
          <FormError refused={r} />
          <Csrf token={csrfToken} />
          <input type="hidden" name="purposeid" value={purpose.ID} />
          <CheckboxGroup
            id={`${id}-attributes`}
            name="attributeids"
            legend="Data attributes to ask about (none ticked: every one)"
            options={attributes.map((a) => ({ value: a.ID, label: a.Consent }))}
            stored={() => false}
            refused={r}
          />
          <p>
            <button type="submit">Ask individuals about {purpose.Name}</button>
          </p>
        </form>
      )}
    </section>
  );
}

/** The start page: one form per purpose, for those the API lets start a request (Owner, Admin). */
export function RequestsPage({ org, roles, csrfToken, attributes, refused }: RequestsProps) {
  const start = allows(roles, 'consent.request.create');
  return (
    <Shell title="Consent requests" org={org} roles={roles} csrfToken={csrfToken}>
      <p>
        A special consent request asks every subscribed individual who does not consent to at least one of the chosen
        data attributes to reconsider, through the organisation's webhook or by e-mail. Individuals that no transport
        reaches are counted as skipped.
      </p>
      <h2>Start a request</h2>
      {start ? (
        org.Purposes.map((p) => (
          <PurposeRequest
            key={p.ID}
            orgId={org.ID}
            csrfToken={csrfToken}
            purpose={p}
            attributes={attributes.filter((a) => a.PurposeIDs.includes(p.ID))}
            refused={refused?.values.purposeid === p.ID ? refused : undefined}
          />
        ))
      ) : (
        <p class="note">Your role can follow a request's progress from its link, but not start one.</p>
      )}
    </Shell>
  );
}

function countsText(job: JobView): string {
  const counts = `${job.Notified} notified, ${job.Skipped} skipped, ${job.Failed} failed`;
  const total = job.Notified + job.Skipped + job.Failed;
  if (job.State === 'queued') return 'Queued: waiting to start.';
  if (job.State === 'running') return `Running: ${counts} so far; the total is known when the request ends.`;
  const state = job.State === 'completed' ? 'Completed' : 'Failed';
  return `${state}: ${counts}, of ${total} individual${total === 1 ? '' : 's'}.`;
}

/**
 * A job's progress, the fragment htmx polls every second while the job runs. The job read has no
 * total before the scan of individuals ends, so until the job ends the bar is indeterminate (no
 * `value`) and the text gives the counts so far; once it ends the bar is full and the polling stops.
 */
export function JobProgress({ orgId, job }: { orgId: string; job: JobView }) {
  const ended = jobEnded(job);
  const total = job.Notified + job.Skipped + job.Failed;
  const poll = ended
    ? {}
    : { 'hx-get': `${requestsPath(orgId)}/${job.ID}/progress`, 'hx-trigger': 'every 1s', 'hx-swap': 'outerHTML' };
  const text = countsText(job);
  return (
    <div id="job-progress" {...poll} aria-busy={ended ? undefined : 'true'}>
      <label for="job-bar">Progress</label>
      {ended ? (
        <progress
          id="job-bar"
          value={total === 0 ? 1 : total}
          max={total === 0 ? 1 : total}
          aria-describedby="job-counts"
        >
          {text}
        </progress>
      ) : (
        <progress id="job-bar" aria-describedby="job-counts">
          {text}
        </progress>
      )}
      <p id="job-counts" data-state={job.State}>
        {text}
      </p>
      {job.Skipped > 0 && job.SkippedReason && <p class="note">Skipped because: {job.SkippedReason}</p>}
      {job.Error && (
        <p class="error" role="alert">
          {job.Error}
        </p>
      )}
      {!ended && (
        <noscript>
          <p>
            <a href={`${requestsPath(orgId)}/${job.ID}`}>Reload to see the progress</a>
          </p>
        </noscript>
      )}
    </div>
  );
}

/** A job's page: what it asks about, when, and its live progress. */
export function JobPage({ org, roles, csrfToken, job, attributes }: JobProps) {
  const purpose = org.Purposes.find((p) => p.ID === job.PurposeID);
  const names = job.AttributeIDs.map((id) => attributes.find((a) => a.ID === id)?.Consent ?? id);
  return (
    <Shell title="Consent request" org={org} roles={roles} csrfToken={csrfToken}>
      <dl class="facts">
        <dt>Purpose</dt>
        <dd>{purpose?.Name ?? job.PurposeID}</dd>
        <dt>Data attributes</dt>
        <dd>{names.join(', ')}</dd>
        <dt>Requested at</dt>
        <dd>{job.CreatedAt}</dd>
        <dt>Job</dt>
        <dd>{job.ID}</dd>
      </dl>
      <h2>Progress</h2>
      <JobProgress orgId={org.ID} job={job} />
      <p>
        <a href={requestsPath(org.ID)}>Back to consent requests</a>
      </p>
    </Shell>
  );
}
