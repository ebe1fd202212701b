/**
 * The password policy (docs/decisions/0011-passwords-and-reset.md; NIST SP 800-63B §5.1.1.2; ASVS 5.0 V6.2), through
 * `POST {base}/organizations/{organizationID}/users` with a password and through the import; NFKC
 * at login, and users whose hash predates it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportValidationError, runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { hashPassword, verifyPassword } from '../src/identity/users/password-hashing.js';
import { startAssent, type TestAssent } from './helpers/assent.js';
import { createWithPassword, loginStatus, newUser, storedHash } from './helpers/passwords.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

let serial = 0;
/** A fresh username. */
const fresh = (label: string) => `${label}-${++serial}@acme.example`;

/** Creates a user with `password`; the status and the Message of a refusal. */
async function attempt(password: string, username = fresh('p')) {
  const res = await createWithPassword(t, username, password);
  return { status: res.status, message: res.body?.Message as string | undefined, username };
}

describe('password policy', () => {
  it('length is 8 to 128 Unicode code points of the NFKC form: 8 emoji (16 UTF-16 units) pass, 7 (14 units) do not; 128 pass, 129 do not', async () => {
    expect((await attempt('🦊🐢🦉🐙🦀🐝🦋🐌')).status).toBe(201);
    const seven = await attempt('🦊🐢🦉🐙🦀🐝🦋');
    expect(seven.status).toBe(400);
    expect(seven.message).toBe(
      'Password policy (minimum length): a password needs at least 8 characters; this one has 7',
    );
    expect((await attempt('k'.repeat(64) + 'q'.repeat(64))).status).toBe(201);
    const long = await attempt('k'.repeat(64) + 'q'.repeat(65));
    expect(long.status).toBe(400);
    expect(long.message).toBe(
      'Password policy (maximum length): a password has at most 128 characters; this one has 129',
    );
    // "ﬃ" is one code point, and three letters after NFKC: three of them make a 9-character password.
    const ligatures = await attempt('ﬃﬃﬃ');
    expect(ligatures.status).toBe(201);
    expect(await loginStatus(t, ligatures.username, 'ffiffiffi')).toBe(200);
  });

  it('passwords are normalised to NFKC before hashing and verifying: full-width or decomposed input signs in as its plain form, and the other way round', async () => {
    const wide = await attempt('ｃａｆｅ－ｐａｓｓｐｈｒａｓｅ');
    expect(wide.status).toBe(201);
    expect(await loginStatus(t, wide.username, 'cafe-passphrase')).toBe(200);
    expect(await loginStatus(t, wide.username, 'ｃａｆｅ－ｐａｓｓｐｈｒａｓｅ')).toBe(200);
    const composed = await attempt('Crème brûlée à deux');
    expect(composed.status).toBe(201);
    expect(await loginStatus(t, composed.username, 'Cre\u0300me bru\u0302le\u0301e a\u0300 deux')).toBe(200);
    expect(await loginStatus(t, composed.username, 'creme brulee a deux')).toBe(401); // no other folding
  });

  it('has no composition rules: lower-case only, digits and spaces, emoji, any script are accepted', async () => {
    for (const password of [
      'correct horse battery staple',
      '8407 3319 2650',
      'Ωμέγα και άλφα',
      '🙂🙃😉🙂🙃😉🙂🙃',
      '        x        ',
    ]) {
      const res = await attempt(password);
      expect(res.status, password).toBe(201);
      expect(await loginStatus(t, res.username, password), password).toBe(200);
    }
  });

  it('refuses common or breached passwords of the shipped list, in any case and after NFKC, naming the rule', async () => {
    for (const password of [
      'password1',
      'PASSWORD1',
      'ｐａｓｓｗｏｒｄ１',
      'iloveyou',
      '12345678',
      'qwertyuiop',
      'Trustno1',
    ]) {
      const res = await attempt(password);
      expect(res.status, password).toBe(400);
      expect(res.message, password).toBe(
        'Password policy (common passwords): ' +
          'this password is in a list of common or breached passwords; choose another',
      );
    }
  });

  it('refuses one character repeated and runs of consecutive characters', async () => {
    for (const password of ['aaaaaaaaaaaa', '            ', 'abcdefghij', 'zyxwvuts', '98765432']) {
      const res = await attempt(password);
      expect(res.status, JSON.stringify(password)).toBe(400);
      expect(res.message, password).toMatch(
        /^Password policy \((repetitive or sequential characters|common passwords)\)/,
      );
    }
    expect((await attempt('abcdefgh1')).status).toBe(201); // not a run as a whole
  });

  it('refuses the username, or its part before @, as the password (context-specific words)', async () => {
    for (const [username, password] of [
      ['Mirjam.Long@acme.example', 'MIRJAM.LONG@ACME.EXAMPLE'],
      ['mirjam.longer@acme.example', 'mirjam.longer'],
    ]) {
      const res = await attempt(password!, username);
      expect(res.status, password).toBe(400);
      expect(res.message).toBe(
        'Password policy (context-specific words): the password must not be the username, nor its part before "@"',
      );
    }
  });

  it('a refused password creates nothing: the username stays free', async () => {
    const username = fresh('kept-free');
    expect((await attempt('password1', username)).status).toBe(400);
    expect((await attempt('a-fine-long-passphrase', username)).status).toBe(201);
  });

  it('assent import refuses a password the policy refuses, naming its JSON path, and writes nothing', async () => {
    const file = {
      organisations: [
        {
          key: 'policy-org',
          name: 'Policy',
          individuals: [
            { username: 'imp-ok@policy.example', password: 'a-fine-long-passphrase' },
            { username: 'imp@policy.example', password: 'Sunshine1' },
          ],
        },
      ],
    };
    const err = await runImport(t.store.db, file, t.config.argon2, redirectUriImport).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportValidationError);
    expect((err as ImportValidationError).problems).toEqual([
      '$.organisations[0].individuals[1].password: Password policy (common passwords): ' +
        'this password is in a list of common or breached passwords; choose another',
    ]);
    const { rows } = await t.store.raw(`SELECT count(*)::int AS n FROM users WHERE username LIKE '%@policy.example'`);
    expect((rows[0] as { n: number }).n).toBe(0);
  });

  it('an import hashes the NFKC form, and a re-import of the same password keeps the hash', async () => {
    const file = {
      organisations: [
        {
          key: 'nfkc-org',
          name: 'NFKC',
          individuals: [{ username: 'wide@nfkc.example', password: 'ｗｉｄｅ－ｐａｓｓｐｈｒａｓｅ' }],
        },
      ],
    };
    const ids = await runImport(t.store.db, file, t.config.argon2, redirectUriImport);
    const userId = ids.organisations['nfkc-org']!.users['wide@nfkc.example']!;
    const hash = await storedHash(t, userId);
    expect(await verifyPassword(hash!, 'wide-passphrase')).toBe(true);
    await runImport(t.store.db, file, t.config.argon2, redirectUriImport);
    expect(await storedHash(t, userId)).toBe(hash);
    expect(await loginStatus(t, 'wide@nfkc.example', 'wide-passphrase')).toBe(200);
  });

  it('existing users still sign in: a hash of the password as typed (before NFKC) verifies, and the login replaces it by a hash of the NFKC form', async () => {
    expect(await loginStatus(t, 'alice@acme.example', 'alice-passphrase')).toBe(200);
    const user = await newUser(t, 'legacy');
    const typed = 'ｌｅｇａｃｙ－ｐａｓｓｐｈｒａｓｅ';
    await t.store.raw('UPDATE users SET password_hash = $1 WHERE id = $2', [
      await hashPassword(typed, t.config.argon2),
      user.id,
    ]);
    // The old hash knows only the typed form.
    expect(await loginStatus(t, user.username, 'legacy-passphrase')).toBe(401);
    expect(await loginStatus(t, user.username, typed)).toBe(200);
    const upgraded = await storedHash(t, user.id);
    expect(await verifyPassword(upgraded!, 'legacy-passphrase')).toBe(true);
    expect(await loginStatus(t, user.username, 'legacy-passphrase')).toBe(200);
    expect(await loginStatus(t, user.username, typed)).toBe(200);
  });
});
