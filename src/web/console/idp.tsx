/**
 * The external OpenID provider section of the console's Integrations page (docs/web.md "Console",
 * docs/federation.md "Configuration"): the stored configuration, the callback to register at the
 * provider, and for the roles the API lets change it (`federation.idp.create`, `…update`,
 * `…delete`) the form, with the endpoints optionally filled from the issuer's discovery document,
 * and deletion behind a confirmation box. The client secret is write-only: its field is always
 * empty, and left empty on an edit it keeps the stored secret.
 */
import type { FederationConfigService } from '../../federation/index.js';
import { FieldError, invalidAttrs, TextField } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import { Checkbox } from './checkbox.js';
import type { FormState, IntegrationsView } from './integrations.js';
import { allows } from './shell.js';

type Idp = Awaited<ReturnType<FederationConfigService['read']>>;

/** The form's URL fields: name, label. */
const ENDPOINTS = [
  ['authorizationurl', 'Authorization endpoint'],
  ['tokenurl', 'Token endpoint'],
  ['jwksurl', 'JWKS URL (the provider’s signing keys)'],
  ['userinfourl', 'Userinfo endpoint (empty only when userinfo is disabled)'],
  ['logouturl', 'End-session (logout) endpoint (empty: no provider logout)'],
] as const;

/**
 * The form's values (field name → text; a ticked box is `on`) of a stored configuration, or the
 * defaults of a new one (`validateSignature` true, discovery on).
 */
function valuesOf(idp: Idp | null): Record<string, string> {
  if (!idp) return { defaultscope: 'openid email profile', validatesignature: 'on', discover: 'on' };
  return {
    issuer: idp.issuer,
    authorizationurl: idp.authorizationUrl,
    tokenurl: idp.tokenUrl,
    jwksurl: idp.jwksUrl,
    userinfourl: idp.userInfoUrl,
    logouturl: idp.logoutUrl,
    clientid: idp.clientId,
    defaultscope: idp.defaultScope,
    validatesignature: idp.validateSignature ? 'on' : '',
    disableuserinfo: idp.disableUserInfo ? 'on' : '',
  };
}

function Text(props: { name: string; label: string; value?: string; required?: boolean; refused?: FormState }) {
  const { name } = props;
  return <TextField id={`idp-${name}`} maxLength={2000} {...props} value={props.value ?? ''} refused={props.refused} />;
}

function IdpForm({ v, refused }: { v: IntegrationsView; refused?: FormState }) {
  const create = !v.idp;
  const values = refused?.values ?? valuesOf(v.idp ?? null);
  return (
    <form method="post" action={`/console/${v.orgId}/integrations/idp/${create ? 'create' : 'update'}`}>
      <Csrf token={v.csrfToken} />
      <h3>{create ? 'Configure the provider' : 'Edit the provider'}</h3>
      {refused && (
        <p class="error" role="alert">
          {refused.error}
        </p>
      )}
      <Text name="issuer" label="Issuer (https)" value={values.issuer} required refused={refused} />
      <Checkbox name="discover" values={values} label="Fill the endpoints from the issuer’s discovery document" />
      {ENDPOINTS.map(([name, label]) => (
        <Text key={name} name={name} label={label} value={values[name]} refused={refused} />
      ))}
      <Text name="clientid" label="Client ID (at the provider)" value={values.clientid} required refused={refused} />
      <label for="idp-clientsecret">
        Client secret {create ? '' : '(write-only: leave empty to keep the stored one)'}
      </label>
      {/* Threat: the stored secret read off the page (screen, cache, extensions): the field never carries it. */}
      <input
        id="idp-clientsecret"
        name="clientsecret"
        type="password"
        maxLength={2000}
        autoComplete="off"
        required={create}
        {...invalidAttrs(refused, 'clientsecret', 'idp-clientsecret')}
      />
      <FieldError refused={refused} name="clientsecret" id="idp-clientsecret" />
      <Text
        name="defaultscope"
        label="Scopes (space-separated; must include openid)"
        value={values.defaultscope}
        refused={refused}
      />
      <Checkbox name="validatesignature" values={values} label="Verify the ID token’s signature by the JWKS URL" />
      <Checkbox name="disableuserinfo" values={values} label="Take the claims from the ID token only (no userinfo)" />
      <p>
        <button type="submit">{create ? 'Add the provider' : 'Save the provider'}</button>
      </p>
    </form>
  );
}

function DeleteForm({ v }: { v: IntegrationsView }) {
  return (
    <form method="post" action={`/console/${v.orgId}/integrations/idp/delete`}>
      <Csrf token={v.csrfToken} />
      <h3>Delete the provider</h3>
      <label>
        <input type="checkbox" name="confirm" value="on" required /> I confirm: delete the external OpenID provider of{' '}
        {v.orgName}. Sign-in through it stops at once.
      </label>
      <p>
        <button type="submit" class="danger">
          Delete the provider
        </button>
      </p>
    </form>
  );
}

/** The section: the configuration, and the form and deletion for the roles the API allows. */
export function IdpSection({ v }: { v: IntegrationsView }) {
  if (v.idp === undefined) return null;
  const mayChange = allows(v.roles, v.idp ? 'federation.idp.update' : 'federation.idp.create');
  return (
    <section class="card" aria-labelledby="idp">
      <h2 id="idp">External OpenID provider</h2>
      {v.idp === null ? (
        <p>No external OpenID provider is configured.</p>
      ) : (
        <dl class="facts">
          <dt>Issuer</dt>
          <dd>{v.idp.issuer}</dd>
          <dt>Client ID</dt>
          <dd>{v.idp.clientId}</dd>
          <dt>Scopes</dt>
          <dd>{v.idp.defaultScope}</dd>
        </dl>
      )}
      {v.idpCallback && (
        <p>
          Redirect URI to register at the provider: <code>{v.idpCallback}</code>
        </p>
      )}
      {mayChange && <IdpForm v={v} refused={v.idpForm} />}
      {v.idp && allows(v.roles, 'federation.idp.delete') && <DeleteForm v={v} />}
      <p class="note">The client secret is write-only: Assent never shows it, here or in the API.</p>
    </section>
  );
}
