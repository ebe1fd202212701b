/**
 * The wallet settings form of the console's Integrations page (docs/web.md "Console";
 * docs/wallet.md "Wallet settings"), for the roles the API lets change them (`wallet.settings.put`,
 * `wallet.settings.delete`): every field of the API's `PUT …/wallet`, the PEM inputs and the JSON
 * ones (DCQL query, claim mapping) as textareas. The verifier's private key is write-only: its field
 * is always empty, and left empty it keeps the stored key.
 */

import { DEFAULT_CLAIM_MAPPING, DEFAULT_DCQL_QUERY, type WalletSettingsView } from '../../provider/index.js';
import { FieldError, invalidAttrs, TextField } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import { Checkbox } from './checkbox.js';
import type { FormState, IntegrationsView } from './integrations.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The form's values (field name → text; a ticked box is `on`) of stored settings, or a new set's defaults. */
function valuesOf(w: WalletSettingsView | null): Record<string, string> {
  if (!w)
    return {
      profile: 'haip',
      generatekey: 'on',
      dcqlquery: json(DEFAULT_DCQL_QUERY),
      claimmapping: json(DEFAULT_CLAIM_MAPPING),
      stableclaim: 'email_address',
      deeplinkscheme: 'openid4vp://',
      a128gcm: 'on',
      a256gcm: 'on',
    };
  return {
    profile: w.profile,
    verifierchain: w.verifierCertificateChain,
    trustedissuers: w.trustedIssuerCertificates.join(''),
    dcqlquery: json(w.dcqlQuery),
    claimmapping: json(w.claimMapping),
    stableclaim: w.stableClaim,
    samedeviceonly: w.sameDeviceOnly ? 'on' : '',
    deeplinkscheme: w.deepLinkScheme,
    a128gcm: w.responseEncryption.includes('A128GCM') ? 'on' : '',
    a256gcm: w.responseEncryption.includes('A256GCM') ? 'on' : '',
  };
}

function Area(props: { name: string; label: string; value?: string; rows: number; refused?: FormState }) {
  const { name, refused } = props;
  const id = `wallet-${name}`;
  return (
    <>
      <label for={id}>{props.label}</label>
      <textarea id={id} name={name} rows={props.rows} spellcheck={false} {...invalidAttrs(refused, name, id)}>
        {props.value ?? ''}
      </textarea>
      <FieldError refused={refused} name={name} id={id} />
    </>
  );
}

/** The create-or-replace form; after a refusal, the values as sent and the service's message. */
export function WalletForm({ v }: { v: IntegrationsView }) {
  const r = v.walletForm;
  const values = r?.values ?? valuesOf(v.wallet ?? null);
  return (
    <form method="post" action={`/console/${v.orgId}/integrations/wallet`}>
      <Csrf token={v.csrfToken} />
      <h3>{v.wallet ? 'Edit the settings' : 'Set up wallet sign-in'}</h3>
      {v.walletForm && (
        <p class="error" role="alert">
          {v.walletForm.error}
        </p>
      )}
      <label for="wallet-profile">Profile</label>
      <select id="wallet-profile" name="profile">
        <option value="haip" selected={values.profile !== 'compat'}>
          haip (x509_hash, signed request by request_uri)
        </option>
        <option value="compat" selected={values.profile === 'compat'}>
          compat (redirect_uri, request by value)
        </option>
      </select>
      <Area
        name="trustedissuers"
        refused={r}
        rows={6}
        value={values.trustedissuers}
        label="Trusted issuer certificates (PEM CA certificates, 1 to 20, one after another)"
      />
      <Area
        name="dcqlquery"
        refused={r}
        rows={8}
        value={values.dcqlquery}
        label="DCQL query (JSON; the accepted credential types are each credential's meta.vct_values)"
      />
      <Area
        name="claimmapping"
        refused={r}
        rows={4}
        value={values.claimmapping}
        label="Claim mapping (JSON: ID-token claim → path)"
      />
      <TextField
        id="wallet-stableclaim"
        name="stableclaim"
        label="Stable claim (identifies the individual)"
        maxLength={64}
        value={values.stableclaim ?? ''}
        refused={r}
      />
      <TextField
        id="wallet-deeplinkscheme"
        name="deeplinkscheme"
        label="Deep-link scheme"
        maxLength={40}
        value={values.deeplinkscheme ?? ''}
        refused={r}
      />
      <Checkbox
        name="samedeviceonly"
        values={values}
        label="Same device only (the QR code cannot complete a sign-in)"
      />
      <fieldset>
        <legend>Response encryption (none ticked: plain direct_post)</legend>
        <Checkbox name="a128gcm" values={values} label="A128GCM" />
        <Checkbox name="a256gcm" values={values} label="A256GCM" />
      </fieldset>
      <h4>Verifier key</h4>
      <Checkbox
        name="generatekey"
        values={values}
        label="Generate a new key and self-signed certificate (replaces the chain below)"
      />
      <Area
        name="verifierchain"
        refused={r}
        rows={6}
        value={values.verifierchain}
        label="Verifier certificate chain (PEM, leaf first)"
      />
      <label for="wallet-verifierkey">
        Verifier private key (PEM, P-256; write-only: leave empty to keep the stored key)
      </label>
      {/* Threat: the stored key read off the page (screen, cache, extensions): the field never carries it. */}
      <textarea
        id="wallet-verifierkey"
        name="verifierkey"
        rows={4}
        spellcheck={false}
        autoComplete="off"
        {...invalidAttrs(r, 'verifierkey', 'wallet-verifierkey')}
      />
      <FieldError refused={r} name="verifierkey" id="wallet-verifierkey" />
      <p>
        <button type="submit">Save wallet settings</button>
      </p>
    </form>
  );
}

/** Deletion, behind its confirmation box. */
export function WalletDeleteForm({ v }: { v: IntegrationsView }) {
  return (
    <form method="post" action={`/console/${v.orgId}/integrations/wallet/delete`}>
      <Csrf token={v.csrfToken} />
      <h3>Delete the settings</h3>
      <label>
        <input type="checkbox" name="confirm" value="on" required /> I confirm: delete the wallet settings of{' '}
        {v.orgName}. Wallet sign-in stops at once.
      </label>
      <p>
        <button type="submit" class="danger">
          Delete wallet settings
        </button>
      </p>
    </form>
  );
}
