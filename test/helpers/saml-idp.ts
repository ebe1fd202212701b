/**
 * A real SAML 2.0 IdP for tests: Debian's SimpleSAMLphp, configured in a temporary directory with a
 * fresh key pair and started on 127.0.0.1 with PHP's built-in server. It knows one SP (Assent's
 * entity ID, ACS, SLO, signing certificate, and the encryption certificate when it encrypts assertions),
 * requires signed AuthnRequests and LogoutRequests, signs its logout messages, and gives the SP a
 * persistent NameID made from `uid`. Tests that need it fail when ASSENT_REQUIRE_SAML_IDP=1 (as in
 * CI) and it is not installed, and are skipped otherwise.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './assent.js';
import type { Browser } from './oidc.js';
import { testKeyPair } from './saml-keys.js';

const WWW = '/usr/share/simplesamlphp/www';

/** Whether SimpleSAMLphp, PHP and php-xml are installed; throws when required (CI) and they are not. */
export function samlIdpAvailable(): boolean {
  let ok = existsSync(`${WWW}/saml2/idp/SSOService.php`);
  if (ok) {
    try {
      ok = execFileSync('php', ['-r', 'echo class_exists("DOMDocument") ? "y" : "n";']).toString() === 'y';
    } catch {
      ok = false;
    }
  }
  if (!ok && process.env.ASSENT_REQUIRE_SAML_IDP === '1')
    throw new Error(
      'SimpleSAMLphp is required (ASSENT_REQUIRE_SAML_IDP=1): apt-get install simplesamlphp php-cli php-xml',
    );
  return ok;
}

/** The SP the IdP is told about. */
export interface SpDescription {
  entityId: string;
  acsUrl: string;
  sloUrl: string;
  /** PEM certificate Assent signs its requests with (the one the IdP pins). */
  certificate: string;
  /** PEM certificate to encrypt assertions to (`assertion.encryption`); unencrypted when absent. */
  encryptionCertificate?: string;
  /** The binding the IdP sends its logout messages to the SP on (default HTTP-Redirect). */
  sloBinding?: 'HTTP-Redirect' | 'HTTP-POST';
}

/** A running SimpleSAMLphp. */
export interface TestSamlIdp {
  /** `http://127.0.0.1:<port>` */
  url: string;
  entityId: string;
  metadataUrl: string;
  /** The IdP's signing certificate (PEM). */
  certificate: string;
  close(): Promise<void>;
}

const php = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** One entry of a remote SP's `keys` (SimpleSAMLphp metadata), a PEM certificate for one use. */
const keyEntry = (pem: string, use: 'signing' | 'encryption') =>
  `['type' => 'X509Certificate', 'signing' => ${use === 'signing'}, 'encryption' => ${use === 'encryption'}, ` +
  `'X509Certificate' => ${php(pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''))}]`;

/**
 * Starts SimpleSAMLphp for `sp`, with the users alice (alicepass) and bob (bobpass).
 * @throws when it does not answer its metadata within 10 s.
 */
export async function startSamlIdp(sp: SpDescription): Promise<TestSamlIdp> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-ssp-'));
  for (const d of ['config', 'metadata', 'cert', 'sessions', 'tmp']) mkdirSync(path.join(dir, d));
  const idpKey = await testKeyPair('test-idp');
  writeFileSync(path.join(dir, 'cert/idp.key'), idpKey.privateKey, { mode: 0o600 });
  writeFileSync(path.join(dir, 'cert/idp.crt'), idpKey.certificate);
  writeFileSync(path.join(dir, 'cert/sp.crt'), sp.certificate);
  writeFileSync(
    path.join(dir, 'config/config.php'),
    `<?php
$dir = dirname(__DIR__);
$config = [
  'baseurlpath' => '/', 'certdir' => $dir . '/cert/', 'metadatadir' => $dir . '/metadata/',
  'tempdir' => $dir . '/tmp/', 'session.phpsession.savepath' => $dir . '/sessions',
  'secretsalt' => 'test-only-not-secret', 'enable.saml20-idp' => true,
  'module.enable' => ['exampleauth' => true], 'logging.handler' => 'stderr',
  'logging.level' => SimpleSAML\\Logger::WARNING,
];
`,
  );
  writeFileSync(
    path.join(dir, 'config/authsources.php'),
    `<?php
$config = ['test-userpass' => ['exampleauth:UserPass',
  'alice:alicepass' => ['uid' => ['alice-0001'], 'email' => ['alice@idp.example'], 'displayName' => ['Alice Example']],
  'bob:bobpass' => ['uid' => ['bob-0002'], 'email' => ['alice@acme.example'], 'displayName' => ['Bob Claims Alice']],
]];
`,
  );
  writeFileSync(
    path.join(dir, 'metadata/saml20-idp-hosted.php'),
    `<?php
$metadata['urn:test:idp'] = ['host' => '__DEFAULT__', 'privatekey' => 'idp.key', 'certificate' => 'idp.crt', 'auth' => 'test-userpass'];
`,
  );
  writeFileSync(
    path.join(dir, 'metadata/saml20-sp-remote.php'),
    `<?php
$metadata[${php(sp.entityId)}] = [
  'AssertionConsumerService' => ${php(sp.acsUrl)},
  'SingleLogoutService' => [['Binding' => ${php(`urn:oasis:names:tc:SAML:2.0:bindings:${sp.sloBinding ?? 'HTTP-Redirect'}`)}, 'Location' => ${php(sp.sloUrl)}]],
  'NameIDFormat' => 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'simplesaml.nameidattribute' => 'uid',
  ${sp.encryptionCertificate ? `'keys' => [${keyEntry(sp.certificate, 'signing')}, ${keyEntry(sp.encryptionCertificate, 'encryption')}], 'assertion.encryption' => true,` : `'certificate' => 'sp.crt',`}
  'validate.authnrequest' => true, 'validate.logout' => true, 'sign.logout' => true,
];
`,
  );
  const port = await freePort();
  const child: ChildProcess = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', WWW], {
    env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: path.join(dir, 'config') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (c: Buffer) => {
    log = (log + c.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const metadataUrl = `${url}/saml2/idp/metadata.php`;
  const close = async () => {
    if (child.exitCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i++) {
    const body = await fetch(metadataUrl)
      .then((r) => r.text())
      .catch(() => '');
    if (body.includes('IDPSSODescriptor'))
      return { url, entityId: 'urn:test:idp', metadataUrl, certificate: idpKey.certificate, close };
    await new Promise((r) => setTimeout(r, 100));
  }
  await close();
  throw new Error(`SimpleSAMLphp did not start: ${log}`);
}

/** Decodes the HTML entities SimpleSAMLphp writes in attribute values. */
const decodeEntities = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The first form of a page: its absolute action and its hidden fields. */
export function pageForm(html: string, pageUrl: string): { action: string; fields: Record<string, string> } | null {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return null;
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1];
    if (name && /type="hidden"/i.test(input[0])) fields[name] = decodeEntities(value ?? '');
  }
  return { action: new URL(decodeEntities(form[1]!), pageUrl).href, fields };
}

/**
 * Drives a browser from `start` through the IdP's login form (when shown) and its auto-submitting
 * response form, up to a redirect to `stopAt` (not followed).
 * @returns the redirect target, whether a login form was shown, and the SAMLResponse posted.
 */
export async function driveSaml(
  browser: Browser,
  start: string,
  stopAt: string,
  user: { username: string; password: string },
): Promise<{ location: string | null; sawLogin: boolean; samlResponse?: string; last?: string }> {
  let next: { url: string; form?: Record<string, string> } | null = { url: start };
  let sawLogin = false;
  let samlResponse: string | undefined;
  for (let i = 0; i < 15 && next; i++) {
    const res = await browser.request(next.url, next.form ? { form: next.form } : {});
    if (res.location) {
      if (res.location.startsWith(stopAt)) return { location: res.location, sawLogin, samlResponse };
      next = { url: res.location };
      continue;
    }
    const form = pageForm(res.body, next.url);
    if (!form) return { location: null, sawLogin, samlResponse, last: res.body.slice(0, 500) };
    if (/name="password"/.test(res.body)) {
      sawLogin = true;
      Object.assign(form.fields, user);
    }
    if (form.fields.SAMLResponse) samlResponse = form.fields.SAMLResponse;
    next = { url: form.action, form: form.fields };
  }
  return { location: null, sawLogin, samlResponse };
}
