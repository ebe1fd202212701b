/**
 * The wallet sections of the console's Integrations page (docs/wallet.md "Wallet settings" and
 * "Relying parties"): the wallet settings (the verifier's private key is write-only and never
 * shown; the form is `wallet-form.tsx`), and the relying parties of the organisation's OpenID provider (docs/api.md "Authorization endpoint"), with a
 * registration form and deletion for the roles the API lets do them.
 */
import type { X509Certificate } from 'node:crypto';
import { parseCertificates, type WalletSettingsView } from '../../provider/index.js';
import { FormError, shown, TextArea, TextField } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import type { IntegrationsView } from './integrations.js';
import { DeleteForm } from './organisation-forms.js';
import { allows } from './shell.js';
import { ColumnHeads } from './table.js';
import { WalletDeleteForm, WalletForm } from './wallet-form.js';

/** The certificates of a PEM text, or none when it does not parse (a display must never fail the page). */
function certificates(pem: string): X509Certificate[] {
  try {
    return parseCertificates(pem);
  } catch {
    return [];
  }
}

/** An X.509 subject (RFC 5280 §4.1.2.6) on one line: Node gives one attribute per line. */
const oneLine = (subject: string) => subject.split('\n').join(', ');

/** The `vct` values a DCQL query accepts (OpenID4VP 1.0 §B.3.5 `meta.vct_values`), for display. */
function acceptedTypes(query: unknown): string[] {
  const credentials = (query as { credentials?: Array<{ meta?: { vct_values?: unknown } }> }).credentials ?? [];
  return credentials.flatMap((c) => (Array.isArray(c.meta?.vct_values) ? c.meta.vct_values.map(String) : []));
}

function WalletFacts({ w }: { w: WalletSettingsView }) {
  const leaf = certificates(w.verifierCertificateChain)[0];
  const issuers = w.trustedIssuerCertificates.flatMap(certificates);
  return (
    <>
      <dl class="facts">
        <dt>Profile</dt>
        <dd>{w.profile}</dd>
        <dt>Same device only</dt>
        <dd>{w.sameDeviceOnly ? 'yes' : 'no'}</dd>
        <dt>Verifier certificate</dt>
        <dd>{leaf ? oneLine(leaf.subject) : '—'}</dd>
        <dt>Verifier certificate expires</dt>
        <dd>{leaf ? new Date(leaf.validTo).toISOString() : '—'}</dd>
        <dt>Accepted credential types</dt>
        <dd>{acceptedTypes(w.dcqlQuery).join(', ') || '—'}</dd>
        <dt>Verifier client ID</dt>
        <dd>
          <code>{w.verifierClientId}</code>
        </dd>
      </dl>
      <h3>Trusted issuers</h3>
      {issuers.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {issuers.map((c) => (
            <li key={c.fingerprint256}>{oneLine(c.subject)}</li>
          ))}
        </ul>
      )}
      <h3>DCQL query</h3>
      <pre class="table-wrap">
        <code>{JSON.stringify(w.dcqlQuery, null, 2)}</code>
      </pre>
    </>
  );
}

/** The wallet settings, with the form and deletion for the roles the API allows. */
export function WalletSection({ v }: { v: IntegrationsView }) {
  if (v.wallet === undefined) return null;
  return (
    <section class="card" aria-labelledby="wallet">
      <h2 id="wallet">Wallet sign-in settings</h2>
      {v.wallet === null ? <p>Wallet sign-in is not set up.</p> : <WalletFacts w={v.wallet} />}
      {allows(v.roles, 'wallet.settings.put') && <WalletForm v={v} />}
      {v.wallet && allows(v.roles, 'wallet.settings.delete') && <WalletDeleteForm v={v} />}
      <p class="note">The verifier’s private key is write-only: Assent never shows it, here or in the API.</p>
    </section>
  );
}

function RegisterForm({ v }: { v: IntegrationsView }) {
  const r = v.clientForm;
  return (
    <form method="post" action={`/console/${v.orgId}/integrations/relying-parties`}>
      <Csrf token={v.csrfToken} />
      <h3 id="register-rp">Register a relying party</h3>
      <FormError refused={r} />
      <TextField
        id="rp-name"
        name="name"
        label="Name (shown on the sign-in page)"
        required
        maxLength={200}
        value={shown(r, 'name', '')}
        refused={r}
      />
      <TextField
        id="rp-clientid"
        name="clientid"
        label="Client ID (optional; generated when empty)"
        maxLength={100}
        value={shown(r, 'clientid', '')}
        refused={r}
      />
      <TextArea
        id="rp-uris"
        name="redirecturis"
        label="Redirect URIs (one per line)"
        rows={3}
        required
        value={shown(r, 'redirecturis', '')}
        refused={r}
      />
      <label>
        <input type="checkbox" name="public" value="on" checked={r?.values.public === 'on'} /> Public client (no secret;
        PKCE S256 required)
      </label>
      <p>
        <button type="submit">Register</button>
      </p>
    </form>
  );
}

/** The relying parties: list, register, delete. */
export function RelyingPartiesSection({ v }: { v: IntegrationsView }) {
  if (!v.clients) return null;
  const remove = allows(v.roles, 'oidc.clients.delete');
  return (
    <section class="card" aria-labelledby="relying-parties">
      <h2 id="relying-parties">Relying parties</h2>
      {v.clients.length === 0 ? (
        <p>No relying parties registered.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <ColumnHeads names={['Client ID', 'Name', 'Redirect URIs', 'Type', ...(remove ? ['Delete'] : [])]} />
            <tbody>
              {v.clients.map((c) => (
                <tr key={c.clientId}>
                  <th scope="row">
                    <code>{c.clientId}</code>
                  </th>
                  <td>{c.name}</td>
                  <td>
                    {c.redirectUris.map((u) => (
                      <div key={u}>
                        <code>{u}</code>
                      </div>
                    ))}
                  </td>
                  <td>{c.public ? 'public' : 'confidential'}</td>
                  {remove && (
                    <td>
                      <DeleteForm
                        id={`rp-${c.clientId}-delete`}
                        action={`/console/${v.orgId}/integrations/relying-parties/${encodeURIComponent(c.clientId)}/delete`}
                        csrfToken={v.csrfToken}
                        what={c.name}
                        consequence="Its sign-ins stop at once."
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {allows(v.roles, 'oidc.clients.create') && <RegisterForm v={v} />}
    </section>
  );
}
